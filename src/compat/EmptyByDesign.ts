import { HttpRouter, HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"
import { isId } from "../../schemas/Params.ts"
import { Access } from "../access/Access.ts"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import { invalidParam } from "../http/ApiError.ts"
import { json } from "../http/Respond.ts"
import { selfOrAdmin } from "../access/UserParam.ts"

/**
 * Optional data the official clients read at start-up (mattermost-compat.md sections 3 and 4) for features this
 * server does not have. Client config and license already switch most of them off; these reads still happen
 * (or happen on newer app versions), so they answer an empty value of the shape the client expects instead of an
 * error. Each one still requires a session and checks the user, team or channel it names, like a real endpoint.
 */
export interface EmptyByDesign {
  readonly method: "GET"
  /** Mattermost's template, `{name}` for a path segment. */
  readonly path: string
  /** What the answer is, for docs/compat.md. */
  readonly answer: string
  readonly why: string
  readonly body: (params: Readonly<Record<string, string>>, query: URLSearchParams) => unknown
}

const noPolicies = () => ({ policies: [], total_count: 0 })
const noGroups = () => ({ groups: [], total_group_count: 0 })

export const EMPTY_BY_DESIGN: ReadonlyArray<EmptyByDesign> = [
  { method: "GET", path: "/api/v4/agents", answer: "[]", why: "AI agents plugin: mobile cold start asks for agents", body: () => [] },
  { method: "GET", path: "/api/v4/users/{user_id}/groups", answer: "[]", why: "user groups (LDAP/custom groups) are not supported", body: () => [] },
  { method: "GET", path: "/api/v4/channels/{channel_id}/bookmarks", answer: "[]", why: "channel bookmarks: mobile 11.10+ fetches them unconditionally", body: () => [] },
  { method: "GET", path: "/api/v4/custom_profile_attributes/fields", answer: "[]", why: "custom profile attributes: the web app fetches the fields", body: () => [] },
  { method: "GET", path: "/api/v4/users/{user_id}/custom_profile_attributes", answer: "{}", why: "custom profile attributes: no values", body: () => ({}) },
  { method: "GET", path: "/api/v4/teams/{team_id}/groups", answer: "{\"groups\": [], \"total_group_count\": 0}", why: "synced groups: none (the System Console's team page loads them)", body: noGroups },
  { method: "GET", path: "/api/v4/channels/{channel_id}/groups", answer: "{\"groups\": [], \"total_group_count\": 0}", why: "synced groups: none (the System Console's channel page loads them)", body: noGroups },
  { method: "GET", path: "/api/v4/system/notices/{team_id}", answer: "[]", why: "in-product notices: none", body: () => [] },
  { method: "GET", path: "/api/v4/users/{user_id}/data_retention/team_policies", answer: "{\"policies\": [], \"total_count\": 0}", why: "data retention policies: none (unlicensed)", body: noPolicies },
  { method: "GET", path: "/api/v4/users/{user_id}/data_retention/channel_policies", answer: "{\"policies\": [], \"total_count\": 0}", why: "data retention policies: none (unlicensed)", body: noPolicies }
]


/** The checks a real endpoint with these path parameters would make. */
const checkScope = (params: Readonly<Record<string, string | undefined>>) =>
  Effect.gen(function*() {
    const caller = yield* CurrentCaller
    const access = yield* Access
    const resolved: Record<string, string> = {}
    for (const [name, raw] of Object.entries(params)) {
      const value = name === "user_id" && raw === "me" ? caller.userId : raw ?? ""
      if (!isId(value)) return yield* invalidParam(name)
      if (name === "user_id") yield* selfOrAdmin(value, "this user")
      if (name === "team_id") yield* access.team(caller, value)
      if (name === "channel_id") yield* access.channel(caller, value, "read")
      resolved[name] = value
    }
    return resolved
  })

const handler = (entry: EmptyByDesign) =>
  Effect.gen(function*() {
    const params = yield* checkScope(yield* HttpRouter.params)
    const request = yield* HttpServerRequest.HttpServerRequest
    return json(entry.body(params, new URL(request.url, "http://localhost").searchParams))
  })

export const routerPath = (template: string) => template.replace(/\{([^}]+)\}/g, ":$1") as HttpRouter.PathInput

export const routes = HttpRouter.concatAll(
  ...EMPTY_BY_DESIGN.map((entry) => HttpRouter.get(HttpRouter.empty, routerPath(entry.path), authed(handler(entry))))
)

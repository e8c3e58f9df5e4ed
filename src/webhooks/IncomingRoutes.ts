import { HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Schema } from "effect"
import type { DbError } from "../../layers/Db.ts"
import type { DomainError } from "../../schemas/Errors.ts"
import { CreateIncomingWebhook, IncomingPayload, UpdateIncomingWebhook } from "../../schemas/IncomingWebhook.ts"
import { authed, CurrentCaller, publicRoute } from "../auth/Guards.ts"
import { ApiError, badRequest, notFound, permissionDenied } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { ok, respondWith, respondWithAll } from "../http/Respond.ts"
import { IncomingWebhook, IncomingWebhooksWithCount } from "../../schemas/wire/Webhook.ts"
import { onHook, onHookUpdate } from "./HookRoutes.ts"
import * as Hooks from "./IncomingWebhooks.ts"
import { isId } from "../../schemas/Params.ts"

/** Incoming webhooks: management under /api/v4/hooks/incoming, and the hook itself at /hooks/{id} (not under /api/v4). */

const ListQuery = Schema.Struct({
  page: Decode.QueryInt(0, { min: 0 }),
  per_page: Decode.QueryInt(60, { min: 0, max: 200 }),
  team_id: Schema.optionalWith(Schema.String, { default: () => "" }),
  include_total_count: Schema.optionalWith(Decode.QueryBool, { default: () => false })
})

type HookErrors = Hooks.HooksDisabled | Hooks.HookNotPermitted | Hooks.HookNotFound | Hooks.HookBadInput | Hooks.HookRateLimited

const handle = <A, R>(effect: Effect.Effect<A, HookErrors | ApiError | DomainError | DbError, R>) =>
  effect.pipe(Effect.catchTags({
    HooksDisabled: () => Effect.fail(new ApiError({ status: 501, id: "api.incoming_webhook.disabled.app_error", message: "Incoming webhooks have been disabled by the system admin." })),
    HookNotPermitted: () => Effect.fail(permissionDenied("incoming webhooks")),
    HookNotFound: () => Effect.fail(notFound("app.webhooks.get_incoming_webhook.app_error", "Unable to get the webhook.")),
    HookBadInput: (e) => Effect.fail(new ApiError({ status: e.status, id: e.id, message: e.message })),
    HookRateLimited: (e) => Effect.fail(new ApiError({ status: 429, id: "web.incoming_webhook.rate_limited.app_error", message: `Too many posts through this webhook; retry in ${e.retryAfter} seconds.`, headers: { "retry-after": String(e.retryAfter) } }))
  }))

const create = handle(Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const body = yield* Decode.body(CreateIncomingWebhook)
  return yield* respondWith(IncomingWebhook, yield* Hooks.create(caller, body), 201)
}))

const list = handle(Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const q = yield* Decode.query(ListQuery)
  if (q.team_id !== "" && !isId(q.team_id)) return yield* badRequest("api.context.invalid_param.app_error", "Invalid or missing team_id parameter in request URL.")
  const hooks = yield* Hooks.list(caller, { teamId: q.team_id, page: q.page, perPage: q.per_page })
  return yield* (q.include_total_count
    ? respondWith(IncomingWebhooksWithCount, { incoming_webhooks: hooks, total_count: hooks.length })
    : respondWithAll(IncomingWebhook, hooks))
}))

const answer = (hook: IncomingWebhook) => respondWith(IncomingWebhook, hook)

const get = handle(onHook((caller, hookId) => Effect.flatMap(Hooks.get(caller, hookId), answer)))

const update = handle(onHookUpdate(UpdateIncomingWebhook, (caller, hookId, body) => Effect.flatMap(Hooks.update(caller, hookId, body), answer)))

const remove = handle(onHook((caller, hookId) => Effect.as(Hooks.remove(caller, hookId), ok())))

/** Slack's clients send no more than this; a larger payload is refused before it is read. */
const PAYLOAD_LIMIT = 1024 * 1024
const decodePayload = Schema.decodeUnknownEither(IncomingPayload)
const unparsable = () => badRequest("web.incoming_webhook.parse.app_error", "Unable to parse incoming data.")

/** JSON, or a form with the JSON in `payload` (Slack's form). */
const readPayload = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const text = yield* Decode.textBody(PAYLOAD_LIMIT)
  const type = (request.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase()
  const jsonText = type === "application/x-www-form-urlencoded" ? new URLSearchParams(text).get("payload") ?? "" : text
  let parsed: unknown
  try {
    parsed = JSON.parse(jsonText)
  } catch {
    return yield* unparsable()
  }
  const decoded = decodePayload(parsed)
  if (decoded._tag === "Left") return yield* unparsable()
  return decoded.right
})

const execute = handle(Effect.gen(function*() {
  const { hook_id } = yield* Decode.params(Schema.Struct({ hook_id: Schema.String }))
  const payload = yield* readPayload
  yield* Hooks.execute(hook_id, payload)
  return HttpServerResponse.text("ok", { contentType: "text/plain" })
}))

export const routes = HttpRouter.empty.pipe(
  HttpRouter.post("/api/v4/hooks/incoming", authed(create)),
  HttpRouter.get("/api/v4/hooks/incoming", authed(list)),
  HttpRouter.get("/api/v4/hooks/incoming/:hook_id", authed(get)),
  HttpRouter.put("/api/v4/hooks/incoming/:hook_id", authed(update)),
  HttpRouter.del("/api/v4/hooks/incoming/:hook_id", authed(remove)),
  HttpRouter.post("/hooks/:hook_id", publicRoute(execute))
)

import { HttpRouter } from "@effect/platform"
import { Effect, Schema } from "effect"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import { ApiError, badRequest, forbidden, notFound } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { respondWithAll } from "../http/Respond.ts"
import { Scheme } from "../../schemas/wire/Scheme.ts"

/**
 * Permission schemes (team and channel overrides) as Mattermost's Team Edition answers them (api4/scheme.go without
 * a license): there are no custom schemes, only the system scheme, whose roles are edited through the roles API.
 * Creating, patching and deleting a scheme is refused with the license error (501), after the same body decoding;
 * reading is allowed to the same permissions as in Mattermost and finds nothing (an empty list, 404 for an id).
 */

const SchemeParams = Schema.Struct({ scheme_id: Decode.Id })
const SchemesQuery = Schema.Struct({ scope: Schema.optionalWith(Schema.String, { default: () => "" }) })
const SchemeBody = Schema.Record({ key: Schema.String, value: Schema.Unknown })

const missingPermission = (permission: string) =>
  forbidden("api.context.permissions.app_error", `You do not have the appropriate permissions. (${permission})`)

const requirePermission = (permission: string) =>
  Effect.flatMap(CurrentCaller, (caller) => caller.can(permission) ? Effect.void : Effect.fail(missingPermission(permission)))

const unlicensed = (where: string, id: string) =>
  new ApiError({ status: 501, id, message: `${where}: custom permission schemes need an Enterprise license, which this server (Team Edition) does not have.` })

const schemeNotFound = () => notFound("app.scheme.get.app_error", "Unable to get the scheme.")

const list = Effect.gen(function*() {
  yield* requirePermission("sysconsole_read_user_management_permissions")
  const { scope } = yield* Decode.query(SchemesQuery)
  if (scope !== "" && scope !== "team" && scope !== "channel") {
    return yield* badRequest("api.context.invalid_url_param.app_error", "Invalid or missing scope parameter in request URL.")
  }
  // No custom schemes exist without a license.
  return yield* respondWithAll(Scheme, [])
})

const readOne = (permission: string) =>
  Effect.gen(function*() {
    yield* Decode.params(SchemeParams)
    yield* requirePermission(permission)
    return yield* schemeNotFound()
  })

const create = Effect.gen(function*() {
  yield* Decode.body(SchemeBody)
  return yield* unlicensed("Api4.CreateScheme", "api.scheme.create_scheme.license.error")
})

const patch = Effect.gen(function*() {
  yield* Decode.params(SchemeParams)
  yield* Decode.body(SchemeBody)
  return yield* unlicensed("Api4.PatchScheme", "api.scheme.patch_scheme.license.error")
})

const remove = Effect.gen(function*() {
  yield* Decode.params(SchemeParams)
  return yield* unlicensed("Api4.DeleteScheme", "api.scheme.delete_scheme.license.error")
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v4/schemes", authed(list)),
  HttpRouter.post("/api/v4/schemes", authed(create)),
  HttpRouter.get("/api/v4/schemes/:scheme_id", authed(readOne("sysconsole_read_user_management_permissions"))),
  HttpRouter.get("/api/v4/schemes/:scheme_id/teams", authed(readOne("sysconsole_read_user_management_teams"))),
  HttpRouter.get("/api/v4/schemes/:scheme_id/channels", authed(readOne("sysconsole_read_user_management_channels"))),
  HttpRouter.put("/api/v4/schemes/:scheme_id/patch", authed(patch)),
  HttpRouter.del("/api/v4/schemes/:scheme_id", authed(remove))
)

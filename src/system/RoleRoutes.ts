import { HttpRouter } from "@effect/platform"
import { Effect, Schema } from "effect"
import { requireCaller } from "../auth/Authenticate.ts"
import { badRequest, notFound } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { json } from "../http/Respond.ts"
import { ROLES, roleById, roleByName } from "./Roles.ts"

/** Read-only roles: the permission lists clients use to enable their UI. */

const RoleNameParams = Schema.Struct({ role_name: Schema.String })
const RoleIdParams = Schema.Struct({ role_id: Decode.Id })
const NamesBody = Schema.Array(Schema.String)

const roleNotFound = () => notFound("app.role.get_by_name.app_error", "Unable to find the role.")

const all = Effect.as(requireCaller, json(ROLES))

const byName = Effect.gen(function*() {
  yield* requireCaller
  const { role_name } = yield* Decode.params(RoleNameParams)
  const role = roleByName(role_name)
  return role === undefined ? yield* roleNotFound() : json(role)
})

const byId = Effect.gen(function*() {
  yield* requireCaller
  const { role_id } = yield* Decode.params(RoleIdParams)
  const role = roleById(role_id)
  return role === undefined ? yield* roleNotFound() : json(role)
})

const MAX_NAMES = 100

const byNames = Effect.gen(function*() {
  yield* requireCaller
  const names = yield* Decode.body(NamesBody)
  if (names.length === 0 || names.length > MAX_NAMES) {
    return yield* badRequest("api.context.invalid_body_param.app_error", `Expected between 1 and ${MAX_NAMES} role names.`)
  }
  const wanted = new Set(names)
  return json(ROLES.filter((r) => wanted.has(r.name)))
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v4/roles", all),
  HttpRouter.get("/api/v4/roles/name/:role_name", byName),
  HttpRouter.get("/api/v4/roles/:role_id", byId),
  HttpRouter.post("/api/v4/roles/names", byNames)
)

import { HttpRouter } from "@effect/platform"
import { Effect, Schema } from "effect"
import { authed } from "../auth/Guards.ts"
import { badRequest, notFound } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { respondWith, respondWithAll } from "../http/Respond.ts"
import { Role } from "../../schemas/wire/Role.ts"
import { ROLES, roleById, roleByName } from "./Roles.ts"

/** Read-only roles: the permission lists clients use to enable their UI. */

const RoleNameParams = Schema.Struct({ role_name: Schema.String })
const RoleIdParams = Schema.Struct({ role_id: Decode.Id })
const NamesBody = Schema.Array(Schema.String)

const roleNotFound = () => notFound("app.role.get_by_name.app_error", "Unable to find the role.")

const all = respondWithAll(Role, ROLES)

const byName = Effect.gen(function*() {
  const { role_name } = yield* Decode.params(RoleNameParams)
  const role = roleByName(role_name)
  return role === undefined ? yield* roleNotFound() : yield* respondWith(Role, role)
})

const byId = Effect.gen(function*() {
  const { role_id } = yield* Decode.params(RoleIdParams)
  const role = roleById(role_id)
  return role === undefined ? yield* roleNotFound() : yield* respondWith(Role, role)
})

const MAX_NAMES = 100

const byNames = Effect.gen(function*() {
  const names = yield* Decode.body(NamesBody)
  if (names.length === 0 || names.length > MAX_NAMES) {
    return yield* badRequest("api.context.invalid_body_param.app_error", `Expected between 1 and ${MAX_NAMES} role names.`)
  }
  const wanted = new Set(names)
  return yield* respondWithAll(Role, ROLES.filter((r) => wanted.has(r.name)))
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v4/roles", authed(all)),
  HttpRouter.get("/api/v4/roles/name/:role_name", authed(byName)),
  HttpRouter.get("/api/v4/roles/:role_id", authed(byId)),
  HttpRouter.post("/api/v4/roles/names", authed(byNames))
)

import { HttpRouter } from "@effect/platform"
import { Effect, Schema } from "effect"
import { DomainEvent } from "../../schemas/Events.ts"
import { Role } from "../../schemas/wire/Role.ts"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import { EventBus } from "../events/EventBus.ts"
import { ApiError, badRequest, forbidden, notFound } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { respondWith, respondWithAll } from "../http/Respond.ts"
import { KNOWN_PERMISSIONS, SYSCONSOLE_READ_PERMISSIONS } from "./RoleDefaults.ts"
import { RoleStore } from "./RoleStore.ts"

/**
 * Roles as Mattermost's api4/role.go serves them, from this node's copy of the `roles` table (RoleStore.ts):
 * - GET /roles: every role, for a caller holding any sysconsole read permission (the console's permission pages);
 * - GET /roles/{role_id}, /roles/name/{role_name}, POST /roles/names: any signed-in user (clients enable their UI
 *   from the permissions of the roles they hold);
 * - PUT /roles/{role_id}/patch: only `permissions` can change (a role's name, display name and flags never do). It needs
 *   sysconsole_write_user_management_permissions, or manage_system for system_admin and the delegated admin roles
 *   (Mattermost's specialProtectedSystemRoles). Without a license (Team Edition) the guest roles' permissions cannot
 *   be changed (501). An unknown permission is refused (400). The change takes effect at once on every node and is
 *   announced to clients as `role_updated`.
 */

const RoleNameParams = Schema.Struct({ role_name: Schema.String.pipe(Schema.maxLength(64)) })
const RoleIdParams = Schema.Struct({ role_id: Decode.Id })
const MAX_NAMES = 100
const NamesBody = Schema.Array(Schema.String.pipe(Schema.maxLength(64))).pipe(Schema.maxItems(MAX_NAMES))
const MAX_PERMISSIONS = 1000
const PatchBody = Schema.Struct({
  permissions: Schema.optional(Schema.Array(Schema.String.pipe(Schema.maxLength(128))).pipe(Schema.maxItems(MAX_PERMISSIONS)))
})

const VALID_ROLE_NAME = /^[a-z0-9_]{1,64}$/
const PROTECTED = new Set(["system_admin", "system_user_manager", "system_read_only_admin", "system_manager"])
const GUEST_ROLES = new Set(["system_guest", "team_guest", "channel_guest"])

const roleNotFound = () => notFound("app.role.get_by_name.app_error", "Unable to find the role.")
const missingPermission = (permission: string) =>
  forbidden("api.context.permissions.app_error", `You do not have the appropriate permissions. (${permission})`)

const all = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  if (!SYSCONSOLE_READ_PERMISSIONS.some(caller.can)) return yield* missingPermission("sysconsole_read_*")
  return yield* respondWithAll(Role, (yield* RoleStore).current().roles)
})

const byName = Effect.gen(function*() {
  const { role_name } = yield* Decode.params(RoleNameParams)
  const role = (yield* RoleStore).current().byName(role_name)
  return role === undefined ? yield* roleNotFound() : yield* respondWith(Role, role)
})

const byId = Effect.gen(function*() {
  const { role_id } = yield* Decode.params(RoleIdParams)
  const role = (yield* RoleStore).current().byId(role_id)
  return role === undefined ? yield* roleNotFound() : yield* respondWith(Role, role)
})

const byNames = Effect.gen(function*() {
  const names = (yield* Decode.body(NamesBody)).filter((n) => n.trim() !== "")
  if (names.length === 0) return yield* badRequest("api.context.invalid_param.app_error", "Invalid rolenames parameter.")
  if (!names.every((n) => VALID_ROLE_NAME.test(n))) {
    return yield* badRequest("api.role.get_roles_by_name.invalid_param.app_error", "Invalid role names.")
  }
  const snapshot = (yield* RoleStore).current()
  const wanted = new Set(names)
  return yield* respondWithAll(Role, snapshot.roles.filter((r) => wanted.has(r.name)))
})

const patch = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { role_id } = yield* Decode.params(RoleIdParams)
  const body = yield* Decode.body(PatchBody)
  const store = yield* RoleStore
  const role = store.current().byId(role_id)
  if (role === undefined) return yield* roleNotFound()
  const required = PROTECTED.has(role.name) ? "manage_system" : "sysconsole_write_user_management_permissions"
  if (!caller.can(required)) return yield* missingPermission(required)
  if (body.permissions === undefined) return yield* respondWith(Role, role)
  if (GUEST_ROLES.has(role.name)) {
    return yield* new ApiError({ status: 501, id: "api.roles.patch_roles.license.error", message: "Your license does not support advanced permissions." })
  }
  const unknown = body.permissions.find((p) => !KNOWN_PERMISSIONS.has(p))
  if (unknown !== undefined) {
    return yield* badRequest("app.role.save.invalid_role.app_error", `The role was not valid: unknown permission ${JSON.stringify(unknown.slice(0, 64))}.`)
  }
  const updated = yield* store.setPermissions(role.id, [...new Set(body.permissions)])
  if (updated === undefined) return yield* roleNotFound()
  yield* (yield* EventBus).publish(DomainEvent.RoleUpdated({ role: updated }), { broadcast_to_all: true })
  return yield* respondWith(Role, updated)
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v4/roles", authed(all)),
  HttpRouter.get("/api/v4/roles/name/:role_name", authed(byName)),
  HttpRouter.get("/api/v4/roles/:role_id", authed(byId)),
  HttpRouter.post("/api/v4/roles/names", authed(byNames)),
  HttpRouter.put("/api/v4/roles/:role_id/patch", authed(patch))
)

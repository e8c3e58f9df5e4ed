import { Effect, Option } from "effect"
import { Crypto } from "../../layers/Crypto.ts"
import { DomainEvent } from "../../schemas/Events.ts"
import { Sessions } from "../auth/Sessions.ts"
import { EventBus } from "../events/EventBus.ts"
import { publishUserUpdated } from "./UserEvents.ts"
import { toWire } from "./UserWire.ts"
import { UserRepo } from "./UserRepo.ts"

/**
 * Account changes an administrator makes, shared by the API (PUT /users/{id}/roles, /active, /password) and the
 * admin command line, so that both end sessions and tell the clients the same way.
 */

/**
 * New system roles: written, taken by every session of the user at once, announced to the user's own sockets as
 * Mattermost's user_role_updated (what its web app reloads roles on) and to everyone who sees them as user_updated.
 */
export const setSystemRoles = (userId: string, roles: string, now: number) =>
  Effect.gen(function*() {
    const updated = yield* (yield* UserRepo).setRoles(userId, roles, now)
    if (Option.isSome(updated)) {
      yield* (yield* Sessions).setRolesForUser(userId, roles)
      yield* (yield* EventBus).publish(DomainEvent.UserRoleUpdated({ userId, roles: updated.value.roles }), { user_id: userId })
      yield* publishUserUpdated(updated.value)
    }
    return updated
  })

/**
 * (De)activation; a deactivated user's sessions end, and their sockets close on every node. user_updated goes out
 * first, so that the user's own open clients learn why their session is ending (the web client says so at sign-in)
 * before their sockets close.
 */
export const setActive = (userId: string, active: boolean, now: number) =>
  Effect.gen(function*() {
    const updated = yield* (yield* UserRepo).setActive(userId, active, now)
    if (Option.isSome(updated)) {
      yield* publishUserUpdated(updated.value)
      if (!active) yield* (yield* Sessions).revokeForUser(userId)
    }
    return updated
  })

/**
 * A new password (already checked against the password rules): stored hashed, and every session of the account but
 * `keepSessionId` ends, so whoever knew the old password is signed out. The account's own sockets first get their
 * profile (user_updated, with the new last_password_update), so that an open client whose session is ending can say
 * why at sign-in; nobody else is told.
 */
export const setPassword = (userId: string, password: string, now: number, keepSessionId?: string) =>
  Effect.gen(function*() {
    const crypto = yield* Crypto
    const users = yield* UserRepo
    yield* users.setPassword(userId, yield* crypto.hashPassword(password), now)
    yield* tellOwnSockets(userId)
    return yield* (yield* Sessions).revokeForUser(userId, keepSessionId === undefined ? {} : { exceptSessionId: keepSessionId })
  })

/** The account's own profile to its own sockets only (user_updated), e.g. before its sessions end with a new password. */
export const tellOwnSockets = (userId: string) =>
  Effect.gen(function*() {
    const row = yield* (yield* UserRepo).findById(userId)
    if (Option.isSome(row)) yield* (yield* EventBus).publish(DomainEvent.UserUpdated({ user: toWire(row.value, "self") }), { user_id: userId })
  })

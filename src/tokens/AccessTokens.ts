import { Clock, Data, Effect, Option } from "effect"
import { newId, sha256Hex } from "../../layers/Crypto.ts"
import { Db } from "../../layers/Db.ts"
import { IdRow, rows } from "../../layers/Rows.ts"
import type { NewUserAccessToken, UserAccessToken } from "../../schemas/wire/AccessToken.ts"
import type { Caller } from "../auth/Authenticate.ts"
import { Sessions } from "../auth/Sessions.ts"
import { integrationSwitches } from "../integrations/IntegrationSettings.ts"
import { type AccessTokenRow, makeAccessTokenRepo } from "./AccessTokenRepo.ts"

const Ids = rows("AccessTokens live user", IdRow)

/**
 * Personal access tokens: created for a user (the secret shown once, only its hash kept), listed and fetched without
 * it, disabled, enabled and revoked. Who may: system admins for anyone; other users for themselves if they hold the
 * `system_user_access_token` role (Mattermost's create/read/revoke_user_access_token permissions); nobody while
 * EnableUserAccessTokens is off.
 */

export class TokensDisabled extends Data.TaggedError("TokensDisabled")<{}> {}
export class TokenNotPermitted extends Data.TaggedError("TokenNotPermitted")<{}> {}
export class TokenNotFound extends Data.TaggedError("TokenNotFound")<{}> {}
export class TokenUserNotFound extends Data.TaggedError("TokenUserNotFound")<{}> {}
export class TokenBadInput extends Data.TaggedError("TokenBadInput")<{ readonly field: string; readonly reason: string }> {}

export const TOKEN_ROLE = "system_user_access_token"

const wire = (row: AccessTokenRow): UserAccessToken => ({
  id: row.id,
  user_id: row.user_id,
  description: row.description,
  is_active: row.is_active,
  expires_at: Number(row.expires_at)
})

const repo = Effect.map(Db, makeAccessTokenRepo)

const enabled = Effect.flatMap(integrationSwitches, (s) => s.enableUserAccessTokens ? Effect.void : Effect.fail(new TokensDisabled()))

type TokenPermission = "create_user_access_token" | "read_user_access_token" | "revoke_user_access_token"

/**
 * The caller may act on `userId`'s tokens, as Mattermost decides: the token permission (system admins, and users
 * given the system_user_access_token role, hold them by default), for oneself, or for anyone with edit_other_users.
 */
const mayManage = (caller: Caller, userId: string, permission: TokenPermission) =>
  caller.can(permission) && (caller.userId === userId || caller.can("edit_other_users"))
    ? Effect.void
    : Effect.fail(new TokenNotPermitted())

/** Every user's tokens: manage_system, as Mattermost's getUserAccessTokens asks. */
const requireAdmin = (caller: Caller) => caller.isSystemAdmin ? Effect.void : Effect.fail(new TokenNotPermitted())

/** Ends the sessions a token authenticated (after the change is committed): its sockets close too. */
const endSession = (sessionId: string | null) =>
  sessionId === null ? Effect.void : Effect.flatMap(Sessions, (s) => s.revoke(sessionId))

/** A token the caller may manage, or why not. Not found and not permitted look alike to others' tokens. */
const ownedToken = (caller: Caller, tokenId: string, permission: TokenPermission) =>
  Effect.gen(function*() {
    const tokens = yield* repo
    const row = yield* tokens.byId(tokenId)
    if (Option.isNone(row)) return yield* new TokenNotFound()
    yield* mayManage(caller, row.value.user_id, permission)
    return row.value
  })

export const create = (caller: Caller, userId: string, description: string, expiresAt: number) =>
  Effect.gen(function*() {
    yield* enabled
    yield* mayManage(caller, userId, "create_user_access_token")
    if (description.trim() === "") return yield* new TokenBadInput({ field: "description", reason: "is required" })
    const now = yield* Clock.currentTimeMillis
    if (expiresAt !== 0 && expiresAt <= now) return yield* new TokenBadInput({ field: "expires_at", reason: "must be in the future, or 0 for never" })
    const db = yield* Db
    const users = yield* db.read(db.sql`SELECT id FROM users WHERE id = ${userId} AND delete_at = 0`.pipe(Ids))
    if (users.length === 0) return yield* new TokenUserNotFound()
    const token = newId()
    const id = newId()
    yield* (yield* repo).insert({ id, tokenHash: sha256Hex(token), userId, description, now, expiresAt })
    return { id, token, user_id: userId, description, is_active: true, expires_at: expiresAt } satisfies NewUserAccessToken
  })

export const listForUser = (caller: Caller, userId: string, page: number, perPage: number) =>
  Effect.gen(function*() {
    yield* enabled
    yield* mayManage(caller, userId, "read_user_access_token")
    return (yield* (yield* repo).forUser(userId, page, perPage)).map(wire)
  })

export const listAll = (caller: Caller, page: number, perPage: number) =>
  Effect.gen(function*() {
    yield* enabled
    yield* requireAdmin(caller)
    return (yield* (yield* repo).all(page, perPage)).map(wire)
  })

export const search = (caller: Caller, term: string) =>
  Effect.gen(function*() {
    yield* enabled
    yield* requireAdmin(caller)
    if (term.trim() === "") return []
    return (yield* (yield* repo).search(term.trim(), 100)).map(wire)
  })

export const get = (caller: Caller, tokenId: string) =>
  Effect.gen(function*() {
    yield* enabled
    return wire(yield* ownedToken(caller, tokenId, "read_user_access_token"))
  })

export const revoke = (caller: Caller, tokenId: string) =>
  Effect.gen(function*() {
    yield* enabled
    yield* ownedToken(caller, tokenId, "revoke_user_access_token")
    const removed = yield* (yield* repo).delete(tokenId)
    if (Option.isSome(removed)) yield* endSession(removed.value.session_id)
  })

export const setActive = (caller: Caller, tokenId: string, active: boolean) =>
  Effect.gen(function*() {
    yield* enabled
    yield* ownedToken(caller, tokenId, "revoke_user_access_token")
    const changed = yield* (yield* repo).setActive(tokenId, active)
    if (Option.isSome(changed)) yield* endSession(changed.value.session_id)
  })

/** Disables every token of a user (a bot being disabled) and ends their sessions. */
export const deactivateAllForUser = (userId: string) =>
  Effect.gen(function*() {
    const sessions = yield* (yield* repo).deactivateForUser(userId)
    yield* Effect.forEach(sessions, (s) => endSession(s.session_id), { discard: true })
  })

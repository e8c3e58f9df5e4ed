import { Clock, Data, Effect, Option } from "effect"
import { Crypto, newId } from "../../layers/Crypto.ts"
import { Db } from "../../layers/Db.ts"
import type { PatchBot } from "../../schemas/Bot.ts"
import type { Bot } from "../../schemas/wire/Bot.ts"
import type { Caller } from "../auth/Authenticate.ts"
import { Sessions } from "../auth/Sessions.ts"
import { integrationSwitches } from "../integrations/IntegrationSettings.ts"
import { deactivateAllForUser } from "../tokens/AccessTokens.ts"
import { UserRepo } from "../users/UserRepo.ts"
import { isValidEmail, passwordProblem, usernameProblem } from "../users/Validation.ts"
import { type BotRow, makeBotRepo } from "./BotRepo.ts"
import { runtimeSettings } from "../system/RuntimeSettings.ts"

/**
 * Bot accounts. Mattermost's default permissions give creating, reading and managing bots to system admins only
 * (system_user has none of create_bot, read_bots, manage_bots), and creation also needs EnableBotAccountCreation.
 * A bot posts with personal access tokens its admin creates (POST /users/{bot_id}/tokens); disabling a bot
 * deactivates its user, disables its tokens and ends its sessions.
 */

export class BotsNotPermitted extends Data.TaggedError("BotsNotPermitted")<{}> {}
export class BotCreationDisabled extends Data.TaggedError("BotCreationDisabled")<{}> {}
export class BotNotFound extends Data.TaggedError("BotNotFound")<{}> {}
export class BotOwnerNotFound extends Data.TaggedError("BotOwnerNotFound")<{}> {}
export class BotUsernameTaken extends Data.TaggedError("BotUsernameTaken")<{}> {}
export class BotBadUsername extends Data.TaggedError("BotBadUsername")<{ readonly reason: string }> {}

export const toWire = (row: BotRow): Bot => ({
  user_id: row.user_id,
  username: row.username,
  display_name: row.display_name,
  description: row.description,
  owner_id: row.owner_id,
  create_at: Number(row.create_at),
  update_at: Number(row.update_at),
  delete_at: Number(row.delete_at)
})

const repo = Effect.map(Effect.all([Db, UserRepo]), ([db, users]) => makeBotRepo(db, users.changed))
/** Bots are managed by permission, as in Mattermost (system admins hold them all by default). */
const admin = (caller: Caller, permission: string) => caller.can(permission) ? Effect.void : Effect.fail(new BotsNotPermitted())

const checkUsername = (username: string) => {
  const problem = usernameProblem(username)
  return problem === undefined ? Effect.void : Effect.fail(new BotBadUsername({ reason: problem }))
}

const found = (userId: string) =>
  Effect.flatMap(repo, (r) => r.byId(userId)).pipe(
    Effect.flatMap(Option.match({ onNone: () => Effect.fail(new BotNotFound()), onSome: Effect.succeed }))
  )

/** Creates a bot owned by `ownerId` (no permission check: the server's own bots, and `create` below). */
export const insertBot = (bot: { username: string; displayName: string; description: string; ownerId: string }, id = newId()) =>
  Effect.gen(function*() {
    yield* checkUsername(bot.username)
    const now = yield* Clock.currentTimeMillis
    yield* (yield* repo).insert({ id, ...bot, now }).pipe(
      Effect.catchIf((e) => e === "username_exists", () => Effect.fail(new BotUsernameTaken()))
    )
    return toWire(yield* found(id))
  })

export const create = (caller: Caller, input: { username: string; display_name: string; description: string }) =>
  Effect.gen(function*() {
    yield* admin(caller, "create_bot")
    if (!(yield* integrationSwitches).enableBotAccountCreation) return yield* new BotCreationDisabled()
    return yield* insertBot({ username: input.username.trim().toLowerCase(), displayName: input.display_name, description: input.description, ownerId: caller.userId })
  })

export const get = (caller: Caller, userId: string, includeDeleted: boolean) =>
  Effect.gen(function*() {
    yield* admin(caller, "read_others_bots")
    const bot = yield* found(userId)
    if (!includeDeleted && Number(bot.delete_at) !== 0) return yield* new BotNotFound()
    return toWire(bot)
  })

export const list = (caller: Caller, options: { page: number; perPage: number; includeDeleted: boolean; onlyOrphaned: boolean }) =>
  Effect.gen(function*() {
    yield* admin(caller, "read_others_bots")
    return (yield* (yield* repo).list(options)).map(toWire)
  })

export const patch = (caller: Caller, userId: string, changes: PatchBot) =>
  Effect.gen(function*() {
    yield* admin(caller, "manage_others_bots")
    yield* found(userId)
    const username = changes.username?.trim().toLowerCase()
    if (username !== undefined) yield* checkUsername(username)
    const now = yield* Clock.currentTimeMillis
    yield* (yield* repo).patch(userId, { username, displayName: changes.display_name, description: changes.description }, now).pipe(
      Effect.catchIf((e) => e === "username_exists", () => Effect.fail(new BotUsernameTaken()))
    )
    return toWire(yield* found(userId))
  })

export const setActive = (caller: Caller, userId: string, active: boolean) =>
  Effect.gen(function*() {
    yield* admin(caller, "manage_others_bots")
    yield* found(userId)
    yield* (yield* repo).setActive(userId, active, yield* Clock.currentTimeMillis)
    if (!active) {
      yield* deactivateAllForUser(userId)
      yield* Effect.flatMap(Sessions, (s) => s.revokeForUser(userId))
    }
    return toWire(yield* found(userId))
  })

export class BotConvertInvalid extends Data.TaggedError("BotConvertInvalid")<{ readonly field: string; readonly reason: string }> {}
export class BotUserNotFound extends Data.TaggedError("BotUserNotFound")<{}> {}

/** POST /bots/{id}/convert_to_user: system admins only; a password is required, the bot's tokens stay. */
export const convertToUser = (caller: Caller, userId: string, patch: { password?: string; email?: string; username?: string }, setSystemAdmin: boolean) =>
  Effect.gen(function*() {
    yield* admin(caller, "manage_system")
    const bot = yield* found(userId)
    if (patch.password === undefined || patch.password === "") return yield* new BotConvertInvalid({ field: "password", reason: "is required" })
    const weak = passwordProblem(patch.password, (yield* runtimeSettings).password, { username: patch.username ?? bot.username, email: patch.email ?? "" })
    if (weak !== undefined) return yield* new BotConvertInvalid({ field: "password", reason: weak.message })
    if (patch.email !== undefined && !isValidEmail(patch.email)) return yield* new BotConvertInvalid({ field: "email", reason: "is not a valid email address" })
    const username = patch.username?.trim().toLowerCase()
    if (username !== undefined) yield* checkUsername(username)
    const passwordHash = yield* Effect.flatMap(Crypto, (c) => c.hashPassword(patch.password!))
    const now = yield* Clock.currentTimeMillis
    const row = yield* (yield* repo).convertToUser(userId, {
      passwordHash,
      email: patch.email?.toLowerCase(),
      username,
      roles: setSystemAdmin ? "system_admin system_user" : "system_user"
    }, now).pipe(Effect.catchIf((e) => e === "taken", () => Effect.fail(new BotUsernameTaken())))
    if (Option.isNone(row)) return yield* new BotNotFound()
    return row.value
  })

/** POST /users/{id}/convert_to_bot: system admins only, not themselves; the user's sessions end. */
export const convertToBot = (caller: Caller, userId: string) =>
  Effect.gen(function*() {
    yield* admin(caller, "manage_system")
    if (userId === caller.userId) return yield* new BotConvertInvalid({ field: "user_id", reason: "you cannot convert yourself" })
    const converted = yield* (yield* repo).convertToBot(userId, yield* Clock.currentTimeMillis)
    if (!converted) return yield* new BotUserNotFound()
    yield* Effect.flatMap(Sessions, (s) => s.revokeForUser(userId))
    return toWire(yield* found(userId))
  })

export const assign = (caller: Caller, userId: string, ownerId: string) =>
  Effect.gen(function*() {
    yield* admin(caller, "assign_bot")
    yield* found(userId)
    const r = yield* repo
    if (!(yield* r.activeUserExists(ownerId))) return yield* new BotOwnerNotFound()
    yield* r.assign(userId, ownerId, yield* Clock.currentTimeMillis)
    return toWire(yield* found(userId))
  })

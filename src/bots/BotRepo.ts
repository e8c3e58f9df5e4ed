import { Effect, Option, Schema } from "effect"
import type { DbService } from "../../layers/Db.ts"
import { IdRow, Int8, rows } from "../../layers/Rows.ts"
import { DEFAULT_NOTIFY_PROPS, UserRow } from "../users/UserRow.ts"

/**
 * SQL for bot accounts: the users row (is_bot) and the bots row, always together. Every write to a users row calls
 * `userChanged` (UserRepo.changed) once it is over, so every node's cache of users drops the row.
 */

export const BotRow = Schema.Struct({
  user_id: Schema.String,
  username: Schema.String,
  display_name: Schema.String,
  description: Schema.String,
  owner_id: Schema.String,
  create_at: Int8,
  update_at: Int8,
  delete_at: Int8
})
export type BotRow = typeof BotRow.Type

const Bots = rows("BotRepo bots", BotRow)
const Users = rows("BotRepo users", UserRow)
const Ids = rows("BotRepo ids", IdRow)

const SELECT = `SELECT b.user_id, u.username, u.first_name AS display_name, b.description, b.owner_id, b.create_at,
  b.update_at, u.delete_at FROM bots b JOIN users u ON u.id = b.user_id`

export const makeBotRepo = (db: DbService, userChanged: (id: string) => Effect.Effect<void>) => {
  const sql = db.sql
  const writing = <A, E>(userId: string, write: Effect.Effect<A, E>) => Effect.ensuring(write, userChanged(userId))
  const one = (rows: ReadonlyArray<BotRow>) => Option.fromNullable(rows[0])
  const byId = (userId: string) => db.read(sql`${sql.literal(SELECT)} WHERE b.user_id = ${userId}`.pipe(Bots)).pipe(Effect.map(one))
  return {
    byId,
    /** Inserts the user and the bot in one transaction; "username_exists" when the name (or its email) is taken. */
    insert: (bot: { id: string; username: string; displayName: string; description: string; ownerId: string; now: number }) =>
      db.transaction(Effect.gen(function*() {
        const taken = yield* sql`SELECT id FROM users WHERE lower(username) = ${bot.username} OR lower(email) = ${`${bot.username}@localhost`}`.pipe(Ids)
        if (taken.length > 0) return yield* Effect.fail("username_exists" as const)
        yield* sql`
          INSERT INTO users (id, create_at, update_at, username, email, email_verified, first_name, roles, is_bot, notify_props)
          VALUES (${bot.id}, ${bot.now}, ${bot.now}, ${bot.username}, ${`${bot.username}@localhost`}, true, ${bot.displayName},
                  'system_user', true, ${JSON.stringify(DEFAULT_NOTIFY_PROPS)}::jsonb)`
        yield* sql`
          INSERT INTO bots (user_id, description, owner_id, create_at, update_at)
          VALUES (${bot.id}, ${bot.description}, ${bot.ownerId}, ${bot.now}, ${bot.now})`
      })),
    /** Paged by username; orphaned: the owner no longer exists or is deactivated. */
    list: (options: { page: number; perPage: number; includeDeleted: boolean; onlyOrphaned: boolean }) =>
      db.read(sql`${sql.literal(SELECT)}
        WHERE ${options.includeDeleted ? sql`TRUE` : sql`u.delete_at = 0`}
          AND ${options.onlyOrphaned ? sql`NOT EXISTS (SELECT 1 FROM users o WHERE o.id = b.owner_id AND o.delete_at = 0)` : sql`TRUE`}
        ORDER BY u.username LIMIT ${options.perPage} OFFSET ${options.page * options.perPage}`.pipe(Bots)),
    patch: (userId: string, changes: { username?: string; displayName?: string; description?: string }, now: number) =>
      writing(userId, db.transaction(Effect.gen(function*() {
        if (changes.username !== undefined) {
          const taken = yield* sql`SELECT id FROM users WHERE lower(username) = ${changes.username} AND id <> ${userId}`.pipe(Ids)
          if (taken.length > 0) return yield* Effect.fail("username_exists" as const)
        }
        yield* sql`
          UPDATE users SET update_at = ${now},
            username = COALESCE(${changes.username ?? null}, username),
            first_name = COALESCE(${changes.displayName ?? null}, first_name)
          WHERE id = ${userId}`
        yield* sql`
          UPDATE bots SET update_at = ${now}, description = COALESCE(${changes.description ?? null}, description)
          WHERE user_id = ${userId}`
      }))),
    setActive: (userId: string, active: boolean, now: number) =>
      writing(userId, db.transaction(Effect.gen(function*() {
        yield* sql`UPDATE users SET delete_at = ${active ? 0 : now}, update_at = ${now} WHERE id = ${userId}`
        yield* sql`UPDATE bots SET update_at = ${now} WHERE user_id = ${userId}`
      }))),
    assign: (userId: string, ownerId: string, now: number) =>
      db.execute(sql`UPDATE bots SET owner_id = ${ownerId}, update_at = ${now} WHERE user_id = ${userId}`),
    /** Makes the bot a user again: it keeps its id, posts and tokens; the bots row goes. */
    convertToUser: (userId: string, changes: { passwordHash: string; email?: string; username?: string; roles: string }, now: number) =>
      writing(userId, db.transaction(Effect.gen(function*() {
        if (changes.username !== undefined || changes.email !== undefined) {
          const taken = yield* sql`
            SELECT id FROM users WHERE id <> ${userId}
              AND (lower(username) = lower(${changes.username ?? ""}) OR lower(email) = lower(${changes.email ?? ""}))`.pipe(Ids)
          if (taken.length > 0) return yield* Effect.fail("taken" as const)
        }
        const rows = yield* sql`
          UPDATE users SET is_bot = false, password = ${changes.passwordHash}, roles = ${changes.roles}, update_at = ${now},
            last_password_update = ${now},
            username = COALESCE(${changes.username ?? null}, username), email = COALESCE(${changes.email ?? null}, email)
          WHERE id = ${userId} AND is_bot RETURNING *`.pipe(Users)
        yield* sql`DELETE FROM bots WHERE user_id = ${userId}`
        return Option.fromNullable(rows[0])
      }))),
    /** Makes a user a bot owned by itself (Mattermost's BotFromUser); its password stops working. */
    convertToBot: (userId: string, now: number) =>
      writing(userId, db.transaction(Effect.gen(function*() {
        const rows = yield* sql`
          UPDATE users SET is_bot = true, password = '', update_at = ${now} WHERE id = ${userId} AND NOT is_bot RETURNING id`.pipe(Ids)
        if (rows.length === 0) return false
        yield* sql`
          INSERT INTO bots (user_id, description, owner_id, create_at, update_at) VALUES (${userId}, '', ${userId}, ${now}, ${now})`
        return true
      }))),
    activeUserExists: (userId: string) =>
      db.read(sql`SELECT id FROM users WHERE id = ${userId} AND delete_at = 0`.pipe(Ids)).pipe(Effect.map((rows) => rows.length > 0))
  }
}

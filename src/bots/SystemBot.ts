import { Context, Effect, Layer, Option } from "effect"
import { newId } from "../../layers/Crypto.ts"
import { Db, type DbError } from "../../layers/Db.ts"
import { IdRow, rows } from "../../layers/Rows.ts"
import { UserRepo } from "../users/UserRepo.ts"
import { insertBot } from "./Bots.ts"

const Ids = rows("SystemBot ids", IdRow)

/**
 * The bot the server speaks as (reminders, notices): Mattermost's "system-bot", created the first time it is needed
 * (as Mattermost does), so that a server that never sends such a message has no extra account.
 * It owns itself, so it is never orphaned. Its id is found by username, so every node agrees on it; two nodes
 * starting together on an empty database race on the unique username and the loser reads the winner's.
 */
export const SYSTEM_BOT_USERNAME = "system-bot"

export interface SystemBotService {
  /** The bot's user id, creating the bot if it does not exist yet. */
  readonly userId: Effect.Effect<string, DbError>
}

export class SystemBot extends Context.Tag("service/SystemBot")<SystemBot, SystemBotService>() {}

const findByUsername = Effect.flatMap(Db, (db) =>
  Effect.map(
    db.read(db.sql`SELECT id FROM users WHERE lower(username) = ${SYSTEM_BOT_USERNAME} AND is_bot`.pipe(Ids)),
    (rows) => Option.fromNullable(rows[0]?.id)
  ))

const ensure = Effect.gen(function*() {
  const existing = yield* findByUsername
  if (Option.isSome(existing)) return existing.value
  const id = newId()
  const made = yield* Effect.either(insertBot({ username: SYSTEM_BOT_USERNAME, displayName: "System", description: "Messages from the server itself.", ownerId: id }, id))
  if (made._tag === "Right") return made.right.user_id
  const raced = yield* findByUsername
  if (Option.isSome(raced)) return raced.value
  return yield* Effect.die(made.left)
})

export const layer = Layer.effect(SystemBot, Effect.gen(function*() {
  const db = yield* Db
  const users = yield* UserRepo
  // Remembered once found; a failure (database down) is tried again on the next call.
  let known: string | undefined
  return {
    userId: Effect.suspend(() =>
      known !== undefined
        ? Effect.succeed(known)
        : ensure.pipe(Effect.provideService(Db, db), Effect.provideService(UserRepo, users), Effect.tap((id) => { known = id })))
  }
}))

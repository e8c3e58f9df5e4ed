import { Context, Effect, Layer, Option, Schema } from "effect"
import { Db, type DbError } from "../../layers/Db.ts"
import { Int8, rows } from "../../layers/Rows.ts"

const Consumed = rows("UserTokenRepo consume", Schema.Struct({ user_id: Schema.String, extra: Schema.String, expires_at: Int8 }))
const Swept = rows("UserTokenRepo sweep", Schema.Struct({ n: Schema.Number }))

/** One-time tokens mailed to users, kept as SHA-256 hashes (migration 0100). */
export type TokenType = "password_recovery" | "verify_email"

export interface ConsumedToken {
  readonly userId: string
  readonly extra: string
  readonly expiresAt: number
}

export interface UserTokenRepoService {
  /** Stores a token, replacing the user's earlier tokens of the type: only the latest link works. */
  readonly replace: (input: {
    readonly tokenHash: string
    readonly type: TokenType
    readonly userId: string
    readonly extra: string
    readonly now: number
    readonly expiresAt: number
  }) => Effect.Effect<void, DbError>
  /**
   * Deletes the token and answers what it was for; None when there is no such token. Deleting is the claim: of two
   * requests with one token, only one gets it back.
   */
  readonly consume: (tokenHash: string, type: TokenType) => Effect.Effect<Option.Option<ConsumedToken>, DbError>
  /** Deletes the tokens that expired before `now`; answers how many. */
  readonly deleteExpired: (now: number) => Effect.Effect<number, DbError>
}

export class UserTokenRepo extends Context.Tag("service/UserTokenRepo")<UserTokenRepo, UserTokenRepoService>() {}

export const make = Effect.gen(function*() {
  const db = yield* Db
  const sql = db.sql
  const service: UserTokenRepoService = {
    replace: (t) =>
      db.transaction(Effect.gen(function*() {
        yield* sql`DELETE FROM user_tokens WHERE user_id = ${t.userId} AND type = ${t.type}`
        yield* sql`
          INSERT INTO user_tokens (token_hash, type, user_id, extra, create_at, expires_at)
          VALUES (${t.tokenHash}, ${t.type}, ${t.userId}, ${t.extra}, ${t.now}, ${t.expiresAt})`
      })),
    consume: (tokenHash, type) =>
      Effect.map(
        db.execute(sql`
          DELETE FROM user_tokens WHERE token_hash = ${tokenHash} AND type = ${type}
          RETURNING user_id, extra, expires_at`.pipe(Consumed)),
        (rows) => Option.map(Option.fromNullable(rows[0]), (r) => ({ userId: r.user_id, extra: r.extra, expiresAt: Number(r.expires_at) }))
      ),
    // user_tokens_expires_at_idx finds them; every node may run it, deleting twice is harmless.
    deleteExpired: (now) =>
      Effect.map(db.execute(sql`
        WITH gone AS (DELETE FROM user_tokens WHERE expires_at < ${now} RETURNING 1) SELECT count(*)::int AS n FROM gone`.pipe(Swept)),
        (rows) => rows[0]?.n ?? 0)
  }
  return service
})

export const layer = Layer.effect(UserTokenRepo, make)

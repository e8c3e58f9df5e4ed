import { Context, Effect, Layer, Option, Schema } from "effect"
import { Db, type DbError } from "../../layers/Db.ts"
import { Int8, rows } from "../../layers/Rows.ts"
import { UserRepo } from "../users/UserRepo.ts"

const Secrets = rows("MfaRepo secret", Schema.Struct({ secret: Schema.String, last_step: Int8 }))
const MfaActive = rows("MfaRepo mfa_active", Schema.Struct({ mfa_active: Schema.Boolean }))

/**
 * TOTP secrets (encrypted) and the users.mfa_active flag (migration 0101). Writes to the flag drop the user's row
 * from every node's cache of users (UserRepo.changed), as UserRepo's own writes do.
 */
export interface StoredSecret {
  readonly secret: string
  readonly lastStep: number
}

export interface MfaRepoService {
  readonly secret: (userId: string) => Effect.Effect<Option.Option<StoredSecret>, DbError>
  /** Stores a new (not yet active) secret; refused (false) while MFA is active. */
  readonly saveSecret: (userId: string, encrypted: string, now: number) => Effect.Effect<boolean, DbError>
  /** Records an accepted step; false when that step (or a later one) was already used: a replayed code. */
  readonly useStep: (userId: string, step: number) => Effect.Effect<boolean, DbError>
  readonly setActive: (userId: string, active: boolean, now: number) => Effect.Effect<void, DbError>
  /** Turns MFA off and forgets the secret. */
  readonly reset: (userId: string, now: number) => Effect.Effect<void, DbError>
}

export class MfaRepo extends Context.Tag("service/MfaRepo")<MfaRepo, MfaRepoService>() {}

export const make = Effect.gen(function*() {
  const db = yield* Db
  const users = yield* UserRepo
  const sql = db.sql
  const service: MfaRepoService = {
    secret: (userId) =>
      Effect.map(
        db.read(sql`SELECT secret, last_step FROM user_mfa WHERE user_id = ${userId}`.pipe(Secrets)),
        (rows) => Option.map(Option.fromNullable(rows[0]), (r) => ({ secret: r.secret, lastStep: Number(r.last_step) }))
      ),
    saveSecret: (userId, encrypted, now) =>
      db.transaction(Effect.gen(function*() {
        const [user] = yield* sql`SELECT mfa_active FROM users WHERE id = ${userId} FOR UPDATE`.pipe(MfaActive)
        if (user === undefined || user.mfa_active) return false
        yield* sql`
          INSERT INTO user_mfa (user_id, secret, create_at) VALUES (${userId}, ${encrypted}, ${now})
          ON CONFLICT (user_id) DO UPDATE SET secret = EXCLUDED.secret, create_at = EXCLUDED.create_at, last_step = 0`
        return true
      })),
    useStep: (userId, step) =>
      Effect.map(
        db.execute(sql`UPDATE user_mfa SET last_step = ${step} WHERE user_id = ${userId} AND last_step < ${step} RETURNING user_id`),
        (rows) => rows.length > 0
      ),
    setActive: (userId, active, now) =>
      Effect.asVoid(db.execute(sql`UPDATE users SET mfa_active = ${active}, update_at = ${now} WHERE id = ${userId}`)).pipe(
        Effect.ensuring(users.changed(userId))
      ),
    reset: (userId, now) =>
      db.transaction(Effect.gen(function*() {
        yield* sql`DELETE FROM user_mfa WHERE user_id = ${userId}`
        yield* sql`UPDATE users SET mfa_active = false, update_at = ${now} WHERE id = ${userId}`
      })).pipe(Effect.ensuring(users.changed(userId)))
  }
  return service
})

export const layer = Layer.effect(MfaRepo, make)

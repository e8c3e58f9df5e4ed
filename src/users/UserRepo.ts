import { Context, Effect, Layer, Option, Schema } from "effect"
import { Db, type DbError } from "../../layers/Db.ts"
import { CountRow, IdRow, rows, StringMap } from "../../layers/Rows.ts"
import { makeUserCache } from "./UserCache.ts"
import { UserRow } from "./UserRow.ts"
import { anyText } from "../../layers/SqlArrays.ts"

export interface NewUser {
  readonly id: string
  readonly now: number
  readonly username: string
  readonly email: string
  readonly passwordHash: string
  readonly emailVerified: boolean
  readonly firstName: string
  readonly lastName: string
  readonly nickname: string
  readonly locale: string
  readonly authService: string
  readonly authData: string | null
  readonly notifyProps: Record<string, string>
}

export interface UserRepoService {
  /** Inserts the user; the very first user of the server becomes system_admin (decided under a lock). */
  readonly insert: (user: NewUser) => Effect.Effect<UserRow, DbError | "username_exists" | "email_exists">
  readonly findById: (id: string) => Effect.Effect<Option.Option<UserRow>, DbError>
  /**
   * The user from this node's cache of users (UserCache.ts), read from the database on a miss: for the hot reads
   * of a caller's own record (GET /users/me). Every write here drops the entry on every node; code that writes
   * users with its own SQL calls `changed` after its commit.
   */
  readonly findCached: (id: string) => Effect.Effect<Option.Option<UserRow>, DbError>
  /** What `findCached` answers from the cache alone, without running anything; undefined when it would read. */
  readonly cachedNow: (id: string) => UserRow | undefined
  /** Drops the user from every node's cache: called after any committed write to the user's row. */
  readonly changed: (id: string) => Effect.Effect<void>
  readonly findByIds: (ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<UserRow>, DbError>
  readonly findByLogin: (loginId: string) => Effect.Effect<Option.Option<UserRow>, DbError>
  readonly findByEmail: (email: string) => Effect.Effect<Option.Option<UserRow>, DbError>
  readonly findByUsername: (username: string) => Effect.Effect<Option.Option<UserRow>, DbError>
  readonly recordLogin: (id: string, now: number) => Effect.Effect<void, DbError>
  /**
   * Counts one sign-in attempt against the account before its password is checked, in one statement, so that however
   * many requests race (on any node, from any address) at most `max` passwords are ever tried: the new count, or
   * None when the account is locked (already `max` failed attempts). A right password then resets the count
   * (`recordLogin`, `setPassword`); a sign-in that was no guess (a missing second-factor code) gives it back.
   */
  readonly claimLoginAttempt: (id: string, max: number) => Effect.Effect<Option.Option<number>, DbError>
  readonly releaseLoginAttempt: (id: string) => Effect.Effect<void, DbError>
  /** Forgets failed attempts after a password was proven right outside a sign-in. */
  readonly clearFailedAttempts: (id: string) => Effect.Effect<void, DbError>
  /** Applies the present fields; a username or email another user holds is refused. */
  readonly patch: (id: string, changes: UserChanges, now: number) => Effect.Effect<Option.Option<UserRow>, DbError | "username_exists" | "email_exists">
  /** Rewrites props under a row lock (custom status, recent statuses). */
  readonly updateProps: (id: string, f: (props: Record<string, string>) => Record<string, string>, now: number) => Effect.Effect<Option.Option<UserRow>, DbError>
  readonly setPassword: (id: string, passwordHash: string, now: number) => Effect.Effect<void, DbError>
  readonly setActive: (id: string, active: boolean, now: number) => Effect.Effect<Option.Option<UserRow>, DbError>
  readonly setPictureUpdate: (id: string, pictureAt: number, now: number) => Effect.Effect<Option.Option<UserRow>, DbError>
  /** A user's system roles, a bot's too (Mattermost's bot form offers Member or System Admin): None when there is no such user. */
  readonly setRoles: (id: string, roles: string, now: number) => Effect.Effect<Option.Option<UserRow>, DbError>
  /** Marks the address verified, only while it is still the account's address. */
  readonly markEmailVerified: (id: string, email: string, now: number) => Effect.Effect<boolean, DbError>
}

export interface UserChanges {
  readonly username?: string
  readonly email?: string
  readonly nickname?: string
  readonly first_name?: string
  readonly last_name?: string
  readonly position?: string
  readonly locale?: string
  readonly timezone?: Record<string, string>
  readonly props?: Record<string, string>
  readonly notify_props?: Record<string, string>
}

export class UserRepo extends Context.Tag("service/UserRepo")<UserRepo, UserRepoService>() {}

const FIRST_USER_LOCK = 7_300_001

const UserRows = rows("UserRepo users", UserRow)
const Clashes = rows("UserRepo insert clash", Schema.Struct({ username: Schema.Boolean, email: Schema.Boolean }))
const UsernameClashes = rows("UserRepo patch clash", Schema.Struct({ username: Schema.Boolean }))
const Counts = rows("UserRepo count", CountRow)
const PropsRows = rows("UserRepo props", Schema.Struct({ props: StringMap }))
const Ids = rows("UserRepo ids", IdRow)

export const make = Effect.gen(function*() {
  const db = yield* Db
  const sql = db.sql
  const one = (rows: ReadonlyArray<UserRow>) => Option.fromNullable(rows[0])
  const cache = yield* makeUserCache
  /** Runs a write, then drops its user from every node's cache (after the commit, whatever the outcome). */
  const writing = <A, E>(id: string, write: Effect.Effect<A, E>) => Effect.ensuring(write, cache.changed(id))
  const findById = (id: string) => Effect.map(db.read(sql`SELECT * FROM users WHERE id = ${id}`.pipe(UserRows)), one)
  const service: UserRepoService = {
    findCached: (id) => cache.get(id, findById(id)),
    cachedNow: cache.peek,
    changed: cache.changed,
    insert: (u) =>
      writing(u.id, db.transaction(Effect.gen(function*() {
        yield* sql`SELECT pg_advisory_xact_lock(${FIRST_USER_LOCK})`
        const clash = yield* sql`
          SELECT lower(username) = lower(${u.username}) AS username, lower(email) = lower(${u.email}) AS email
          FROM users WHERE lower(username) = lower(${u.username}) OR lower(email) = lower(${u.email}) LIMIT 1`.pipe(Clashes)
        if (clash[0]?.username) return yield* Effect.fail("username_exists" as const)
        if (clash[0]?.email) return yield* Effect.fail("email_exists" as const)
        const [{ count }] = yield* sql`SELECT count(*) AS count FROM users WHERE NOT is_bot`.pipe(Counts)
        const roles = Number(count) === 0 ? "system_admin system_user" : "system_user"
        const rows = yield* sql`
          INSERT INTO users (id, create_at, update_at, username, password, email, email_verified, first_name, last_name,
                             nickname, locale, roles, auth_service, auth_data, notify_props, last_password_update)
          VALUES (${u.id}, ${u.now}, ${u.now}, ${u.username}, ${u.passwordHash}, ${u.email}, ${u.emailVerified},
                  ${u.firstName}, ${u.lastName}, ${u.nickname}, ${u.locale}, ${roles}, ${u.authService}, ${u.authData},
                  ${JSON.stringify(u.notifyProps)}::jsonb, ${u.passwordHash === "" ? 0 : u.now})
          RETURNING *`.pipe(UserRows)
        return rows[0]
      }))),
    findById,
    findByIds: (ids) =>
      ids.length === 0 ? Effect.succeed([]) : db.read(sql`SELECT * FROM users WHERE id = ${anyText(sql, ids)}`.pipe(UserRows)),
    findByLogin: (loginId) =>
      Effect.map(
        db.read(sql`
          SELECT * FROM users WHERE lower(email) = lower(${loginId}) OR lower(username) = lower(${loginId})
          ORDER BY (lower(username) = lower(${loginId})) DESC LIMIT 1`.pipe(UserRows)),
        one
      ),
    findByEmail: (email) => Effect.map(db.read(sql`SELECT * FROM users WHERE lower(email) = lower(${email})`.pipe(UserRows)), one),
    findByUsername: (username) =>
      Effect.map(db.read(sql`SELECT * FROM users WHERE lower(username) = lower(${username})`.pipe(UserRows)), one),
    recordLogin: (id, now) => writing(id, Effect.asVoid(db.execute(sql`UPDATE users SET last_login = ${now}, failed_attempts = 0 WHERE id = ${id}`))),
    claimLoginAttempt: (id, max) =>
      writing(id, Effect.map(
        db.execute(sql`
          UPDATE users SET failed_attempts = failed_attempts + 1
          WHERE id = ${id} AND failed_attempts < ${max} RETURNING failed_attempts AS count`.pipe(Counts)),
        (rows) => Option.map(Option.fromNullable(rows[0]), (r) => Number(r.count))
      )),
    releaseLoginAttempt: (id) =>
      writing(id, Effect.asVoid(db.execute(sql`
        UPDATE users SET failed_attempts = GREATEST(failed_attempts - 1, 0) WHERE id = ${id} AND failed_attempts > 0`))),
    clearFailedAttempts: (id) =>
      writing(id, Effect.asVoid(db.execute(sql`UPDATE users SET failed_attempts = 0 WHERE id = ${id} AND failed_attempts > 0`))),
    patch: (id, c, now) =>
      writing(id, db.transaction(Effect.gen(function*() {
        if (c.username !== undefined || c.email !== undefined) {
          const clash = yield* sql`
            SELECT lower(username) = lower(${c.username ?? ""}) AS username FROM users
            WHERE id <> ${id} AND (lower(username) = lower(${c.username ?? ""}) OR lower(email) = lower(${c.email ?? ""}))
            LIMIT 1`.pipe(UsernameClashes)
          if (clash.length > 0) return yield* Effect.fail(clash[0].username ? "username_exists" as const : "email_exists" as const)
        }
        const json = (v: Record<string, string> | undefined) => v === undefined ? null : JSON.stringify(v)
        const rows = yield* sql`
          UPDATE users SET
            username = COALESCE(${c.username ?? null}, username),
            email = COALESCE(${c.email ?? null}, email),
            email_verified = CASE WHEN ${c.email ?? null}::text IS NOT NULL AND lower(${c.email ?? ""}) <> lower(email) THEN false ELSE email_verified END,
            nickname = COALESCE(${c.nickname ?? null}, nickname),
            first_name = COALESCE(${c.first_name ?? null}, first_name),
            last_name = COALESCE(${c.last_name ?? null}, last_name),
            position = COALESCE(${c.position ?? null}, position),
            locale = COALESCE(${c.locale ?? null}, locale),
            timezone = COALESCE(${json(c.timezone)}::jsonb, timezone),
            props = COALESCE(${json(c.props)}::jsonb, props),
            notify_props = COALESCE(${json(c.notify_props)}::jsonb, notify_props),
            update_at = ${now}
          WHERE id = ${id} RETURNING *`.pipe(UserRows)
        return one(rows)
      }))),
    updateProps: (id, f, now) =>
      writing(id, db.transaction(Effect.gen(function*() {
        const current = yield* sql`SELECT props FROM users WHERE id = ${id} FOR UPDATE`.pipe(PropsRows)
        if (current.length === 0) return Option.none()
        const rows = yield* sql`
          UPDATE users SET props = ${JSON.stringify(f(current[0].props ?? {}))}::jsonb, update_at = ${now}
          WHERE id = ${id} RETURNING *`.pipe(UserRows)
        return one(rows)
      }))),
    setPassword: (id, passwordHash, now) =>
      writing(id, Effect.asVoid(db.execute(sql`
        UPDATE users SET password = ${passwordHash}, last_password_update = ${now}, update_at = ${now}, failed_attempts = 0
        WHERE id = ${id}`))),
    setActive: (id, active, now) =>
      writing(id, Effect.map(
        db.execute(sql`
          UPDATE users SET delete_at = ${active ? 0 : now}, update_at = ${now} WHERE id = ${id} RETURNING *`.pipe(UserRows)),
        one
      )),
    setPictureUpdate: (id, pictureAt, now) =>
      writing(id, Effect.map(
        db.execute(sql`
          UPDATE users SET last_picture_update = ${pictureAt}, update_at = ${now} WHERE id = ${id} RETURNING *`.pipe(UserRows)),
        one
      )),
    setRoles: (id, roles, now) =>
      writing(id, Effect.map(
        db.execute(sql`UPDATE users SET roles = ${roles}, update_at = ${now} WHERE id = ${id} RETURNING *`.pipe(UserRows)),
        one
      )),
    markEmailVerified: (id, email, now) =>
      writing(id, Effect.map(
        db.execute(sql`
          UPDATE users SET email_verified = true, update_at = ${now}
          WHERE id = ${id} AND lower(email) = lower(${email}) AND delete_at = 0 RETURNING id`.pipe(Ids)),
        (rows) => rows.length > 0
      ))
  }
  return service
})

export const layer = Layer.scoped(UserRepo, make)

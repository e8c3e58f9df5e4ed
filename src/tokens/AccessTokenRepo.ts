import { Effect, Option, Schema } from "effect"
import type { DbService } from "../../layers/Db.ts"
import { IdRow, Int8, rows } from "../../layers/Rows.ts"

/** SQL for personal access tokens; shared by the token service and by session lookup (a token authenticates). */

export const AccessTokenRow = Schema.Struct({
  id: Schema.String,
  user_id: Schema.String,
  description: Schema.String,
  is_active: Schema.Boolean,
  session_id: Schema.NullOr(Schema.String),
  create_at: Int8,
  expires_at: Int8
})
export type AccessTokenRow = typeof AccessTokenRow.Type

/** What authenticating with a token needs: the token, and whether its user may still sign in. */
export const TokenForLogin = Schema.Struct({
  ...AccessTokenRow.fields,
  user_active: Schema.Boolean,
  user_roles: Schema.String,
  user_is_bot: Schema.Boolean
})
export type TokenForLogin = typeof TokenForLogin.Type

const AccessTokenRows = rows("AccessTokenRepo tokens", AccessTokenRow)
const TokensForLogin = rows("AccessTokenRepo byHash", TokenForLogin)
const Ids = rows("AccessTokenRepo ids", IdRow)
const SessionIds = rows("AccessTokenRepo session ids", Schema.Struct({ session_id: Schema.NullOr(Schema.String) }))

export const makeAccessTokenRepo = (db: DbService) => {
  const sql = db.sql
  return {
    insert: (row: { id: string; tokenHash: string; userId: string; description: string; now: number; expiresAt: number }) =>
      db.execute(sql`
        INSERT INTO user_access_tokens (id, token_hash, user_id, description, create_at, expires_at)
        VALUES (${row.id}, ${row.tokenHash}, ${row.userId}, ${row.description}, ${row.now}, ${row.expiresAt})`),
    byHash: (tokenHash: string) =>
      db.read(sql`
        SELECT t.*, u.delete_at = 0 AS user_active, u.roles AS user_roles, u.is_bot AS user_is_bot
        FROM user_access_tokens t JOIN users u ON u.id = t.user_id
        WHERE t.token_hash = ${tokenHash}`.pipe(TokensForLogin)).pipe(Effect.map((rows) => Option.fromNullable(rows[0]))),
    byId: (id: string) =>
      db.read(sql`SELECT * FROM user_access_tokens WHERE id = ${id}`.pipe(AccessTokenRows)).pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]))
      ),
    forUser: (userId: string, page: number, perPage: number) =>
      db.read(sql`
        SELECT * FROM user_access_tokens WHERE user_id = ${userId}
        ORDER BY create_at, id LIMIT ${perPage} OFFSET ${page * perPage}`.pipe(AccessTokenRows)),
    all: (page: number, perPage: number) =>
      db.read(sql`SELECT * FROM user_access_tokens ORDER BY create_at, id LIMIT ${perPage} OFFSET ${page * perPage}`.pipe(AccessTokenRows)),
    /** Mattermost's search: the token id, the owner's id, or the owner's username prefix-matched. */
    search: (term: string, limit: number) =>
      db.read(sql`
        SELECT t.* FROM user_access_tokens t JOIN users u ON u.id = t.user_id
        WHERE t.id = ${term} OR t.user_id = ${term} OR lower(u.username) LIKE ${term.toLowerCase().replace(/[\\%_]/g, "\\$&") + "%"}
        ORDER BY t.create_at, t.id LIMIT ${limit}`.pipe(AccessTokenRows)),
    /** Records the session a token now authenticates as, unless another request recorded one first. */
    claimSession: (id: string, previous: string | null, sessionId: string) =>
      db.execute(sql`
        UPDATE user_access_tokens SET session_id = ${sessionId}
        WHERE id = ${id} AND session_id IS NOT DISTINCT FROM ${previous} RETURNING id`.pipe(Ids)).pipe(Effect.map((rows) => rows.length > 0)),
    setActive: (id: string, active: boolean) =>
      db.execute(sql`
        UPDATE user_access_tokens t SET is_active = ${active}, session_id = NULL
        FROM user_access_tokens old WHERE t.id = ${id} AND old.id = t.id
        RETURNING t.id, t.user_id, t.description, t.is_active, old.session_id, t.create_at, t.expires_at`.pipe(AccessTokenRows)).pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]))
      ),
    delete: (id: string) =>
      db.execute(sql`DELETE FROM user_access_tokens WHERE id = ${id} RETURNING *`.pipe(AccessTokenRows)).pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]))
      ),
    /** A user's tokens (a bot being disabled, a user deactivated): their sessions, to revoke. */
    deactivateForUser: (userId: string) =>
      db.execute(sql`
        UPDATE user_access_tokens t SET is_active = false, session_id = NULL
        FROM user_access_tokens old WHERE t.user_id = ${userId} AND old.id = t.id
        RETURNING old.session_id`.pipe(SessionIds))
  }
}

export type AccessTokenRepo = ReturnType<typeof makeAccessTokenRepo>

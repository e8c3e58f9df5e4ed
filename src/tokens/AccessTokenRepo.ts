import { Effect, Option } from "effect"
import type { DbService } from "../../layers/Db.ts"

/** SQL for personal access tokens; shared by the token service and by session lookup (a token authenticates). */

export interface AccessTokenRow {
  readonly id: string
  readonly user_id: string
  readonly description: string
  readonly is_active: boolean
  readonly session_id: string | null
  readonly create_at: string | number
  readonly expires_at: string | number
}

/** What authenticating with a token needs: the token, and whether its user may still sign in. */
export interface TokenForLogin extends AccessTokenRow {
  readonly user_active: boolean
  readonly user_roles: string
  readonly user_is_bot: boolean
}

export const makeAccessTokenRepo = (db: DbService) => {
  const sql = db.sql
  return {
    insert: (row: { id: string; tokenHash: string; userId: string; description: string; now: number; expiresAt: number }) =>
      db.execute(sql`
        INSERT INTO user_access_tokens (id, token_hash, user_id, description, create_at, expires_at)
        VALUES (${row.id}, ${row.tokenHash}, ${row.userId}, ${row.description}, ${row.now}, ${row.expiresAt})`),
    byHash: (tokenHash: string) =>
      db.read(sql<TokenForLogin>`
        SELECT t.*, u.delete_at = 0 AS user_active, u.roles AS user_roles, u.is_bot AS user_is_bot
        FROM user_access_tokens t JOIN users u ON u.id = t.user_id
        WHERE t.token_hash = ${tokenHash}`).pipe(Effect.map((rows) => Option.fromNullable(rows[0]))),
    byId: (id: string) =>
      db.read(sql<AccessTokenRow>`SELECT * FROM user_access_tokens WHERE id = ${id}`).pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]))
      ),
    forUser: (userId: string, page: number, perPage: number) =>
      db.read(sql<AccessTokenRow>`
        SELECT * FROM user_access_tokens WHERE user_id = ${userId}
        ORDER BY create_at, id LIMIT ${perPage} OFFSET ${page * perPage}`),
    all: (page: number, perPage: number) =>
      db.read(sql<AccessTokenRow>`SELECT * FROM user_access_tokens ORDER BY create_at, id LIMIT ${perPage} OFFSET ${page * perPage}`),
    /** Mattermost's search: the token id, the owner's id, or the owner's username prefix-matched. */
    search: (term: string, limit: number) =>
      db.read(sql<AccessTokenRow>`
        SELECT t.* FROM user_access_tokens t JOIN users u ON u.id = t.user_id
        WHERE t.id = ${term} OR t.user_id = ${term} OR lower(u.username) LIKE ${term.toLowerCase().replace(/[\\%_]/g, "\\$&") + "%"}
        ORDER BY t.create_at, t.id LIMIT ${limit}`),
    /** Records the session a token now authenticates as, unless another request recorded one first. */
    claimSession: (id: string, previous: string | null, sessionId: string) =>
      db.execute(sql<{ id: string }>`
        UPDATE user_access_tokens SET session_id = ${sessionId}
        WHERE id = ${id} AND session_id IS NOT DISTINCT FROM ${previous} RETURNING id`).pipe(Effect.map((rows) => rows.length > 0)),
    setActive: (id: string, active: boolean) =>
      db.execute(sql<AccessTokenRow>`
        UPDATE user_access_tokens t SET is_active = ${active}, session_id = NULL
        FROM user_access_tokens old WHERE t.id = ${id} AND old.id = t.id
        RETURNING t.id, t.user_id, t.description, t.is_active, old.session_id, t.create_at, t.expires_at`).pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]))
      ),
    delete: (id: string) =>
      db.execute(sql<AccessTokenRow>`DELETE FROM user_access_tokens WHERE id = ${id} RETURNING *`).pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]))
      ),
    /** A user's tokens (a bot being disabled, a user deactivated): their sessions, to revoke. */
    deactivateForUser: (userId: string) =>
      db.execute(sql<{ session_id: string | null }>`
        UPDATE user_access_tokens t SET is_active = false, session_id = NULL
        FROM user_access_tokens old WHERE t.user_id = ${userId} AND old.id = t.id
        RETURNING old.session_id`)
  }
}

export type AccessTokenRepo = ReturnType<typeof makeAccessTokenRepo>

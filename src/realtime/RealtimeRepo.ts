import { Effect, Schema } from "effect"
import type { DbError, DbService } from "../../layers/Db.ts"
import { Int8, rows } from "../../layers/Rows.ts"
import { anyText } from "../../layers/SqlArrays.ts"

/**
 * What the realtime hub reads from the database: memberships (to know whom an event concerns), the sessions of open
 * sockets (to end them with their session) and the per-user connection limit. A plain factory, as the hub's other
 * parts (they are built together in Hub.ts, which holds the Db).
 */
export interface RealtimeRepo {
  /** The channels and (not deleted) teams the user is a member of. */
  readonly memberships: (userId: string) => Effect.Effect<Memberships, DbError>
  readonly channelMembers: (channelId: string) => Effect.Effect<ReadonlyArray<string>, DbError>
  readonly isChannelMember: (userId: string, channelId: string) => Effect.Effect<boolean, DbError>
  /** The expiry of each of these sessions that still exists (milliseconds since the epoch). */
  readonly sessionExpiries: (sessionIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<SessionExpiry>, DbError>
  /**
   * The site's max_simultaneous_connections as an administrator saved it (any JSON value, or null when unset): the
   * caller checks it and falls back to its default.
   */
  readonly maxConnections: Effect.Effect<unknown, DbError>
}

export interface Memberships {
  readonly channels: ReadonlyArray<string>
  readonly teams: ReadonlyArray<string>
}

const SessionExpiry = Schema.Struct({ id: Schema.String, expires_at: Int8 })
export type SessionExpiry = typeof SessionExpiry.Type

const ChannelIds = rows("RealtimeRepo memberships (channels)", Schema.Struct({ channel_id: Schema.String }))
const TeamIds = rows("RealtimeRepo memberships (teams)", Schema.Struct({ team_id: Schema.String }))
const UserIds = rows("RealtimeRepo channelMembers", Schema.Struct({ user_id: Schema.String }))
const Found = rows("RealtimeRepo isChannelMember", Schema.Struct({ n: Schema.Number }))
const SessionExpiries = rows("RealtimeRepo sessionExpiries", SessionExpiry)
const MaxConnections = rows("RealtimeRepo maxConnections", Schema.Struct({ max: Schema.Unknown }))

export const makeRealtimeRepo = (db: DbService): RealtimeRepo => {
  const sql = db.sql
  return {
    memberships: (userId) =>
      Effect.all([
        db.read(sql`SELECT channel_id FROM channel_members WHERE user_id = ${userId}`.pipe(ChannelIds)),
        db.read(sql`SELECT team_id FROM team_members WHERE user_id = ${userId} AND delete_at = 0`.pipe(TeamIds))
      ], { concurrency: 2 }).pipe(Effect.map(([c, t]) => ({ channels: c.map((r) => r.channel_id), teams: t.map((r) => r.team_id) }))),
    channelMembers: (channelId) =>
      db.read(sql`SELECT user_id FROM channel_members WHERE channel_id = ${channelId}`.pipe(UserIds)).pipe(
        Effect.map((found) => found.map((r) => r.user_id))
      ),
    isChannelMember: (userId, channelId) =>
      db.read(sql`SELECT 1 AS n FROM channel_members WHERE channel_id = ${channelId} AND user_id = ${userId}`.pipe(Found)).pipe(
        Effect.map((found) => found.length > 0)
      ),
    // One array (anyText), not an IN list: a list of up to 500 ids was a statement text per length, planned afresh
    // at every run (0.24 ms planning, seen in the load simulation's pg_stat_statements).
    sessionExpiries: (sessionIds) => db.read(sql`SELECT id, expires_at FROM sessions WHERE id = ${anyText(sql, sessionIds)}`.pipe(SessionExpiries)),
    maxConnections: db.read(sql`
      SELECT value->'max_simultaneous_connections' AS max FROM server_config WHERE section = 'site'`.pipe(MaxConnections)).pipe(
      Effect.map((found) => found[0]?.max ?? null)
    )
  }
}

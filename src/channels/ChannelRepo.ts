import { Effect, Option, Schema } from "effect"
import { Db } from "../../layers/Db.ts"
import { CountRow, IdRow, Int8, rows } from "../../layers/Rows.ts"
import { newId } from "../../layers/Crypto.ts"
import { Invalid, NotFound } from "../../schemas/Errors.ts"
import { likePrefix } from "../search/Like.ts"
import { ChannelMemberRow, ChannelRow } from "./ChannelRows.ts"
import * as Membership from "./Membership.ts"
import { anyText } from "../../layers/SqlArrays.ts"

const Channels = rows("ChannelRepo channels", ChannelRow)
const Members = rows("ChannelRepo members", ChannelMemberRow)
const IdUsernames = rows("ChannelRepo activeUsers", Schema.Struct({ id: Schema.String, username: Schema.String }))
const Stats = rows("ChannelRepo stats", Schema.Struct({ members: Int8, guests: Int8, pinned: Int8, files: Schema.NullOr(Int8) }))
const Timezones = rows("ChannelRepo memberTimezones", Schema.Struct({ tz: Schema.NullOr(Schema.String) }))
const Ids = rows("ChannelRepo ids", IdRow)

/** Channels' SQL: channels, a team's channel lists, a user's own channels and memberships (after the Access check). */

export const channelById = (channelId: string) =>
  Effect.gen(function*() {
    const db = yield* Db
    const [row] = yield* db.read(db.sql`SELECT * FROM channels WHERE id = ${channelId}`.pipe(Channels))
    if (row === undefined) return yield* new NotFound({ id: "app.channel.get.existing.app_error", message: "Channel not found." })
    return row
  })

export const membersOf = (channelId: string, userIds: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    if (userIds.length === 0) return [] as ReadonlyArray<ChannelMemberRow>
    const db = yield* Db
    const sql = db.sql
    return yield* db.read(sql`
      SELECT * FROM channel_members WHERE channel_id = ${channelId} AND user_id = ${anyText(sql, userIds)}`.pipe(Members))
  })

export const memberMissing = () =>
  new NotFound({ id: "app.channel.get_member.missing.app_error", message: "No channel member found for that user ID and channel ID." })

const nameTaken = () =>
  new Invalid({ field: "name", id: "store.sql_channel.save_channel.exists.app_error", message: "A channel with that name already exists on the same team." })

export interface NewChannel {
  readonly teamId: string
  readonly type: "O" | "P"
  readonly name: string
  readonly displayName: string
  readonly header: string
  readonly purpose: string
  readonly creatorId: string
}

const channelLimit = () =>
  new Invalid({ id: "store.sql_channel.save_channel.limit.app_error", message: "You've reached the limit of the number of allowed channels for the current team." })

const TEAM_CHANNELS_LOCK = 7_300_180
const Counts = rows("ChannelRepo team channel count", CountRow)

/**
 * Creates a team channel with its creator as admin member; fails when the team has a channel of that name, or already
 * `maxChannels` open and private channels not deleted (Mattermost's TeamSettings.MaxChannelsPerTeam). The count and
 * the insert hold a lock on the team's channel creation, so racing creations cannot pass the limit together.
 */
export const create = (c: NewChannel, now: number, maxChannels: number) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    return yield* db.transaction(Effect.gen(function*() {
      yield* sql`SELECT pg_advisory_xact_lock(${TEAM_CHANNELS_LOCK}, hashtext(${c.teamId}))`
      const [{ count }] = yield* sql`
        SELECT count(*) AS count FROM channels WHERE team_id = ${c.teamId} AND delete_at = 0 AND type IN ('O', 'P')`.pipe(Counts)
      if (count >= maxChannels) return yield* channelLimit()
      const rows = yield* sql`
        INSERT INTO channels (id, create_at, update_at, team_id, type, display_name, name, header, purpose, creator_id)
        VALUES (${newId()}, ${now}, ${now}, ${c.teamId}, ${c.type}, ${c.displayName}, ${c.name},
                ${c.header}, ${c.purpose}, ${c.creatorId})
        ON CONFLICT (team_id, name) DO NOTHING
        RETURNING *`.pipe(Channels)
      if (rows.length === 0) return yield* nameTaken()
      const added = yield* Membership.add(sql, [{ channel: rows[0], userId: c.creatorId, admin: true }], now)
      return { channel: rows[0], added }
    }))
  })

export interface ChannelPatch {
  readonly name?: string | undefined
  readonly displayName?: string | undefined
  readonly header?: string | undefined
  readonly purpose?: string | undefined
}

/** Sets the fields given; a new name must be free in the channel's team. */
export const patch = (channel: Pick<ChannelRow, "id" | "team_id" | "name">, p: ChannelPatch, now: number) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    const rows = yield* db.transaction(Effect.gen(function*() {
      if (p.name !== undefined && p.name !== channel.name) {
        const clash = yield* sql`SELECT 1 FROM channels WHERE team_id = ${channel.team_id} AND name = ${p.name} AND id <> ${channel.id}`
        if (clash.length > 0) return yield* nameTaken()
      }
      return yield* sql`
        UPDATE channels SET
          name = COALESCE(${p.name ?? null}, name),
          display_name = COALESCE(${p.displayName ?? null}, display_name),
          header = COALESCE(${p.header ?? null}, header),
          purpose = COALESCE(${p.purpose ?? null}, purpose),
          update_at = ${now}
        WHERE id = ${channel.id}
        RETURNING *`.pipe(Channels)
    }))
    return rows[0]
  })

export const archive = (channelId: string, now: number) =>
  Effect.flatMap(Db, (db) =>
    Effect.asVoid(db.transaction(db.sql`UPDATE channels SET delete_at = ${now}, update_at = ${now} WHERE id = ${channelId}`)))

export const restore = (channelId: string, now: number) =>
  Effect.gen(function*() {
    const db = yield* Db
    const rows = yield* db.transaction(db.sql`
      UPDATE channels SET delete_at = 0, update_at = ${now} WHERE id = ${channelId} RETURNING *`.pipe(Channels))
    return rows[0]
  })

export const setPrivacy = (channelId: string, privacy: "O" | "P", now: number) =>
  Effect.gen(function*() {
    const db = yield* Db
    const rows = yield* db.transaction(db.sql`
      UPDATE channels SET type = ${privacy}, update_at = ${now} WHERE id = ${channelId} RETURNING *`.pipe(Channels))
    return rows[0]
  })

/** The active users among these ids. */
export const activeUsers = (ids: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    return yield* db.read(sql`
      SELECT id, username FROM users WHERE id = ${anyText(sql, ids)} AND delete_at = 0`.pipe(IdUsernames))
  })

/** Members (less deactivated users), guests, pinned posts and, when asked for, files of a channel. */
export const stats = (channelId: string, withFiles: boolean) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    // Members are counted from the channel's own rows of channel_members (its primary key), less those whose user is
    // deactivated (users_deactivated_idx holds only those, a handful): joining users instead reads every user.
    const [row] = yield* db.read(sql`
      SELECT m.members, m.guests,
             (SELECT count(*) FROM posts WHERE channel_id = ${channelId} AND is_pinned AND delete_at = 0) AS pinned,
             ${withFiles ? sql`(SELECT count(*) FROM file_infos WHERE channel_id = ${channelId} AND delete_at = 0)` : sql`NULL`} AS files
      FROM (SELECT count(*) AS members, count(*) FILTER (WHERE cm.scheme_guest) AS guests
            FROM channel_members cm
            WHERE cm.channel_id = ${channelId}
              AND NOT EXISTS (SELECT 1 FROM users u WHERE u.id = cm.user_id AND u.delete_at <> 0)) m`.pipe(Stats))
    return {
      members: Number(row.members),
      guests: Number(row.guests),
      pinned: Number(row.pinned),
      files: row.files === null ? undefined : Number(row.files)
    }
  })

/** The distinct time zones of the channel's active members. */
export const memberTimezones = (channelId: string) =>
  Effect.gen(function*() {
    const db = yield* Db
    // A primary-key lookup per member (scalar subquery): as a join, the planner hashes the whole users table as soon as
    // the channel has a few hundred members.
    const rows = yield* db.read(db.sql`
      SELECT DISTINCT (
        SELECT CASE WHEN u.timezone->>'useAutomaticTimezone' = 'true' THEN u.timezone->>'automaticTimezone'
                    ELSE u.timezone->>'manualTimezone' END
        FROM users u WHERE u.id = cm.user_id AND u.delete_at = 0) AS tz
      FROM channel_members cm
      WHERE cm.channel_id = ${channelId}`.pipe(Timezones))
    return rows.map((r) => r.tz).filter((tz): tz is string => tz !== null && tz !== "")
  })

/** Which of a team's channels a page lists: live public, archived (public, or private of the user's), live private. */
export type TeamChannelFilter = "public" | "archived" | "private"

export const teamPage = (teamId: string, filter: TeamChannelFilter, userId: string, limit: number, offset: number) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    const where = filter === "public"
      ? sql`c.type = 'O' AND c.delete_at = 0`
      : filter === "private"
      ? sql`c.type = 'P' AND c.delete_at = 0`
      : sql`
        c.delete_at <> 0 AND (c.type = 'O' OR (c.type = 'P' AND EXISTS (
          SELECT 1 FROM channel_members cm WHERE cm.channel_id = c.id AND cm.user_id = ${userId})))`
    return yield* db.read(sql`
      SELECT c.* FROM channels c WHERE c.team_id = ${teamId} AND ${where}
      ORDER BY c.display_name, c.id LIMIT ${limit} OFFSET ${offset}`.pipe(Channels))
  })

/** A team's channel (any state) by name. */
export const byTeamAndName = (teamId: string, name: string) =>
  Effect.gen(function*() {
    const db = yield* Db
    const [row] = yield* db.read(db.sql`SELECT * FROM channels WHERE team_id = ${teamId} AND name = ${name}`.pipe(Channels))
    return Option.fromNullable(row)
  })

/** The id of the team (any state) of that name. */
export const teamIdByName = (teamName: string) =>
  Effect.gen(function*() {
    const db = yield* Db
    const [team] = yield* db.read(db.sql`SELECT id FROM teams WHERE name = ${teamName}`.pipe(Ids))
    return Option.map(Option.fromNullable(team), (t) => t.id)
  })

/** A LIKE pattern matching values that start with the term, the term's wildcards taken literally. */
const prefixPattern = (term: string) => `${term.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`

const matches = (sql: Db["Type"]["sql"], term: string) =>
  sql`(lower(c.name) LIKE ${prefixPattern(term)} OR lower(c.display_name) LIKE ${prefixPattern(term)})`

/** A team's live channels matching the term that the user could open: public ones and private ones they belong to. */
export const autocomplete = (teamId: string, userId: string, term: string, limit: number) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    return yield* db.read(sql`
      SELECT c.* FROM channels c
      WHERE c.team_id = ${teamId} AND c.delete_at = 0 AND ${matches(sql, term)}
        AND (c.type = 'O' OR EXISTS (SELECT 1 FROM channel_members cm WHERE cm.channel_id = c.id AND cm.user_id = ${userId}))
      ORDER BY c.display_name, c.id LIMIT ${limit}`.pipe(Channels))
  })

/** The user's own channels of the team matching the term. */
export const memberChannelsMatching = (teamId: string, userId: string, term: string, limit: number) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    return yield* db.read(sql`
      SELECT c.* FROM channel_members cm JOIN channels c ON c.id = cm.channel_id
      WHERE cm.user_id = ${userId} AND c.team_id = ${teamId} AND ${matches(sql, term)}
      ORDER BY c.display_name, c.id LIMIT ${limit}`.pipe(Channels))
  })

/** A team's public channels (live or archived) matching the term. */
export const searchPublic = (teamId: string, term: string, archived: boolean, limit: number) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    return yield* db.read(sql`
      SELECT c.* FROM channels c
      WHERE c.team_id = ${teamId} AND c.type = 'O' AND ${archived ? sql`c.delete_at <> 0` : sql`c.delete_at = 0`}
        AND ${matches(sql, term)}
      ORDER BY c.display_name, c.id LIMIT ${limit}`.pipe(Channels))
  })

/** Archived channels too, when asked, if archived at or after `lastDeleteAt`. */
export interface Archived {
  readonly include: boolean
  readonly since: number
}

/** The user's channels of one team and their DMs and GMs (team_id ""), or of every team when `teamId` is undefined. */
export const ofUser = (userId: string, teamId: string | undefined, archived: Archived) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    return yield* db.read(sql`
      SELECT c.* FROM channel_members cm JOIN channels c ON c.id = cm.channel_id
      WHERE cm.user_id = ${userId} ${teamId === undefined ? sql`` : sql`AND (c.team_id = ${teamId} OR c.team_id = '')`}
        AND (c.delete_at = 0 OR (${archived.include} AND c.delete_at >= ${archived.since}))
      ORDER BY c.display_name, c.id`.pipe(Channels))
  })

/** The user's memberships of one team's channels and of their DMs and GMs. */
export const membershipsInTeam = (userId: string, teamId: string) =>
  Effect.gen(function*() {
    const db = yield* Db
    return yield* db.read(db.sql`
      SELECT cm.* FROM channel_members cm JOIN channels c ON c.id = cm.channel_id
      WHERE cm.user_id = ${userId} AND (c.team_id = ${teamId} OR c.team_id = '')
      ORDER BY cm.channel_id`.pipe(Members))
  })

/** A page of the user's memberships, or all of them when `page` is undefined. */
export const membershipsOfUser = (userId: string, page: { readonly limit: number; readonly offset: number } | undefined) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    return yield* db.read(sql`
      SELECT * FROM channel_members WHERE user_id = ${userId} ORDER BY channel_id
      ${page === undefined ? sql`` : sql`LIMIT ${page.limit} OFFSET ${page.offset}`}`.pipe(Members))
  })

/** The user's live group messages with a member matching every word (a prefix of a name, case-insensitive). */
export const searchGroups = (userId: string, words: ReadonlyArray<string>, limit: number) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    const matchesWord = words.map((word) => sql`EXISTS (
      SELECT 1 FROM channel_members m JOIN users u ON u.id = m.user_id
      WHERE m.channel_id = c.id AND (u.username ILIKE ${likePrefix(word)} OR u.first_name ILIKE ${likePrefix(word)}
        OR u.last_name ILIKE ${likePrefix(word)} OR u.nickname ILIKE ${likePrefix(word)}))`)
    return yield* db.read(sql`
      SELECT c.* FROM channel_members mine JOIN channels c ON c.id = mine.channel_id
      WHERE mine.user_id = ${userId} AND c.type = 'G' AND c.delete_at = 0 AND ${sql.and(matchesWord)}
      ORDER BY c.display_name, c.id LIMIT ${limit}`.pipe(Channels))
  })

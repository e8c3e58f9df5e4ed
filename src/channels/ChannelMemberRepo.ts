import type { SqlClient, Statement } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { Db } from "../../layers/Db.ts"
import { Int8Text, rows } from "../../layers/Rows.ts"
import { ChannelMemberRow as MemberRow } from "./ChannelRows.ts"
import type { ChannelMemberRow } from "./ChannelWire.ts"
import * as Membership from "./Membership.ts"
import { anyText } from "../../layers/SqlArrays.ts"

const Members = rows("ChannelMemberRepo members", MemberRow)
const UserIds = rows("ChannelMemberRepo user ids", Schema.Struct({ user_id: Schema.String }))
const ViewedAt = rows("ChannelMemberRepo markViewed", Schema.Struct({ channel_id: Schema.String, last_viewed_at: Int8Text }))
const MembersWithTotals = rows(
  "ChannelMemberRepo withChannelTotals",
  Schema.Struct({ ...MemberRow.fields, team_id: Schema.String, total_msg_count: Int8Text, total_msg_count_root: Int8Text })
)

/** Channel memberships' SQL. `ChannelRepo.membersOf` reads members by id. */

export const listPage = (channelId: string, limit: number, offset: number) =>
  Effect.gen(function*() {
    const db = yield* Db
    return yield* db.read(db.sql`
      SELECT * FROM channel_members WHERE channel_id = ${channelId}
      ORDER BY user_id LIMIT ${limit} OFFSET ${offset}`.pipe(Members))
  })

/** How many of these users are active live members of the team. */
export const countActiveTeamMembers = (teamId: string, userIds: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    const rows = yield* db.read(sql`
      SELECT tm.user_id FROM team_members tm JOIN users u ON u.id = tm.user_id
      WHERE tm.team_id = ${teamId} AND tm.delete_at = 0 AND u.delete_at = 0 AND tm.user_id = ${anyText(sql, userIds)}`.pipe(UserIds))
    return rows.length
  })

/** Adds the users as plain members (Membership.add) in one transaction; returns who was added. */
export const add = (channel: Membership.ChannelTarget, userIds: ReadonlyArray<string>, now: number) =>
  Effect.flatMap(Db, (db) =>
    db.transaction(Membership.add(db.sql, userIds.map((userId) => ({ channel, userId, admin: false })), now)))

/** Removes the user from the channel; false when they were not a member. */
export const remove = (channelId: string, userId: string) =>
  Effect.flatMap(Db, (db) =>
    Effect.map(db.transaction(Membership.remove(db.sql, userId, [channelId])), (removed) => removed.length > 0))

/** Merges settings into the member's notify props; false when there is no such member. */
export const mergeNotifyProps = (channelId: string, userId: string, settings: Readonly<Record<string, string>>, now: number) =>
  Effect.gen(function*() {
    const db = yield* Db
    const updated = yield* db.transaction(db.sql`
      UPDATE channel_members SET notify_props = notify_props || ${JSON.stringify(settings)}::jsonb, last_update_at = ${now}
      WHERE channel_id = ${channelId} AND user_id = ${userId} RETURNING user_id`)
    return updated.length > 0
  })

/** Makes the member a channel admin or a plain member; false when there is no such member. */
export const setSchemeAdmin = (channelId: string, userId: string, admin: boolean, now: number) =>
  Effect.gen(function*() {
    const db = yield* Db
    const updated = yield* db.transaction(db.sql`
      UPDATE channel_members SET scheme_admin = ${admin}, scheme_user = true, roles = '', last_update_at = ${now}
      WHERE channel_id = ${channelId} AND user_id = ${userId} RETURNING user_id`)
    return updated.length > 0
  })

/** What marking a membership `cm` of channel `c` read at `now` (an SQL expression) sets. */
const readAt = (sql: SqlClient.SqlClient, now: Statement.Fragment) => sql`
  last_viewed_at = GREATEST(${now}, c.last_post_at), msg_count = c.total_msg_count, msg_count_root = c.total_msg_count_root,
  mention_count = 0, mention_count_root = 0, urgent_mention_count = 0, last_update_at = ${now}`

/** A membership `cm` of channel `c` not read already: rewriting one that is read cost a write and its commit per switch. */
const notRead = (sql: SqlClient.SqlClient) => sql`(cm.last_viewed_at < c.last_post_at OR cm.msg_count <> c.total_msg_count
  OR cm.msg_count_root <> c.total_msg_count_root OR cm.mention_count <> 0 OR cm.mention_count_root <> 0 OR cm.urgent_mention_count <> 0)`

/**
 * Marks the user's memberships of these channels read at `now`, rewriting only those not read already; returns each
 * membership's last_viewed_at.
 */
export const markViewed = (userId: string, channelIds: ReadonlyArray<string>, now: number) =>
  Effect.gen(function*() {
    if (channelIds.length === 0) return []
    const db = yield* Db
    const sql = db.sql
    // One statement (atomic on its own); the outer SELECT sees the rows as they were before the UPDATE, which for the
    // rows it did not change is as they are.
    return yield* db.execute(sql`
      WITH changed AS (
        UPDATE channel_members cm SET ${readAt(sql, sql`${now}`)}
        FROM channels c
        WHERE c.id = cm.channel_id AND cm.user_id = ${userId} AND cm.channel_id = ${anyText(sql, channelIds)} AND ${notRead(sql)}
        RETURNING cm.channel_id, cm.last_viewed_at
      )
      SELECT channel_id, last_viewed_at FROM changed
      UNION ALL
      SELECT channel_id, last_viewed_at FROM channel_members
      WHERE user_id = ${userId} AND channel_id = ${anyText(sql, channelIds)} AND channel_id NOT IN (SELECT channel_id FROM changed)`.pipe(ViewedAt))
  })

const ViewedAtOf = rows("ChannelMemberRepo markViewedTogether", Schema.Struct({ user_id: Schema.String, channel_id: Schema.String, last_viewed_at: Int8Text }))

/** One user's view of one channel at `now`, for `markViewedTogether`. */
export interface ViewOf {
  readonly userId: string
  readonly channelId: string
  readonly now: number
}

/**
 * `markViewed` for several users' views in one statement (src/channels/ChannelViews.ts): each membership named is
 * marked read at its own `now` if it was not read already, and every named membership's last_viewed_at is returned
 * with its user and channel. The caller names each channel at most once, so the statement locks at most one row
 * per channel: the frequent writers of memberships (a post's mentions, a batch of posts) lock rows of one channel, and
 * with one row of theirs each, a waiting cycle through this statement cannot form. A rarer writer of one user's rows
 * in several channels (leaving a team) can cross it as it could cross a single view of two channels; PostgreSQL then
 * fails one of them (40P01), and ChannelViews.ts runs this statement again. The arrays are sub-selects for a generic
 * plan (as in RootPostBatch.ts); every step is by key.
 */
export const markViewedTogether = (views: ReadonlyArray<ViewOf>) =>
  Effect.gen(function*() {
    if (views.length === 0) return []
    const db = yield* Db
    const sql = db.sql
    return yield* db.execute(sql`
      WITH input AS (
        SELECT * FROM unnest((SELECT ${views.map((v) => v.userId)}::text[]), (SELECT ${views.map((v) => v.channelId)}::text[]),
                             (SELECT ${views.map((v) => v.now)}::int8[])) AS i(user_id, channel_id, now)
      ), changed AS (
        UPDATE channel_members cm SET ${readAt(sql, sql.literal("i.now"))}
        FROM input i JOIN channels c ON c.id = i.channel_id
        WHERE cm.channel_id = i.channel_id AND cm.user_id = i.user_id AND ${notRead(sql)}
        RETURNING cm.user_id, cm.channel_id, cm.last_viewed_at
      )
      SELECT user_id, channel_id, last_viewed_at FROM changed
      UNION ALL
      SELECT cm.user_id, cm.channel_id, cm.last_viewed_at
      FROM input i JOIN channel_members cm ON cm.channel_id = i.channel_id AND cm.user_id = i.user_id
      WHERE NOT EXISTS (SELECT 1 FROM changed ch WHERE ch.channel_id = i.channel_id AND ch.user_id = i.user_id)`.pipe(ViewedAtOf))
  })

export type MemberWithTotals = ChannelMemberRow & { team_id: string; total_msg_count: string; total_msg_count_root: string }

/** The membership with its channel's team and message totals. */
export const withChannelTotals = (channelId: string, userId: string) =>
  Effect.gen(function*() {
    const db = yield* Db
    const [row] = yield* db.read(db.sql`
      SELECT cm.*, c.team_id, c.total_msg_count, c.total_msg_count_root
      FROM channel_members cm JOIN channels c ON c.id = cm.channel_id
      WHERE cm.channel_id = ${channelId} AND cm.user_id = ${userId}`.pipe(MembersWithTotals))
    return Option.fromNullable(row)
  })

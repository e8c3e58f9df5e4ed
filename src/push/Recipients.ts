import { Effect, Schema } from "effect"
import type { DbService } from "../../layers/Db.ts"
import { Int8, Int8Text, rows, StringMap } from "../../layers/Rows.ts"
import type { Candidate } from "./Decide.ts"
import { anyText } from "../../layers/SqlArrays.ts"

/**
 * The reads behind a push decision, each one query whatever the channel's size.
 */
export interface ChannelInfo {
  readonly id: string
  readonly type: string
  readonly team_id: string
  readonly display_name: string
  readonly name: string
  readonly delete_at: number
}

export interface MemberCandidate extends Candidate {
  readonly userId: string
}

const Channels = rows("Recipients channel", Schema.Struct({
  id: Schema.String,
  type: Schema.String,
  team_id: Schema.String,
  display_name: Schema.String,
  name: Schema.String,
  delete_at: Int8Text
}))
const Usernames = rows("Recipients username", Schema.Struct({ username: Schema.String }))
const Members = rows("Recipients members", Schema.Struct({
  user_id: Schema.String,
  username: Schema.String,
  user_props: Schema.NullOr(StringMap),
  channel_props: Schema.NullOr(StringMap),
  status: Schema.String,
  follows_thread: Schema.Boolean
}))
const Mentions = rows("Recipients mentions", Schema.Struct({ user_id: Schema.String, mentions: Int8 }))

export const makeRecipients = (db: DbService) => {
  const sql = db.sql

  const channel = (channelId: string) =>
    Effect.map(
      db.read(sql`
        SELECT id, type, team_id, display_name, name, delete_at FROM channels WHERE id = ${channelId}`.pipe(Channels)),
      (rows) => rows.length === 0 ? undefined : { ...rows[0], delete_at: Number(rows[0].delete_at) } as ChannelInfo
    )

  const userName = (userId: string) =>
    Effect.map(db.read(sql`SELECT username FROM users WHERE id = ${userId}`.pipe(Usernames)), (rows) => rows[0]?.username)

  /** The channel's other active human members with their settings, status and whether they follow the thread. */
  const members = (channelId: string, exceptUserId: string, rootId: string) =>
    Effect.map(
      db.read(sql`
        SELECT u.id AS user_id, u.username, u.notify_props AS user_props, cm.notify_props AS channel_props,
               COALESCE(s.status, 'offline') AS status, COALESCE(tm.following, false) AS follows_thread
        FROM channel_members cm
        JOIN users u ON u.id = cm.user_id AND u.delete_at = 0 AND NOT u.is_bot
        LEFT JOIN statuses s ON s.user_id = cm.user_id
        LEFT JOIN thread_memberships tm ON tm.post_id = ${rootId} AND tm.user_id = cm.user_id
        WHERE cm.channel_id = ${channelId} AND cm.user_id <> ${exceptUserId}`.pipe(Members)),
      (rows) =>
        rows.map((row): MemberCandidate => ({
          userId: row.user_id,
          username: row.username,
          userProps: row.user_props ?? {},
          channelProps: row.channel_props ?? {},
          status: row.status,
          followsThread: row.follows_thread
        }))
    )

  /** Each user's badge: mentions across the channels they belong to (DMs count every message as one). */
  const badges = (userIds: ReadonlyArray<string>) =>
    userIds.length === 0
      ? Effect.succeed(new Map<string, number>())
      : Effect.map(
        db.read(sql`
          SELECT cm.user_id, COALESCE(SUM(cm.mention_count), 0) AS mentions
          FROM channel_members cm JOIN channels c ON c.id = cm.channel_id AND c.delete_at = 0
          WHERE cm.user_id = ${anyText(sql, userIds)}
          GROUP BY cm.user_id`.pipe(Mentions)),
        (rows) => new Map(rows.map((r) => [r.user_id, Number(r.mentions)]))
      )

  return { channel, userName, members, badges }
}

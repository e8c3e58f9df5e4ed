import { Effect, Option, Schema } from "effect"
import { Db } from "../../layers/Db.ts"
import { Int8Text, rows } from "../../layers/Rows.ts"
import { mentionPattern } from "../threads/ThreadRepo.ts"

/**
 * Marking a channel unread from a post on: the membership moves back so that the post and every later one are unread.
 * Read counts become the channel totals minus the posts from there on; mentions are recounted over those posts (every
 * post of another member in a DM or GM; elsewhere a post of another member naming the user, @channel, @all or @here).
 */
/** The counts stay the driver's text: SetUnreadRoutes converts them for the wire. */
export const UnreadRow = Schema.Struct({
  team_id: Schema.String,
  channel_id: Schema.String,
  msg_count: Int8Text,
  msg_count_root: Int8Text,
  mention_count: Int8Text,
  mention_count_root: Int8Text,
  urgent_mention_count: Int8Text,
  last_viewed_at: Int8Text
})
export type UnreadRow = typeof UnreadRow.Type
const Unreads = rows("UnreadRepo unreadFrom", UnreadRow)
const Usernames = rows("UnreadRepo username", Schema.Struct({ username: Schema.String }))

/** None when the user is not a member of the channel. */
export const unreadFrom = (userId: string, channel: { readonly id: string; readonly type: string }, postId: string, now: number) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    const [user] = yield* db.read(sql`SELECT username FROM users WHERE id = ${userId}`).pipe(Usernames)
    const direct = channel.type === "D" || channel.type === "G"
    const mentions = direct ? sql`true` : sql`p.message ~* ${mentionPattern(user?.username ?? "")}`
    const rows = yield* db.execute(sql`
      WITH target AS (SELECT create_at FROM posts WHERE id = ${postId}),
      later AS (
        SELECT p.root_id, p.user_id, p.message FROM posts p, target
        WHERE p.channel_id = ${channel.id} AND p.create_at >= target.create_at AND p.delete_at = 0),
      counts AS (
        SELECT count(*) AS unread, count(*) FILTER (WHERE root_id = '') AS unread_root,
               count(*) FILTER (WHERE user_id <> ${userId} AND ${mentions}) AS mentions,
               count(*) FILTER (WHERE root_id = '' AND user_id <> ${userId} AND ${mentions}) AS mentions_root
        FROM later p)
      UPDATE channel_members cm SET
        last_viewed_at = (SELECT create_at FROM target) - 1,
        msg_count = GREATEST(c.total_msg_count - counts.unread, 0),
        msg_count_root = GREATEST(c.total_msg_count_root - counts.unread_root, 0),
        mention_count = counts.mentions,
        mention_count_root = counts.mentions_root,
        urgent_mention_count = 0,
        last_update_at = ${now}
      FROM channels c, counts
      WHERE c.id = cm.channel_id AND cm.channel_id = ${channel.id} AND cm.user_id = ${userId}
      RETURNING c.team_id, cm.channel_id, cm.msg_count, cm.msg_count_root, cm.mention_count, cm.mention_count_root,
                cm.urgent_mention_count, cm.last_viewed_at`).pipe(Unreads)
    return Option.fromNullable(rows[0])
  })

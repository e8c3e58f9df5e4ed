import { HttpRouter } from "@effect/platform"
import { Clock, Effect, Schema } from "effect"
import { Db } from "../../layers/Db.ts"
import { Access } from "../access/Access.ts"
import { requireCaller } from "../auth/Authenticate.ts"
import { EventBus } from "../events/EventBus.ts"
import { forbidden } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { json } from "../http/Respond.ts"
import { mentionPattern } from "../threads/ThreadRepo.ts"
import { OwnUserParam, ownUser } from "./OwnUser.ts"

/**
 * POST /users/{user_id}/posts/{post_id}/set_unread: the caller's membership moves back so that the post and every
 * later one are unread. Read counts become the channel totals minus the posts from there on; mentions are recounted
 * over those posts (every post of another member in a DM or GM; elsewhere a post of another member naming the user,
 * @channel, @all or @here). Answers the ChannelUnreadAt and publishes post_unread to the user.
 */
interface UnreadRow {
  readonly team_id: string
  readonly channel_id: string
  readonly msg_count: string
  readonly msg_count_root: string
  readonly mention_count: string
  readonly mention_count_root: string
  readonly urgent_mention_count: string
  readonly last_viewed_at: string
}

const UserPostParams = Schema.Struct({ user_id: OwnUserParam, post_id: Decode.Id })

const setUnread = Effect.gen(function*() {
  const caller = yield* requireCaller
  const params = yield* Decode.params(UserPostParams)
  const user_id = yield* ownUser(caller, params.user_id)
  const post_id = params.post_id
  const access = yield* Access
  const { channel } = yield* access.post(caller, post_id, "read")
  const db = yield* Db
  const sql = db.sql
  const now = yield* Clock.currentTimeMillis
  const [user] = yield* db.read(sql<{ username: string }>`SELECT username FROM users WHERE id = ${user_id}`)
  const direct = channel.type === "D" || channel.type === "G"
  const mentions = direct ? sql`true` : sql`p.message ~* ${mentionPattern(user?.username ?? "")}`
  const rows = yield* db.execute(sql<UnreadRow>`
    WITH target AS (SELECT create_at FROM posts WHERE id = ${post_id}),
    later AS (
      SELECT p.root_id, p.user_id, p.message FROM posts p, target
      WHERE p.channel_id = ${channel.id} AND p.create_at >= target.create_at AND p.delete_at = 0),
    counts AS (
      SELECT count(*) AS unread, count(*) FILTER (WHERE root_id = '') AS unread_root,
             count(*) FILTER (WHERE user_id <> ${user_id} AND ${mentions}) AS mentions,
             count(*) FILTER (WHERE root_id = '' AND user_id <> ${user_id} AND ${mentions}) AS mentions_root
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
    WHERE c.id = cm.channel_id AND cm.channel_id = ${channel.id} AND cm.user_id = ${user_id}
    RETURNING c.team_id, cm.channel_id, cm.msg_count, cm.msg_count_root, cm.mention_count, cm.mention_count_root,
              cm.urgent_mention_count, cm.last_viewed_at`)
  const row = rows[0]
  if (row === undefined) return yield* forbidden("api.context.permissions.app_error", "You are not a member of this channel.")
  const unread = {
    team_id: row.team_id,
    channel_id: row.channel_id,
    msg_count: Number(row.msg_count),
    mention_count: Number(row.mention_count),
    msg_count_root: Number(row.msg_count_root),
    mention_count_root: Number(row.mention_count_root),
    urgent_mention_count: Number(row.urgent_mention_count),
    last_viewed_at: Number(row.last_viewed_at),
    post_id
  }
  const bus = yield* EventBus
  yield* bus.publish("post_unread", unread, { user_id, channel_id: channel.id })
  return json(unread)
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.post("/api/v4/users/:user_id/posts/:post_id/set_unread", setUnread)
)

import { HttpRouter } from "@effect/platform"
import { Clock, Effect, Option, Schema } from "effect"
import { DomainEvent } from "../../schemas/Events.ts"
import { Access } from "../access/Access.ts"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import { EventBus } from "../events/EventBus.ts"
import { forbidden } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { respondWith } from "../http/Respond.ts"
import { ChannelUnreadAt } from "../../schemas/wire/ChannelMember.ts"
import { OwnUserParam, ownUser } from "./OwnUser.ts"
import * as UnreadRepo from "./UnreadRepo.ts"

/**
 * POST /users/{user_id}/posts/{post_id}/set_unread: the caller's membership moves back so that the post and every
 * later one are unread (UnreadRepo). Answers the ChannelUnreadAt and publishes post_unread to the user.
 */
const UserPostParams = Schema.Struct({ user_id: OwnUserParam, post_id: Decode.Id })

const setUnread = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const params = yield* Decode.params(UserPostParams)
  const user_id = yield* ownUser(params.user_id)
  const post_id = params.post_id
  const access = yield* Access
  const { channel } = yield* access.post(caller, post_id, "read")
  const found = yield* UnreadRepo.unreadFrom(user_id, channel, post_id, yield* Clock.currentTimeMillis)
  if (Option.isNone(found)) return yield* forbidden("api.context.permissions.app_error", "You are not a member of this channel.")
  const row = found.value
  const unread: ChannelUnreadAt = {
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
  yield* bus.publish(DomainEvent.PostUnread({ unread }), { user_id, channel_id: channel.id })
  return yield* respondWith(ChannelUnreadAt, unread)
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.post("/api/v4/users/:user_id/posts/:post_id/set_unread", authed(setUnread))
)

import { HttpRouter } from "@effect/platform"
import { Clock, Effect, Option, Schema } from "effect"
import { DomainEvent } from "../../schemas/Events.ts"
import { Access } from "../access/Access.ts"
import type { Caller } from "../auth/Authenticate.ts"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import { EventBus } from "../events/EventBus.ts"
import { badRequest, forbidden } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { ok, respondWith, respondWithAll } from "../http/Respond.ts"
import { PostParams } from "../../schemas/Params.ts"
import { Reaction, ReactionsByPost } from "../../schemas/wire/Reaction.ts"
import { OwnUserParam } from "../posts/OwnUser.ts"
import { PostRepo } from "../posts/PostRepo.ts"
import * as ReactionRepo from "./ReactionRepo.ts"
import { ListOf, MaxItems } from "../../schemas/Limits.ts"

/**
 * Reactions: add, remove, list for a post and for many posts. Adding or removing one keeps posts.has_reactions and
 * moves the post's update_at, so clients syncing with `since` see it.
 *
 * Emoji names: a custom emoji of the emoji table or a system emoji. The server ships no list of system emoji names,
 * so any name of Mattermost's emoji-name alphabet is accepted as a system emoji.
 */
const EMOJI_NAME = /^[a-z0-9_+\-]{1,64}$/

const toWire = (row: ReactionRepo.ReactionRow): Reaction => ({
  user_id: row.user_id,
  post_id: row.post_id,
  emoji_name: row.emoji_name,
  create_at: Number(row.create_at),
  update_at: Number(row.update_at),
  delete_at: Number(row.delete_at),
  remote_id: "",
  channel_id: row.channel_id
})

const ReactionBody = Schema.Struct({
  user_id: Decode.Id,
  post_id: Decode.Id,
  emoji_name: Schema.String
})
const RemoveParams = Schema.Struct({ user_id: OwnUserParam, post_id: Decode.Id, emoji_name: Schema.String })
const PostIdsBody = ListOf(Decode.Id, MaxItems.reactionPostIds)

const checkEmojiName = (name: string) =>
  EMOJI_NAME.test(name)
    ? Effect.void
    : Effect.fail(badRequest("model.reaction.is_valid.emoji_name.app_error", "Invalid emoji name."))

/** The post must be readable and its channel not archived; only the reacting user may act for themselves. */
const reactable = (caller: Caller, userId: string, postId: string) =>
  Effect.gen(function*() {
    if (userId !== caller.userId) {
      return yield* forbidden("api.reaction.save_reaction.user_id.app_error", "You can not save reaction for the other user.")
    }
    const access = yield* Access
    const { channel } = yield* access.post(caller, postId, "read")
    if (channel.delete_at > 0) {
      return yield* forbidden("api.reaction.save.archived_channel.app_error", "You cannot react in an archived channel.")
    }
    return channel
  })

const add = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const input = yield* Decode.body(ReactionBody)
  yield* checkEmojiName(input.emoji_name)
  const channel = yield* reactable(caller, input.user_id, input.post_id)
  const now = yield* Clock.currentTimeMillis
  const row = yield* ReactionRepo.add({ postId: input.post_id, userId: input.user_id, emojiName: input.emoji_name }, channel.id, now)
  const reaction = toWire(row)
  const bus = yield* EventBus
  yield* bus.publish(DomainEvent.ReactionAdded({ reaction }), { channel_id: channel.id })
  return yield* respondWith(Reaction, reaction, 201)
})

const remove = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const raw = yield* Decode.params(RemoveParams)
  const params = { ...raw, user_id: raw.user_id === "me" ? caller.userId : raw.user_id }
  yield* checkEmojiName(params.emoji_name)
  const channel = yield* reactable(caller, params.user_id, params.post_id)
  const now = yield* Clock.currentTimeMillis
  const removed = yield* ReactionRepo.remove({ postId: params.post_id, userId: params.user_id, emojiName: params.emoji_name }, now)
  if (Option.isSome(removed)) {
    const bus = yield* EventBus
    yield* bus.publish(DomainEvent.ReactionRemoved({ reaction: { ...toWire(removed.value), delete_at: now } }), { channel_id: channel.id })
  }
  return ok()
})

const reactionsOf = (postIds: ReadonlyArray<string>) => Effect.map(ReactionRepo.ofPosts(postIds), (rows) => rows.map(toWire))

const list = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { post_id } = yield* Decode.params(PostParams)
  const access = yield* Access
  yield* access.post(caller, post_id, "read")
  return yield* respondWithAll(Reaction, yield* reactionsOf([post_id]))
})


/** Reactions of many posts: every readable asked post is a key, with [] when it has none. */
const forIds = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const ids = yield* Decode.body(PostIdsBody)
  if (ids.length === 0) {
    return yield* badRequest("api.context.invalid_param.app_error", `Invalid or missing post_ids parameter in request body (1 to ${MaxItems.reactionPostIds}).`)
  }
  const posts = yield* PostRepo
  const readable = yield* posts.readable(ids, caller)
  const reactions = readable.length === 0 ? [] : yield* reactionsOf(readable)
  const byPost: Record<string, Array<Reaction>> = Object.fromEntries(readable.map((id) => [id, []]))
  for (const r of reactions) byPost[r.post_id]?.push(r)
  return yield* respondWith(ReactionsByPost, byPost)
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.post("/api/v4/reactions", authed(add)),
  HttpRouter.del("/api/v4/users/:user_id/posts/:post_id/reactions/:emoji_name", authed(remove)),
  HttpRouter.get("/api/v4/posts/:post_id/reactions", authed(list)),
  HttpRouter.post("/api/v4/posts/ids/reactions", authed(forIds))
)

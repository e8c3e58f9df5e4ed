import { HttpRouter } from "@effect/platform"
import { Clock, Effect, Schema } from "effect"
import { DomainEvent } from "../../schemas/Events.ts"
import { Post } from "../../schemas/wire/Post.ts"
import { Access } from "../access/Access.ts"
import { need } from "../access/Permission.ts"
import type { Caller } from "../auth/Authenticate.ts"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import { EventBus } from "../events/EventBus.ts"
import { badRequest, forbidden, notFound } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { ok, respondWith, respondWithAll } from "../http/Respond.ts"
import { createPost, CreatePostBody, invalidMessageLength } from "./CreatePost.ts"
import { MESSAGE_MAX_RUNES, runeLength } from "./MessageText.ts"
import { PostRepo } from "./PostRepo.ts"
import { deletePost, editPost, pinPost, type PostChanges } from "./PostWriteRepo.ts"
import { ListOf, MaxItems } from "../../schemas/Limits.ts"

/** Single posts: create, read, edit, patch, delete, pin, and posts by ids. */

const PostParams = Schema.Struct({ post_id: Decode.Id })
export const CreateQuery = Schema.Struct({ set_online: Schema.optionalWith(Schema.String, { default: () => "" }) })

const hydrateOne = (caller: Caller, id: string) =>
  Effect.gen(function*() {
    const posts = yield* PostRepo
    const [post] = yield* posts.hydrate([id], { viewer: caller, collapsedThreads: false, extended: false })
    if (post === undefined) return yield* notFound("app.post.get.app_error", "Post not found.")
    return post
  })

const create = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const query = yield* Decode.query(CreateQuery)
  const input = yield* Decode.body(CreatePostBody)
  const post = yield* createPost(caller, input, query.set_online !== "false")
  return yield* respondWith(Post, post, 201)
})

const get = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { post_id } = yield* Decode.params(PostParams)
  const access = yield* Access
  yield* access.post(caller, post_id, "read")
  return yield* respondWith(Post, yield* hydrateOne(caller, post_id))
})

/**
 * Applies an edit: edit_post in the channel for one's own post (members by default), edit_others_posts for someone
 * else's (system admins by default); a changed message sets edit_at; publishes post_edited.
 */
const applyEdit = (caller: Caller, postId: string, changes: PostChanges) =>
  Effect.gen(function*() {
    if (changes.message !== undefined && runeLength(changes.message) > MESSAGE_MAX_RUNES) return yield* invalidMessageLength()
    const access = yield* Access
    const granted = yield* access.post(caller, postId, "write")
    const { channel, postUserId } = granted
    yield* need(granted, postUserId === caller.userId ? "edit_post" : "edit_others_posts")
    if (channel.delete_at > 0) {
      return yield* badRequest("api.post.update_post.can_not_update_post_in_deleted.error", "Can not update a post in a deleted channel.")
    }
    yield* editPost(postId, changes, yield* Clock.currentTimeMillis)
    const post = yield* hydrateOne(caller, postId)
    const bus = yield* EventBus
    yield* bus.publish(DomainEvent.PostEdited({ post }), { channel_id: channel.id })
    return post
  })

const UpdateBody = Schema.Struct({
  id: Schema.optional(Schema.String),
  message: Schema.String,
  props: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  is_pinned: Schema.optional(Schema.Boolean)
})

const update = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { post_id } = yield* Decode.params(PostParams)
  const input = yield* Decode.body(UpdateBody)
  if (input.id !== undefined && input.id !== post_id) return yield* badRequest("api.context.invalid_param.app_error", "Invalid or missing id parameter in request body.")
  return yield* respondWith(Post, yield* applyEdit(caller, post_id, { message: input.message, props: input.props, is_pinned: input.is_pinned }))
})

const PatchBody = Schema.Struct({
  message: Schema.optional(Schema.String),
  props: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  is_pinned: Schema.optional(Schema.Boolean)
})

const patch = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { post_id } = yield* Decode.params(PostParams)
  const input = yield* Decode.body(PatchBody)
  return yield* respondWith(Post, yield* applyEdit(caller, post_id, input))
})

/**
 * Soft delete: delete_post in the channel for one's own post (members by default), delete_others_posts for someone
 * else's (team and system admins by default). Deleting a root deletes its replies, as Mattermost does; its files and
 * saved-post preferences go with it.
 */
const remove = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { post_id } = yield* Decode.params(PostParams)
  const access = yield* Access
  const granted = yield* access.post(caller, post_id, "read")
  const { channel, postUserId } = granted
  yield* need(granted, postUserId === caller.userId ? "delete_post" : "delete_others_posts")
  yield* deletePost(post_id, yield* Clock.currentTimeMillis)
  const posts = yield* PostRepo
  const [post] = yield* posts.hydrate([post_id], { viewer: caller, collapsedThreads: false, extended: false })
  const bus = yield* EventBus
  yield* bus.publish(DomainEvent.PostDeleted({ post, deletedBy: postUserId !== caller.userId ? caller.userId : undefined }), { channel_id: channel.id })
  return ok()
})

const setPinned = (pinned: boolean) =>
  Effect.gen(function*() {
    const caller = yield* CurrentCaller
    const { post_id } = yield* Decode.params(PostParams)
    yield* applyPin(caller, post_id, pinned)
    return ok()
  })

/** Pinning is open to every member (not only the author) and leaves edit_at alone. */
const applyPin = (caller: Caller, postId: string, pinned: boolean) =>
  Effect.gen(function*() {
    const access = yield* Access
    const { channel } = yield* access.post(caller, postId, "write")
    if (channel.delete_at > 0) {
      return yield* forbidden("api.post.save_is_pinned_post.archived_channel.app_error", "Can not pin posts in an archived channel.")
    }
    yield* pinPost(postId, pinned, yield* Clock.currentTimeMillis)
    const post = yield* hydrateOne(caller, postId)
    const bus = yield* EventBus
    yield* bus.publish(DomainEvent.PostEdited({ post }), { channel_id: channel.id })
  })

const PostIdsBody = ListOf(Decode.Id, MaxItems.postIds)

/** Posts by ids: those the caller may read, in the asked order; others are left out, as Mattermost does. */
const byIds = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const ids = yield* Decode.body(PostIdsBody)
  if (ids.length === 0) {
    return yield* badRequest("api.context.invalid_param.app_error", `Invalid or missing post_ids parameter in request body (1 to ${MaxItems.postIds}).`)
  }
  const posts = yield* PostRepo
  const readable = new Set(yield* posts.readable(ids, caller))
  const wanted = [...new Set(ids)].filter((id) => readable.has(id))
  return yield* respondWithAll(Post, yield* posts.hydrate(wanted, { viewer: caller, collapsedThreads: false, extended: false }))
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.post("/api/v4/posts", authed(create)),
  HttpRouter.post("/api/v4/posts/ids", authed(byIds)),
  HttpRouter.get("/api/v4/posts/:post_id", authed(get)),
  HttpRouter.put("/api/v4/posts/:post_id", authed(update)),
  HttpRouter.put("/api/v4/posts/:post_id/patch", authed(patch)),
  HttpRouter.del("/api/v4/posts/:post_id", authed(remove)),
  HttpRouter.post("/api/v4/posts/:post_id/pin", authed(setPinned(true))),
  HttpRouter.post("/api/v4/posts/:post_id/unpin", authed(setPinned(false)))
)

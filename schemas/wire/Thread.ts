import { Schema } from "effect"
import { Participant, Post } from "./Post.ts"

/**
 * The UserThread of @mattermost/types (src/threads/ThreadWire.ts): `id` is the root post's id, `post` the hydrated
 * root (mobile reads post.create_at), participants as the root post carries them (ids, or whole users when extended).
 * `delete_at` is Mattermost's model field the types package does not declare.
 */
export const Thread = Schema.Struct({
  id: Schema.String,
  reply_count: Schema.Number,
  last_reply_at: Schema.Number,
  last_viewed_at: Schema.Number,
  participants: Schema.Array(Participant),
  unread_replies: Schema.Number,
  unread_mentions: Schema.Number,
  is_following: Schema.Boolean,
  is_urgent: Schema.Boolean,
  post: Post,
  delete_at: Schema.Number
})
export type Thread = typeof Thread.Type

/** The UserThreadList of @mattermost/types: the totals, and a page of threads (none when only totals were asked). */
export const ThreadList = Schema.Struct({
  total: Schema.Number,
  total_unread_threads: Schema.Number,
  total_unread_mentions: Schema.Number,
  total_unread_urgent_mentions: Schema.Number,
  threads: Schema.Array(Thread)
})
export type ThreadList = typeof ThreadList.Type

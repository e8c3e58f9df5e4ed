import { Schema } from "effect"
import { PostMetadata } from "./PostMetadata.ts"
import { User } from "./User.ts"

/** A thread participant: its id, or the whole user when extended thread data was asked for. */
export const Participant = Schema.Union(User, Schema.Struct({ id: Schema.String }))

/**
 * The Post of @mattermost/types as this server sends it (src/posts/PostWire.ts). `file_ids` only when there are
 * files; `last_reply_at`, `participants` and `is_following` only on root posts of lists asked for with collapsed
 * threads, as Mattermost adds them. `has_reactions` is Mattermost's model field the types package does not declare.
 */
export const Post = Schema.Struct({
  id: Schema.String,
  create_at: Schema.Number,
  update_at: Schema.Number,
  edit_at: Schema.Number,
  delete_at: Schema.Number,
  is_pinned: Schema.Boolean,
  user_id: Schema.String,
  channel_id: Schema.String,
  root_id: Schema.String,
  original_id: Schema.String,
  message: Schema.String,
  type: Schema.String,
  props: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  hashtags: Schema.String,
  pending_post_id: Schema.String,
  reply_count: Schema.Number,
  has_reactions: Schema.Boolean,
  metadata: PostMetadata,
  file_ids: Schema.optionalWith(Schema.Array(Schema.String), { exact: true }),
  last_reply_at: Schema.optionalWith(Schema.Number, { exact: true }),
  participants: Schema.optionalWith(Schema.Array(Participant), { exact: true }),
  is_following: Schema.optionalWith(Schema.Boolean, { exact: true })
})
export type Post = typeof Post.Type

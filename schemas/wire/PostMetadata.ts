import { Schema } from "effect"
import { FileInfo } from "./FileInfo.ts"
import { Reaction } from "./Reaction.ts"

/** A link preview; none are generated yet, so `embeds` is always empty. */
export const PostEmbed = Schema.Struct({
  type: Schema.String,
  url: Schema.String,
  data: Schema.optionalWith(Schema.Unknown, { exact: true })
})

/** An image's dimensions by URL; none are measured yet, so `images` is always empty. */
export const PostImage = Schema.Struct({
  format: Schema.String,
  frame_count: Schema.Number,
  height: Schema.Number,
  width: Schema.Number
})

/** A custom emoji one of the post's reactions uses (Mattermost's Emoji model; the types' `category` is not sent). */
export const PostEmoji = Schema.Struct({
  id: Schema.String,
  create_at: Schema.Number,
  update_at: Schema.Number,
  delete_at: Schema.Number,
  creator_id: Schema.String,
  name: Schema.String
})

/** The PostAcknowledgement of @mattermost/types. */
export const PostAcknowledgement = Schema.Struct({
  user_id: Schema.String,
  post_id: Schema.String,
  acknowledged_at: Schema.Number
})
export type PostAcknowledgement = typeof PostAcknowledgement.Type

/** The PostPriorityMetadata of @mattermost/types (src/posts/PostPriority.ts). */
export const PostPriority = Schema.Struct({
  priority: Schema.String,
  requested_ack: Schema.Boolean,
  persistent_notifications: Schema.Boolean
})

/**
 * The PostMetadata of @mattermost/types, always present on a post: mobile reads reactions and files from it.
 * `priority` only when the post carries one.
 */
export const PostMetadata = Schema.Struct({
  embeds: Schema.Array(PostEmbed),
  emojis: Schema.Array(PostEmoji),
  files: Schema.Array(FileInfo),
  images: Schema.Record({ key: Schema.String, value: PostImage }),
  reactions: Schema.Array(Reaction),
  acknowledgements: Schema.Array(PostAcknowledgement),
  priority: Schema.optionalWith(PostPriority, { exact: true })
})
export type PostMetadata = typeof PostMetadata.Type

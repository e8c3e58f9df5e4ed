import { Schema, Struct } from "effect"
import { Post } from "./Post.ts"

/**
 * One earlier version of `GET /posts/{post_id}/edit_history` (src/posts/PostHistoryRoutes.ts): a hidden (deleted)
 * post whose original_id names the edited post; `file_ids` only when it had files, `metadata` always `{}`.
 */
export const PostEditVersion = Schema.Struct({
  ...Struct.omit(Post.fields, "has_reactions", "metadata", "last_reply_at", "participants", "is_following"),
  metadata: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})
export type PostEditVersion = typeof PostEditVersion.Type

/** The PostInfo of @mattermost/types: `GET /posts/{post_id}/info`, where a permalink leads. */
export const PostInfo = Schema.Struct({
  channel_id: Schema.String,
  channel_type: Schema.String,
  channel_display_name: Schema.String,
  has_joined_channel: Schema.Boolean,
  team_id: Schema.String,
  team_type: Schema.String,
  team_display_name: Schema.String,
  has_joined_team: Schema.Boolean
})
export type PostInfo = typeof PostInfo.Type

import { Schema } from "effect"

/** The Reaction of @mattermost/types with the rest of Mattermost's model (update_at, delete_at, remote_id, channel_id). */
export const Reaction = Schema.Struct({
  user_id: Schema.String,
  post_id: Schema.String,
  emoji_name: Schema.String,
  create_at: Schema.Number,
  update_at: Schema.Number,
  delete_at: Schema.Number,
  remote_id: Schema.String,
  channel_id: Schema.String
})
export type Reaction = typeof Reaction.Type

/** `POST /posts/ids/reactions`: every readable post asked for, with its reactions ([] when it has none). */
export const ReactionsByPost = Schema.Record({ key: Schema.String, value: Schema.Array(Reaction) })
export type ReactionsByPost = typeof ReactionsByPost.Type

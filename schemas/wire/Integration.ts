import { Schema } from "effect"

/**
 * `POST /posts/{post_id}/actions/{action_id}`: the PostActionResponse of @mattermost/types with the integration's
 * `goto_location` ("" when none), as Mattermost's model sends it.
 */
export const PostActionResponse = Schema.Struct({
  status: Schema.String,
  trigger_id: Schema.String,
  goto_location: Schema.String
})
export type PostActionResponse = typeof PostActionResponse.Type

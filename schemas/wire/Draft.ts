import { Schema } from "effect"

/** A draft's or scheduled post's priority, every field present (schemas/PostPriority.ts PriorityJson). */
const Priority = Schema.Struct({
  priority: Schema.String,
  requested_ack: Schema.Boolean,
  persistent_notifications: Schema.Boolean
})

/** What a draft and a scheduled post share (src/drafts/UnsentMessageRow.ts): `metadata` is always `{}`. */
const unsent = {
  create_at: Schema.Number,
  update_at: Schema.Number,
  user_id: Schema.String,
  channel_id: Schema.String,
  root_id: Schema.String,
  message: Schema.String,
  props: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  file_ids: Schema.Array(Schema.String),
  metadata: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  priority: Schema.optionalWith(Priority, { exact: true })
}

/** The Draft of @mattermost/types (`POST /drafts`, `GET /users/{user_id}/teams/{team_id}/drafts`). */
export const Draft = Schema.Struct({ ...unsent, delete_at: Schema.Number })
export type Draft = typeof Draft.Type

/** The ScheduledPost of @mattermost/types (`/posts/schedule`), with its processing state. */
export const ScheduledPost = Schema.Struct({
  ...unsent,
  id: Schema.String,
  scheduled_at: Schema.Number,
  processed_at: Schema.Number,
  error_code: Schema.String
})
export type ScheduledPost = typeof ScheduledPost.Type

/**
 * `GET /posts/scheduled/team/{team_id}`: `{[team_id]: [...]}`, with `directChannels` (the direct and group messages')
 * when asked, as Mattermost answers.
 */
export const ScheduledPostsByTeam = Schema.Record({ key: Schema.String, value: Schema.Array(ScheduledPost) })
export type ScheduledPostsByTeam = typeof ScheduledPostsByTeam.Type

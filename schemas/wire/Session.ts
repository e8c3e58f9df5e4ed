import { Schema } from "effect"

/**
 * The Session of @mattermost/types, as stored in the cache and as `GET /users/{id}/sessions` returns it (token
 * blanked); `expired_notify` is Mattermost's model field the types package does not declare.
 */
export const Session = Schema.Struct({
  id: Schema.String,
  token: Schema.String,
  create_at: Schema.Number,
  expires_at: Schema.Number,
  last_activity_at: Schema.Number,
  user_id: Schema.String,
  device_id: Schema.String,
  roles: Schema.String,
  is_oauth: Schema.Boolean,
  expired_notify: Schema.Boolean,
  props: Schema.Record({ key: Schema.String, value: Schema.String }),
  team_members: Schema.Array(Schema.Unknown),
  local: Schema.Boolean
})
export type Session = typeof Session.Type

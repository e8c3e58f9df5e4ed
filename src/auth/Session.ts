import { Schema } from "effect"

/** A session as stored and as `GET /users/{id}/sessions` returns it (token blanked), see @mattermost/types sessions.d.ts. */
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

export const SessionJson = Schema.parseJson(Session)

export const DAY_MS = 24 * 60 * 60 * 1000
export const SessionLength = {
  web: 30 * DAY_MS,
  mobile: 180 * DAY_MS,
  sso: 30 * DAY_MS
} as const

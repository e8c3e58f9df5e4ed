import { Schema } from "effect"

/** The four statuses Mattermost knows. */
export const StatusValue = Schema.Literal("online", "away", "dnd", "offline")
export type StatusValue = typeof StatusValue.Type

/** The UserStatus of @mattermost/types; `dnd_end_time` is in seconds, unlike every other timestamp. */
export const Status = Schema.Struct({
  user_id: Schema.String,
  status: StatusValue,
  manual: Schema.Boolean,
  last_activity_at: Schema.Number,
  dnd_end_time: Schema.Number
})
export type Status = typeof Status.Type

import { Schema } from "effect"

/** POST /users/{id}/posts/{id}/reminder: when to remind, in seconds since the epoch (Mattermost's PostReminder). */
export const SetReminder = Schema.Struct({
  target_time: Schema.Number.pipe(Schema.int({ message: () => "an integer number of seconds" }), Schema.positive({ message: () => "a time in seconds" }))
})

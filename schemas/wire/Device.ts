import { Schema } from "effect"

/** `POST /users/me/device`: the app's registration as stored, with when it was first and last seen. */
export const DeviceRegistration = Schema.Struct({
  user_id: Schema.String,
  device_id: Schema.String,
  platform: Schema.String,
  create_at: Schema.Number,
  last_seen_at: Schema.Number
})
export type DeviceRegistration = typeof DeviceRegistration.Type

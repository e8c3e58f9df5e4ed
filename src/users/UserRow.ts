import { Schema } from "effect"
import { Int8, StringMap } from "../../layers/Rows.ts"

/** A users row, decoded from what PostgreSQL returns (bigint columns arrive as text and become numbers). */
export const UserRow = Schema.Struct({
  id: Schema.String,
  create_at: Int8,
  update_at: Int8,
  delete_at: Int8,
  username: Schema.String,
  password: Schema.String,
  auth_data: Schema.NullOr(Schema.String),
  auth_service: Schema.String,
  email: Schema.String,
  email_verified: Schema.Boolean,
  nickname: Schema.String,
  first_name: Schema.String,
  last_name: Schema.String,
  position: Schema.String,
  roles: Schema.String,
  locale: Schema.String,
  timezone: StringMap,
  notify_props: StringMap,
  props: StringMap,
  last_password_update: Int8,
  last_picture_update: Int8,
  failed_attempts: Schema.Number,
  mfa_active: Schema.Boolean,
  last_login: Int8,
  is_bot: Schema.Boolean
})
export type UserRow = typeof UserRow.Type

export const DEFAULT_NOTIFY_PROPS: Record<string, string> = {
  email: "true",
  push: "mention",
  desktop: "mention",
  desktop_sound: "true",
  mention_keys: "",
  channel: "true",
  first_name: "false",
  push_status: "away",
  comments: "never",
  push_threads: "all",
  desktop_threads: "all",
  email_threads: "all",
  auto_responder_active: "false",
  auto_responder_message: ""
}

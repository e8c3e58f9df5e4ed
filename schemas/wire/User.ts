import { Schema } from "effect"

/**
 * The UserProfile of @mattermost/types as this server sends it (src/users/UserWire.ts). Never the password hash or
 * the MFA secret; email, notify props and auth data are blanked for other viewers, not left out. `email_verified` and
 * `disable_welcome_email` are Mattermost's model fields the types package does not declare.
 */
export const User = Schema.Struct({
  id: Schema.String,
  create_at: Schema.Number,
  update_at: Schema.Number,
  delete_at: Schema.Number,
  username: Schema.String,
  auth_data: Schema.String,
  auth_service: Schema.String,
  email: Schema.String,
  email_verified: Schema.Boolean,
  nickname: Schema.String,
  first_name: Schema.String,
  last_name: Schema.String,
  position: Schema.String,
  roles: Schema.String,
  locale: Schema.String,
  notify_props: Schema.Record({ key: Schema.String, value: Schema.String }),
  props: Schema.Record({ key: Schema.String, value: Schema.String }),
  last_password_update: Schema.Number,
  last_picture_update: Schema.Number,
  failed_attempts: Schema.Number,
  mfa_active: Schema.Boolean,
  timezone: Schema.Record({ key: Schema.String, value: Schema.String }),
  is_bot: Schema.Boolean,
  bot_description: Schema.String,
  disable_welcome_email: Schema.Boolean,
  terms_of_service_id: Schema.String,
  terms_of_service_create_at: Schema.Number,
  /** Only in user lists sorted by activity (GET /users?sort=last_activity_at). */
  last_activity_at: Schema.optionalWith(Schema.Number, { exact: true })
})
export type User = typeof User.Type

/** The UserAutocomplete of @mattermost/types: the matches, and with a channel given, the team's others outside it. */
export const UserAutocomplete = Schema.Struct({
  users: Schema.Array(User),
  out_of_channel: Schema.optionalWith(Schema.Array(User), { exact: true })
})
export type UserAutocomplete = typeof UserAutocomplete.Type

/** GET /users/known: the ids of the users the caller shares a team or a channel with. */
export const UserIds = Schema.Array(Schema.String)

/**
 * The UserReport of @mattermost/types (GET /reports/users): a user with their last login and their posting in the
 * report's date range; `last_post_date` only for users who posted in it.
 */
export const UserReport = Schema.Struct({
  ...User.fields,
  last_login: Schema.Number,
  total_posts: Schema.Number,
  days_active: Schema.Number,
  last_post_date: Schema.optionalWith(Schema.Number, { exact: true })
})
export type UserReport = typeof UserReport.Type

/** `POST /users/group_channels`: each group message asked for, with its members (the caller among them). */
export const UsersByGroupChannel = Schema.Record({ key: Schema.String, value: Schema.Array(User) })
export type UsersByGroupChannel = typeof UsersByGroupChannel.Type

/** The UsersStats of @mattermost/types: `GET /users/stats` and `GET /users/stats/filtered`. */
export const UsersStats = Schema.Struct({ total_users_count: Schema.Number })
export type UsersStats = typeof UsersStats.Type

/** `GET /reports/users/count`: a bare number, as Mattermost answers. */
export const UserReportCount = Schema.Number

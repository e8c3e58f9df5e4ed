import { Schema } from "effect"

/** The TeamUnread of @mattermost/types: one team's unread totals for one user (its channels, not DMs and GMs). */
export const TeamUnread = Schema.Struct({
  team_id: Schema.String,
  msg_count: Schema.Number,
  mention_count: Schema.Number,
  msg_count_root: Schema.Number,
  mention_count_root: Schema.Number
})
export type TeamUnread = typeof TeamUnread.Type

/**
 * `GET /users/{user_id}/teams/unread`: a TeamUnread, with `include_collapsed_threads=true` the team's unread followed
 * threads too (mattermost-redux sets the teams' thread badges from them).
 */
export const TeamUnreadWithThreads = Schema.Struct({
  ...TeamUnread.fields,
  thread_count: Schema.optionalWith(Schema.Number, { exact: true }),
  thread_mention_count: Schema.optionalWith(Schema.Number, { exact: true }),
  thread_urgent_mention_count: Schema.optionalWith(Schema.Number, { exact: true })
})
export type TeamUnreadWithThreads = typeof TeamUnreadWithThreads.Type

/**
 * The TeamMembership of @mattermost/types (a TeamUnread plus the membership) as this server sends it
 * (src/teams/TeamWire.ts): `roles` holds the explicit roles and those the scheme flags grant, `explicit_roles` the
 * explicit ones alone, as Mattermost's model does.
 */
export const TeamMember = Schema.Struct({
  ...TeamUnread.fields,
  user_id: Schema.String,
  roles: Schema.String,
  delete_at: Schema.Number,
  scheme_guest: Schema.Boolean,
  scheme_user: Schema.Boolean,
  scheme_admin: Schema.Boolean,
  explicit_roles: Schema.String,
  create_at: Schema.Number
})
export type TeamMember = typeof TeamMember.Type

/**
 * The TeamMemberWithError of @mattermost/types: one user of a graceful batch add (POST /teams/{team_id}/members/batch
 * ?graceful=true), with the membership when they were added, or the error (Mattermost's AppError body) when not;
 * the other key is left out.
 */
export const TeamMemberWithError = Schema.Struct({
  member: Schema.optionalWith(TeamMember, { exact: true }),
  user_id: Schema.String,
  error: Schema.optionalWith(Schema.Struct({ id: Schema.String, message: Schema.String, status_code: Schema.Number }), { exact: true })
})
export type TeamMemberWithError = typeof TeamMemberWithError.Type

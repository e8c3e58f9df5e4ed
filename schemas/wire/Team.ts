import { Schema } from "effect"

/** The Team of @mattermost/types as this server sends it (src/teams/TeamWire.ts): email blanked for non-admins. */
export const Team = Schema.Struct({
  id: Schema.String,
  create_at: Schema.Number,
  update_at: Schema.Number,
  delete_at: Schema.Number,
  display_name: Schema.String,
  name: Schema.String,
  description: Schema.String,
  email: Schema.String,
  type: Schema.Literal("O", "I"),
  company_name: Schema.String,
  allowed_domains: Schema.String,
  invite_id: Schema.String,
  allow_open_invite: Schema.Boolean,
  scheme_id: Schema.String,
  group_constrained: Schema.Boolean,
  /** Data retention policies do not exist here: always null, as Mattermost sends it without one. */
  policy_id: Schema.Null,
  last_team_icon_update: Schema.Number
})
export type Team = typeof Team.Type

/** The TeamsWithCount of @mattermost/types: a page of teams and how many there are in all. */
export const TeamsWithCount = Schema.Struct({ teams: Schema.Array(Team), total_count: Schema.Number })

/** The TeamStats of @mattermost/types: the team's members, and those of them not deactivated. */
export const TeamStats = Schema.Struct({ team_id: Schema.String, total_member_count: Schema.Number, active_member_count: Schema.Number })
export type TeamStats = typeof TeamStats.Type

/** GET /teams/name/{name}/exists: whether the caller can see a team of that name. */
export const TeamExists = Schema.Struct({ exists: Schema.Boolean })
export type TeamExists = typeof TeamExists.Type

/** `GET /teams/invite/{invite_id}`, without a session: the four fields of an open team the invite page shows. */
export const TeamInviteInfo = Schema.Struct({
  display_name: Schema.String,
  description: Schema.String,
  name: Schema.String,
  id: Schema.String
})
export type TeamInviteInfo = typeof TeamInviteInfo.Type

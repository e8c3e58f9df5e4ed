/** Team and TeamMembership of @mattermost/types, from their rows. */
import type { Team } from "../../schemas/wire/Team.ts"
import type { TeamMember, TeamUnread } from "../../schemas/wire/TeamMember.ts"

export interface TeamRow {
  readonly id: string
  readonly create_at: string
  readonly update_at: string
  readonly delete_at: string
  readonly display_name: string
  readonly name: string
  readonly description: string
  readonly email: string
  /** "O" or "I" as written by the service; the column itself does not constrain it. */
  readonly type: string
  readonly company_name: string
  readonly allowed_domains: string
  readonly invite_id: string
  readonly allow_open_invite: boolean
  readonly last_team_icon_update: string
  readonly group_constrained: boolean
}

export interface TeamMemberRow {
  readonly team_id: string
  readonly user_id: string
  readonly roles: string
  readonly delete_at: string
  readonly scheme_guest: boolean
  readonly scheme_user: boolean
  readonly scheme_admin: boolean
  readonly create_at: string
}

/** Team admins see the team's email; everyone else gets it blanked, as Mattermost's Team.Sanitize does. */
/**
 * How much of a team a caller sees, as Mattermost's SanitizeTeam: everything with manage_team in it; the invite id too
 * with invite_user (its members by default); otherwise neither the invite id nor the email (what a non-member browsing
 * open teams, and every WebSocket event, gets).
 */
export type TeamView = "full" | "invite" | "public"
export const teamView = (can: (permission: string) => boolean): TeamView =>
  can("manage_team") ? "full" : can("invite_user") ? "invite" : "public"

export const toTeam = (row: TeamRow, view: TeamView): Team => ({
  id: row.id,
  create_at: Number(row.create_at),
  update_at: Number(row.update_at),
  delete_at: Number(row.delete_at),
  display_name: row.display_name,
  name: row.name,
  description: row.description,
  email: view === "full" ? row.email : "",
  type: row.type as Team["type"],
  company_name: row.company_name,
  allowed_domains: row.allowed_domains,
  invite_id: view === "public" ? "" : row.invite_id,
  allow_open_invite: row.allow_open_invite,
  scheme_id: "",
  group_constrained: row.group_constrained,
  policy_id: null,
  last_team_icon_update: Number(row.last_team_icon_update)
})

/** Explicit roles plus the ones the scheme flags grant, as Mattermost renders them ("team_user team_admin"). */
export const schemeRoles = (
  prefix: "team" | "channel",
  explicit: string,
  flags: { readonly scheme_guest: boolean; readonly scheme_user: boolean; readonly scheme_admin: boolean }
) =>
  [
    ...explicit.split(" ").filter((r) => r !== ""),
    ...(flags.scheme_guest ? [`${prefix}_guest`] : []),
    ...(flags.scheme_user ? [`${prefix}_user`] : []),
    ...(flags.scheme_admin ? [`${prefix}_admin`] : [])
  ].join(" ")

/** The unread totals of one team for one user (channels of the team only, not DMs and GMs). */
export interface TeamUnreadRow {
  readonly team_id: string
  readonly msg_count: string | null
  readonly mention_count: string | null
  readonly msg_count_root: string | null
  readonly mention_count_root: string | null
}

export const toTeamUnread = (row: TeamUnreadRow): TeamUnread => ({
  team_id: row.team_id,
  msg_count: Number(row.msg_count ?? 0),
  mention_count: Number(row.mention_count ?? 0),
  msg_count_root: Number(row.msg_count_root ?? 0),
  mention_count_root: Number(row.mention_count_root ?? 0)
})

export const toTeamMember = (row: TeamMemberRow & Partial<TeamUnreadRow>): TeamMember => ({
  ...toTeamUnread({ msg_count: null, mention_count: null, msg_count_root: null, mention_count_root: null, ...row }),
  user_id: row.user_id,
  roles: schemeRoles("team", row.roles, row),
  delete_at: Number(row.delete_at),
  scheme_guest: row.scheme_guest,
  scheme_user: row.scheme_user,
  scheme_admin: row.scheme_admin,
  explicit_roles: row.roles,
  create_at: Number(row.create_at)
})

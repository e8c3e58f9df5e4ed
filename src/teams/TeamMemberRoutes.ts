import { HttpRouter } from "@effect/platform"
import { Clock, Effect, Option, Schema } from "effect"
import { DomainEvent } from "../../schemas/Events.ts"
import { TeamMember, TeamMemberWithError, TeamUnread, TeamUnreadWithThreads } from "../../schemas/wire/TeamMember.ts"
import { Team } from "../../schemas/wire/Team.ts"
import { Access } from "../access/Access.ts"
import { need } from "../access/Permission.ts"
import { resolveUserId, selfOrAdmin } from "../access/UserParam.ts"
import { Paging, TeamParams, UserIdOrMe, UserParams } from "../../schemas/Params.ts"
import type { Caller } from "../auth/Authenticate.ts"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import * as ChannelEvents from "../channels/ChannelEvents.ts"
import { EventBus } from "../events/EventBus.ts"
import { badRequest, forbidden, notFound, permissionDenied } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { UserRepo } from "../users/UserRepo.ts"
import { ok, respondWith, respondWithAll } from "../http/Respond.ts"
import * as TeamEvents from "./TeamEvents.ts"
import * as TeamMemberRepo from "./TeamMemberRepo.ts"
import { TeamUnreads } from "./TeamUnreads.ts"
import * as SystemPosts from "../posts/SystemPosts.ts"
import * as TeamRepo from "./TeamRepo.ts"
import { domainAllowed } from "./TeamValidation.ts"
import { CountRepo } from "../counts/CountRepo.ts"
import { toTeam, toTeamMember, toTeamUnread } from "./TeamWire.ts"
import { viewTeams } from "./TeamViews.ts"

/** Team memberships: join, add, leave, list, roles, and each user's teams and unread totals. */

const TeamUserParams = Schema.Struct({ ...TeamParams.fields, user_id: UserIdOrMe })

const MemberBody = Schema.Struct({ team_id: Schema.optional(Schema.String), user_id: Decode.Id })
const MembersBody = Schema.Array(MemberBody).pipe(Schema.maxItems(200))
const UserIdsBody = Schema.Array(Decode.Id).pipe(Schema.maxItems(1000))

const GracefulQuery = Schema.Struct({ graceful: Schema.optionalWith(Decode.QueryBool, { default: () => false }) })
const InviteQuery = Schema.Struct({ invite_id: Schema.String })
const MembersQuery = Schema.Struct({
  ...Paging,
  sort: Schema.optionalWith(Schema.String, { default: () => "" }),
  exclude_deleted_users: Schema.optionalWith(Decode.QueryBool, { default: () => false })
})
export const ExcludeTeamQuery = Schema.Struct({
  exclude_team: Schema.optionalWith(Schema.String, { default: () => "" }),
  include_collapsed_threads: Schema.optionalWith(Decode.QueryBool, { default: () => false })
})

const membersOf = (teamId: string, userIds: ReadonlyArray<string>) =>
  Effect.map(TeamMemberRepo.membersOf(teamId, userIds), (rows) => rows.map(toTeamMember))

/**
 * Adds users to a team, by permission as in Mattermost: joining on one's own takes join_public_teams for an open
 * team (allow_open_invite), join_private_teams otherwise (system admins by default); adding others, or oneself again,
 * takes add_user_to_team in the team (its members by default). An archived team takes no one but from system admins.
 */
const addToTeam = (caller: Caller, teamId: string, requested: ReadonlyArray<string>, requestorId: string | undefined, graceful = false) =>
  Effect.gen(function*() {
    const found = yield* TeamMemberRepo.teamForJoin(teamId, caller.userId)
    if (Option.isNone(found)) return yield* notFound("app.team.get.find.app_error", "Team not found.")
    const team = found.value
    const onlySelf = requested.every((id) => id === caller.userId)
    if (team.delete_at !== "0" && !caller.isSystemAdmin) return yield* permissionDenied("this team")
    if (onlySelf && !team.member) yield* need(caller, team.allow_open_invite ? "join_public_teams" : "join_private_teams")
    else yield* need(yield* Effect.flatMap(Access, (a) => a.teamMember(caller, teamId)), "add_user_to_team")
    if (team.delete_at !== "0") return yield* badRequest("api.team.add_user_to_team.deleted.app_error", "The team is archived.")
    const knownIds = yield* TeamMemberRepo.activeUserIds(requested)
    const unknown = requested.filter((id) => !knownIds.has(id))
    if (unknown.length > 0 && !graceful) return yield* badRequest("app.user.missing_account.const", "Unknown user.")
    const userIds = requested.filter((id) => knownIds.has(id))
    const now = yield* Clock.currentTimeMillis
    const join = yield* TeamMemberRepo.add(teamId, userIds, now)
    const bus = yield* EventBus
    yield* TeamEvents.joined(bus, teamId, join)
    yield* SystemPosts.joinedTeam(teamId, requestorId, join.channels)
    return { members: yield* membersOf(teamId, userIds), unknown }
  })

const addMember = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { team_id } = yield* Decode.params(TeamParams)
  const body = yield* Decode.body(MemberBody)
  // Mattermost's single add passes no requestor: "joined the team", whoever added them.
  const { members } = yield* addToTeam(caller, team_id, [body.user_id], undefined)
  return yield* respondWith(TeamMember, members[0], 201)
})

const addMembers = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { team_id } = yield* Decode.params(TeamParams)
  const body = yield* Decode.body(MembersBody)
  if (body.length === 0) return yield* badRequest("api.context.invalid_body_param.app_error", "No members to add.")
  const { graceful } = yield* Decode.query(GracefulQuery)
  const { members, unknown } = yield* addToTeam(caller, team_id, [...new Set(body.map((m) => m.user_id))], caller.userId, graceful)
  if (!graceful) return yield* respondWithAll(TeamMember, members, 201)
  // The graceful form reports each user: its membership, or why it could not be added (TeamMemberWithError).
  return yield* respondWithAll(TeamMemberWithError, [
    ...members.map((member) => ({ member, user_id: member.user_id })),
    ...unknown.map((user_id) => ({
      user_id,
      error: { id: "app.user.missing_account.const", message: "Unknown user.", status_code: 400 }
    }))
  ], 201)
})

/** Joins the team an invite id names (the team's own invite link). */
const joinByInvite = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { invite_id } = yield* Decode.query(InviteQuery)
  const found = yield* TeamRepo.findByInviteId(invite_id)
  if (Option.isNone(found)) return yield* notFound("app.team.get_by_invite_id.finding.app_error", "Invalid invite id.")
  const team = found.value
  // The link admits only the team's allowed email domains, whether one signs up with it or joins when signed in.
  const email = Option.match(yield* (yield* UserRepo).findById(caller.userId), { onNone: () => "", onSome: (u) => u.email })
  if (!domainAllowed(email, team.allowed_domains)) {
    return yield* badRequest("api.team.join_user_to_team.allowed_domains.app_error", `Your email domain is not one of the team's allowed domains: ${team.allowed_domains.slice(0, 200)}`)
  }
  const now = yield* Clock.currentTimeMillis
  const join = yield* TeamMemberRepo.add(team.id, [caller.userId], now)
  const bus = yield* EventBus
  yield* TeamEvents.joined(bus, team.id, join)
  yield* SystemPosts.joinedTeam(team.id, undefined, join.channels)
  const [member] = yield* membersOf(team.id, [caller.userId])
  return yield* respondWith(TeamMember, member, 201)
})

const getMember = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const params = yield* Decode.params(TeamUserParams)
  const access = yield* Access
  yield* access.team(caller, params.team_id)
  const [member] = yield* membersOf(params.team_id, [resolveUserId(caller, params.user_id)])
  if (member === undefined) return yield* notFound("app.team.get_member.missing.app_error", "No team member found for that user ID and team ID.")
  return yield* respondWith(TeamMember, member)
})

const listMembers = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { team_id } = yield* Decode.params(TeamParams)
  const q = yield* Decode.query(MembersQuery)
  const access = yield* Access
  yield* access.team(caller, team_id)
  const rows = yield* TeamMemberRepo.listLive(team_id, {
    sortByUsername: q.sort === "Username",
    excludeDeletedUsers: q.exclude_deleted_users,
    limit: q.per_page,
    offset: q.page * q.per_page
  })
  return yield* respondWithAll(TeamMember, rows.map(toTeamMember))
})

const membersByIds = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { team_id } = yield* Decode.params(TeamParams)
  const ids = yield* Decode.body(UserIdsBody)
  const access = yield* Access
  yield* access.team(caller, team_id)
  const members = yield* membersOf(team_id, [...new Set(ids)])
  return yield* respondWithAll(TeamMember, members.filter((m) => m.delete_at === 0))
})

/** Leaving (yourself) or removing (remove_user_from_team: team admins by default); the user also leaves every channel of the team. */
const removeMember = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const params = yield* Decode.params(TeamUserParams)
  const userId = resolveUserId(caller, params.user_id)
  const access = yield* Access
  const team = yield* access.teamMember(caller, params.team_id)
  if (userId !== caller.userId) yield* need(team, "remove_user_from_team")
  const result = yield* TeamMemberRepo.remove(params.team_id, userId, yield* Clock.currentTimeMillis)
  if (!result.left) return yield* notFound("app.team.get_member.missing.app_error", "No team member found for that user ID and team ID.")
  yield* SystemPosts.leftTeam(params.team_id, caller.userId, userId)
  const bus = yield* EventBus
  yield* Effect.forEach(result.channels, (channelId) => ChannelEvents.userRemoved(bus, channelId, userId, caller.userId), { discard: true })
  yield* TeamEvents.left(bus, params.team_id, userId)
  return ok()
})

const RolesBody = Schema.Struct({ roles: Schema.String })
const SchemeRolesBody = Schema.Struct({
  scheme_admin: Schema.Boolean,
  scheme_user: Schema.Boolean,
  scheme_guest: Schema.optionalWith(Schema.Boolean, { default: () => false })
})

/** Makes the member a team admin or a plain member (manage_team_roles: team and system admins by default); guests are not offered. */
const setTeamAdmin = <E, R>(decide: Effect.Effect<boolean, E, R>) =>
  Effect.gen(function*() {
    const caller = yield* CurrentCaller
    const params = yield* Decode.params(TeamUserParams)
    const admin = yield* decide
    const access = yield* Access
    yield* need(yield* access.teamMember(caller, params.team_id), "manage_team_roles")
    const userId = resolveUserId(caller, params.user_id)
    const updated = yield* TeamMemberRepo.setSchemeAdmin(params.team_id, userId, admin)
    if (!updated) return yield* notFound("app.team.get_member.missing.app_error", "No team member found for that user ID and team ID.")
    const [member] = yield* membersOf(params.team_id, [userId])
    const bus = yield* EventBus
    yield* bus.publish(DomainEvent.TeamMemberRoleUpdated({ member }), { user_id: userId })
    return ok()
  })

/** PUT .../roles: "team_user" or "team_user team_admin". */
const updateRoles = setTeamAdmin(Effect.gen(function*() {
  const { roles } = yield* Decode.body(RolesBody)
  const set = new Set(roles.split(" ").filter((r) => r !== ""))
  if (!set.has("team_user") || [...set].some((r) => r !== "team_user" && r !== "team_admin")) {
    return yield* badRequest("api.team.update_team_member_roles.bad_role.app_error", "Invalid team member roles.")
  }
  return set.has("team_admin")
}))

/** PUT .../schemeRoles (the System Console's team page and the web app's Manage Members): the scheme flags. */
const updateSchemeRoles = setTeamAdmin(Effect.gen(function*() {
  const body = yield* Decode.body(SchemeRolesBody)
  if (!body.scheme_user || body.scheme_guest) {
    return yield* badRequest("api.team.update_team_member_scheme_roles.bad_role.app_error", "A team member must be a user (scheme_user true); guests are not offered on this server.")
  }
  return body.scheme_admin
}))

const userTeams = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const params = yield* Decode.params(UserParams)
  const userId = yield* selfOrAdmin(params.user_id)
  const rows = yield* TeamMemberRepo.teamsOfUser(userId)
  // Sanitized by the caller's permissions in each team (an admin looking at someone else's teams sees them as theirs).
  return yield* respondWithAll(Team, yield* viewTeams(caller, rows))
})

const userTeamMembers = Effect.gen(function*() {
  const params = yield* Decode.params(UserParams)
  const userId = yield* selfOrAdmin(params.user_id)
  const rows = yield* TeamMemberRepo.membershipsOfUser(userId)
  return yield* respondWithAll(TeamMember, rows.map(toTeamMember))
})

/** GET /users/{user_id}/teams/unread once the user and the query are known (also src/http/FastPath.ts). */
export const teamsUnread = (userId: string, q: typeof ExcludeTeamQuery.Type) =>
  Effect.gen(function*() {
    const all = yield* (yield* TeamUnreads).ofUser(userId)
    const rows = q.exclude_team === "" ? all : all.filter((row) => row.team_id !== q.exclude_team)
    if (!q.include_collapsed_threads) return rows.map(toTeamUnread)
    // mattermost-redux sets the teams' thread badges from these; without them every refresh would reset them to zero.
    const threads = new Map((yield* (yield* CountRepo).threadUnreadsByTeam(userId)).map((t) => [t.team_id, t]))
    return rows.map((row) => ({
      ...toTeamUnread(row),
      thread_count: Number(threads.get(row.team_id)?.thread_count ?? 0),
      thread_mention_count: Number(threads.get(row.team_id)?.thread_mention_count ?? 0),
      // Mentions in threads whose root is urgent (posts/PostPriority.ts).
      thread_urgent_mention_count: Number(threads.get(row.team_id)?.thread_urgent_mention_count ?? 0)
    }))
  })

const userTeamsUnread = Effect.gen(function*() {
  const params = yield* Decode.params(UserParams)
  const q = yield* Decode.query(ExcludeTeamQuery)
  const userId = yield* selfOrAdmin(params.user_id)
  return yield* respondWithAll(TeamUnreadWithThreads, yield* teamsUnread(userId, q))
})

const userTeamUnread = Effect.gen(function*() {
  const params = yield* Decode.params(TeamUserParams)
  const userId = yield* selfOrAdmin(params.user_id)
  const row = yield* TeamMemberRepo.unreadOfUserInTeam(userId, params.team_id)
  if (Option.isNone(row)) return yield* forbidden("api.context.permissions.app_error", "You are not a member of this team.")
  return yield* respondWith(TeamUnread, toTeamUnread(row.value))
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v4/teams/:team_id/members", authed(listMembers)),
  HttpRouter.post("/api/v4/teams/:team_id/members", authed(addMember)),
  HttpRouter.post("/api/v4/teams/:team_id/members/batch", authed(addMembers)),
  HttpRouter.post("/api/v4/teams/:team_id/members/ids", authed(membersByIds)),
  HttpRouter.get("/api/v4/teams/:team_id/members/:user_id", authed(getMember)),
  HttpRouter.del("/api/v4/teams/:team_id/members/:user_id", authed(removeMember)),
  HttpRouter.put("/api/v4/teams/:team_id/members/:user_id/roles", authed(updateRoles)),
  HttpRouter.put("/api/v4/teams/:team_id/members/:user_id/schemeRoles", authed(updateSchemeRoles)),
  HttpRouter.post("/api/v4/teams/members/invite", authed(joinByInvite)),
  HttpRouter.get("/api/v4/users/:user_id/teams", authed(userTeams)),
  HttpRouter.get("/api/v4/users/:user_id/teams/members", authed(userTeamMembers)),
  HttpRouter.get("/api/v4/users/:user_id/teams/unread", authed(userTeamsUnread)),
  HttpRouter.get("/api/v4/users/:user_id/teams/:team_id/unread", authed(userTeamUnread))
)

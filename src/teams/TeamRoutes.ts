import { HttpRouter } from "@effect/platform"
import { Clock, Effect, Option, Schema } from "effect"
import { Team, TeamExists, TeamStats, TeamsWithCount } from "../../schemas/wire/Team.ts"
import { newId } from "../../layers/Crypto.ts"
import { DomainEvent } from "../../schemas/Events.ts"
import { Paging, TeamParams } from "../../schemas/Params.ts"
import { Access } from "../access/Access.ts"
import { need } from "../access/Permission.ts"
import type { Caller } from "../auth/Authenticate.ts"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import { EventBus } from "../events/EventBus.ts"
import { badRequest, forbidden, notFound, permissionDenied } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { ok, respondWith, respondWithAll } from "../http/Respond.ts"
import * as RateLimit from "../ratelimit/RateLimit.ts"
import { siteSwitches } from "../system/ServerSettings.ts"
import * as TeamEvents from "./TeamEvents.ts"
import * as SystemPosts from "../posts/SystemPosts.ts"
import * as TeamRepo from "./TeamRepo.ts"
import { DESCRIPTION_MAX, displayNameProblem, teamNameProblem } from "./TeamValidation.ts"
import { type TeamRow, toTeam } from "./TeamWire.ts"
import { viewTeams } from "./TeamViews.ts"

/** Teams: create, read, update, archive, list and stats (mattermost-compat.md section 5, Teams). */

const TeamType = Schema.Literal("O", "I")

const CreateTeamBody = Schema.Struct({
  name: Schema.String,
  display_name: Schema.String,
  type: Schema.optionalWith(TeamType, { default: () => "O" as const }),
  description: Schema.optionalWith(Schema.String, { default: () => "" }),
  company_name: Schema.optionalWith(Schema.String, { default: () => "" }),
  allowed_domains: Schema.optionalWith(Schema.String, { default: () => "" }),
  allow_open_invite: Schema.optionalWith(Schema.Boolean, { default: () => false })
})

const TeamPatch = Schema.Struct({
  display_name: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String),
  company_name: Schema.optional(Schema.String),
  allowed_domains: Schema.optional(Schema.String),
  allow_open_invite: Schema.optional(Schema.Boolean),
  group_constrained: Schema.optional(Schema.Boolean)
})

/** PUT /teams/{id} replaces the editable fields, so display_name is required there. */
const TeamUpdate = Schema.Struct({ ...TeamPatch.fields, display_name: Schema.String })

const TeamNameParams = Schema.Struct({ name: Schema.String })
const PermanentQuery = Schema.Struct({ permanent: Schema.optionalWith(Decode.QueryBool, { default: () => false }) })

const invalidDisplayName = (problem: string) => badRequest("model.team.is_valid.name.app_error", problem)

const validatePatch = (patch: typeof TeamPatch.Type) =>
  Effect.gen(function*() {
    if (patch.display_name !== undefined) {
      const problem = displayNameProblem(patch.display_name)
      if (problem !== undefined) return yield* invalidDisplayName(problem)
    }
    if (patch.description !== undefined && [...patch.description].length > DESCRIPTION_MAX) {
      return yield* badRequest("model.team.is_valid.description.app_error", `Description must be at most ${DESCRIPTION_MAX} characters.`)
    }
  })

interface ReadableTeam {
  readonly row: TeamRow
  readonly isMember: boolean
}

/**
 * A team the caller may see: members and system admins always; others only when it is open to anyone
 * (allow_open_invite), so they can find and join it.
 */
export const readableTeam = (caller: Caller, where: "id" | "name", value: string) =>
  Effect.gen(function*() {
    const found = yield* TeamRepo.withMembership(caller.userId, where, value)
    if (Option.isNone(found)) return yield* notFound("app.team.get.find.app_error", "Team not found.")
    const row = found.value
    if (!row.member && !caller.isSystemAdmin && !(row.allow_open_invite && row.delete_at === "0")) {
      return yield* forbidden("api.context.permissions.app_error", "You are not a member of this team.")
    }
    return { row, isMember: row.member } satisfies ReadableTeam
  })

const createTeam = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const input = yield* Decode.body(CreateTeamBody)
  if (!caller.isSystemAdmin && !(yield* siteSwitches).enableTeamCreation) {
    return yield* forbidden("api.team.is_team_creation_allowed.disabled.app_error", "Team creation has been disabled. Please ask your System Administrator for details.")
  }
  yield* need(caller, "create_team")
  const name = input.name.trim()
  const nameProblem = teamNameProblem(name)
  if (nameProblem !== undefined) return yield* badRequest("model.team.is_valid.url.app_error", nameProblem)
  yield* validatePatch(input)
  yield* RateLimit.enforceCreation(caller.userId)
  const now = yield* Clock.currentTimeMillis
  const id = newId()
  const created = yield* TeamRepo.create({
    id,
    now,
    name,
    displayName: input.display_name.trim(),
    type: input.type,
    description: input.description,
    companyName: input.company_name,
    allowedDomains: input.allowed_domains,
    allowOpenInvite: input.allow_open_invite,
    creatorId: caller.userId
  })
  if (created === undefined) return yield* badRequest("app.team.save.existing.app_error", "A team with that name already exists.")
  const { team, join } = created
  const bus = yield* EventBus
  yield* TeamEvents.joined(bus, id, join)
  // The creator joins as anyone joining on their own (Mattermost's CreateTeamWithUser).
  yield* SystemPosts.joinedTeam(id, undefined, join.channels)
  return yield* respondWith(Team, toTeam(team, "full"), 201)
})

const getTeam = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { team_id } = yield* Decode.params(TeamParams)
  const team = yield* readableTeam(caller, "id", team_id)
  return yield* respondWith(Team, (yield* viewTeams(caller, [team.row]))[0])
})

const getTeamByName = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { name } = yield* Decode.params(TeamNameParams)
  const team = yield* readableTeam(caller, "name", name)
  return yield* respondWith(Team, (yield* viewTeams(caller, [team.row]))[0])
})

/** Whether a team name is taken; Mattermost answers only for teams the caller could see, so does this. */
const teamExists = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { name } = yield* Decode.params(TeamNameParams)
  const exists = yield* readableTeam(caller, "name", name).pipe(
    Effect.as(true),
    Effect.catchIf((e) => e._tag === "ApiError" && (e.status === 404 || e.status === 403), () => Effect.succeed(false))
  )
  return yield* respondWith(TeamExists, { exists })
})

const applyPatch = (partial: boolean) =>
  Effect.gen(function*() {
    const caller = yield* CurrentCaller
    const { team_id } = yield* Decode.params(TeamParams)
    const access = yield* Access
    const team = yield* access.teamMember(caller, team_id)
    const patch: typeof TeamPatch.Type = partial ? yield* Decode.body(TeamPatch) : yield* Decode.body(TeamUpdate)
    yield* need(team, "manage_team")
    yield* validatePatch(patch)
    const now = yield* Clock.currentTimeMillis
    const updated = yield* TeamRepo.patch(team_id, patch, now)
    const bus = yield* EventBus
    yield* TeamEvents.updated(bus, updated)
    return yield* respondWith(Team, toTeam(updated, "full"))
  })

/** The `{team_id}` of the path, once the caller is known to hold manage_team there (team and system admins by default). */
export const administeredTeamId = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { team_id } = yield* Decode.params(TeamParams)
  const access = yield* Access
  yield* need(yield* access.teamMember(caller, team_id), "manage_team")
  return team_id
})

const regenerateInvite = Effect.gen(function*() {
  const team_id = yield* administeredTeamId
  const team = yield* TeamRepo.regenerateInvite(team_id, yield* Clock.currentTimeMillis)
  const bus = yield* EventBus
  yield* TeamEvents.updated(bus, team)
  return yield* respondWith(Team, toTeam(team, "full"))
})

const PrivacyBody = Schema.Struct({ privacy: Schema.String })

/**
 * PUT /teams/{team_id}/privacy (the System Console's team page): "O" opens the team to anyone with an account, "I"
 * makes it invitation only; the type and the open-invite switch move together, as a team patch moves them.
 */
const setPrivacy = Effect.gen(function*() {
  const team_id = yield* administeredTeamId
  const { privacy } = yield* Decode.body(PrivacyBody)
  if (privacy !== "O" && privacy !== "I") {
    return yield* badRequest("api.team.update_team_privacy.privacy.app_error", "Invalid privacy: use \"O\" (open) or \"I\" (invitation only).")
  }
  const updated = yield* TeamRepo.patch(team_id, { allow_open_invite: privacy === "O" }, yield* Clock.currentTimeMillis)
  yield* TeamEvents.updated(yield* EventBus, updated)
  return yield* respondWith(Team, toTeam(updated, "full"))
})

/** Archives the team (soft delete); `permanent=true` is not offered. */
const archiveTeam = Effect.gen(function*() {
  const team_id = yield* administeredTeamId
  const { permanent } = yield* Decode.query(PermanentQuery)
  if (permanent) return yield* forbidden("api.team.permanent_delete_team.disabled.app_error", "Permanent team deletion is disabled on this server.")
  const archived = yield* TeamRepo.archive(team_id, yield* Clock.currentTimeMillis)
  if (Option.isSome(archived)) {
    const bus = yield* EventBus
    yield* bus.publish(DomainEvent.TeamDeleted({ team: toTeam(archived.value, "public") }), { team_id })
  }
  return ok()
})

const restoreTeam = Effect.gen(function*() {
  const team_id = yield* administeredTeamId
  const team = yield* TeamRepo.restore(team_id, yield* Clock.currentTimeMillis)
  const bus = yield* EventBus
  yield* bus.publish(DomainEvent.TeamRestored({ team: toTeam(team, "public") }), { team_id })
  return yield* respondWith(Team, toTeam(team, "full"))
})

const ListQuery = Schema.Struct({
  ...Paging,
  include_total_count: Schema.optionalWith(Decode.QueryBool, { default: () => false })
})

/** Teams the caller may join or is in; system admins see every team. */
const listTeams = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const q = yield* Decode.query(ListQuery)
  const { rows, total } = yield* TeamRepo.listVisible(caller, q.per_page, q.page * q.per_page, q.include_total_count)
  const teams = yield* viewTeams(caller, rows)
  if (total === undefined) return yield* respondWithAll(Team, teams)
  return yield* respondWith(TeamsWithCount, { teams, total_count: total })
})

const teamStats = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { team_id } = yield* Decode.params(TeamParams)
  const access = yield* Access
  yield* access.team(caller, team_id)
  const counts = yield* TeamRepo.memberCounts(team_id)
  return yield* respondWith(TeamStats, { team_id, total_member_count: counts.total, active_member_count: counts.active })
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.post("/api/v4/teams", authed(createTeam)),
  HttpRouter.get("/api/v4/teams", authed(listTeams)),
  HttpRouter.get("/api/v4/teams/:team_id", authed(getTeam)),
  HttpRouter.put("/api/v4/teams/:team_id", authed(applyPatch(false))),
  HttpRouter.put("/api/v4/teams/:team_id/patch", authed(applyPatch(true))),
  HttpRouter.del("/api/v4/teams/:team_id", authed(archiveTeam)),
  HttpRouter.post("/api/v4/teams/:team_id/restore", authed(restoreTeam)),
  HttpRouter.post("/api/v4/teams/:team_id/regenerate_invite_id", authed(regenerateInvite)),
  HttpRouter.put("/api/v4/teams/:team_id/privacy", authed(setPrivacy)),
  HttpRouter.get("/api/v4/teams/:team_id/stats", authed(teamStats)),
  HttpRouter.get("/api/v4/teams/name/:name", authed(getTeamByName)),
  HttpRouter.get("/api/v4/teams/name/:name/exists", authed(teamExists))
)

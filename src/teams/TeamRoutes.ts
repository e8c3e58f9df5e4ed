import { HttpRouter } from "@effect/platform"
import { Clock, Effect, Schema } from "effect"
import { Db } from "../../layers/Db.ts"
import { newId } from "../../layers/Crypto.ts"
import { Access } from "../access/Access.ts"
import { type Caller, requireCaller } from "../auth/Authenticate.ts"
import { EventBus } from "../events/EventBus.ts"
import { badRequest, forbidden, notFound, permissionDenied } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { json } from "../http/Respond.ts"
import { siteSwitches } from "../system/ServerSettings.ts"
import * as TeamEvents from "./TeamEvents.ts"
import * as TeamRepo from "./TeamRepo.ts"
import { DESCRIPTION_MAX, displayNameProblem, teamNameProblem } from "./TeamValidation.ts"
import { type TeamRow, toTeam } from "./TeamWire.ts"
import { Paging } from "./UserParam.ts"

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

export const TeamIdParams = Schema.Struct({ team_id: Decode.Id })
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
  readonly isAdmin: boolean
}

/**
 * A team the caller may see: members and system admins always; others only when it is open to anyone
 * (allow_open_invite), so they can find and join it.
 */
export const readableTeam = (caller: Caller, where: "id" | "name", value: string) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    const rows = yield* db.read(sql<TeamRow & { member: boolean; admin: boolean }>`
      SELECT t.*, tm.user_id IS NOT NULL AS member, COALESCE(tm.scheme_admin, false) AS admin
      FROM teams t LEFT JOIN team_members tm ON tm.team_id = t.id AND tm.user_id = ${caller.userId} AND tm.delete_at = 0
      WHERE ${where === "id" ? sql`t.id = ${value}` : sql`t.name = ${value}`}`)
    const row = rows[0]
    if (row === undefined) return yield* notFound("app.team.get.find.app_error", "Team not found.")
    if (!row.member && !caller.isSystemAdmin && !(row.allow_open_invite && row.delete_at === "0")) {
      return yield* forbidden("api.context.permissions.app_error", "You are not a member of this team.")
    }
    return { row, isMember: row.member, isAdmin: caller.isSystemAdmin || row.admin } satisfies ReadableTeam
  })

const createTeam = Effect.gen(function*() {
  const caller = yield* requireCaller
  const input = yield* Decode.body(CreateTeamBody)
  if (!caller.isSystemAdmin && !(yield* siteSwitches).enableTeamCreation) {
    return yield* forbidden("api.team.is_team_creation_allowed.disabled.app_error", "Team creation has been disabled. Please ask your System Administrator for details.")
  }
  const name = input.name.trim()
  const nameProblem = teamNameProblem(name)
  if (nameProblem !== undefined) return yield* badRequest("model.team.is_valid.url.app_error", nameProblem)
  yield* validatePatch(input)
  const db = yield* Db
  const sql = db.sql
  const now = yield* Clock.currentTimeMillis
  const id = newId()
  const created = yield* db.transaction(TeamRepo.insertWithDefaultChannels(sql, {
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
  }))
  if (created === undefined) return yield* badRequest("app.team.save.existing.app_error", "A team with that name already exists.")
  const { team, join } = created
  const bus = yield* EventBus
  yield* TeamEvents.joined(bus, id, join)
  return json(toTeam(team, true), 201)
})

const getTeam = Effect.gen(function*() {
  const caller = yield* requireCaller
  const { team_id } = yield* Decode.params(TeamIdParams)
  const team = yield* readableTeam(caller, "id", team_id)
  return json(toTeam(team.row, team.isAdmin))
})

const getTeamByName = Effect.gen(function*() {
  const caller = yield* requireCaller
  const { name } = yield* Decode.params(TeamNameParams)
  const team = yield* readableTeam(caller, "name", name)
  return json(toTeam(team.row, team.isAdmin))
})

/** Whether a team name is taken; Mattermost answers only for teams the caller could see, so does this. */
const teamExists = Effect.gen(function*() {
  const caller = yield* requireCaller
  const { name } = yield* Decode.params(TeamNameParams)
  const exists = yield* readableTeam(caller, "name", name).pipe(
    Effect.as(true),
    Effect.catchIf((e) => e._tag === "ApiError" && (e.status === 404 || e.status === 403), () => Effect.succeed(false))
  )
  return json({ exists })
})

const applyPatch = (partial: boolean) =>
  Effect.gen(function*() {
    const caller = yield* requireCaller
    const { team_id } = yield* Decode.params(TeamIdParams)
    const access = yield* Access
    const team = yield* access.teamMember(caller, team_id)
    const patch: typeof TeamPatch.Type = partial ? yield* Decode.body(TeamPatch) : yield* Decode.body(TeamUpdate)
    if (!team.isAdmin) return yield* permissionDenied("this team")
    yield* validatePatch(patch)
    const db = yield* Db
    const sql = db.sql
    const now = yield* Clock.currentTimeMillis
    const rows = yield* db.transaction(sql<TeamRow>`
      UPDATE teams SET
        display_name = COALESCE(${patch.display_name?.trim() ?? null}, display_name),
        description = COALESCE(${patch.description ?? null}, description),
        company_name = COALESCE(${patch.company_name ?? null}, company_name),
        allowed_domains = COALESCE(${patch.allowed_domains ?? null}, allowed_domains),
        allow_open_invite = COALESCE(${patch.allow_open_invite ?? null}::boolean, allow_open_invite),
        type = CASE WHEN ${patch.allow_open_invite ?? null}::boolean IS NULL THEN type
                    WHEN ${patch.allow_open_invite ?? null}::boolean THEN 'O' ELSE 'I' END,
        group_constrained = COALESCE(${patch.group_constrained ?? null}::boolean, group_constrained),
        update_at = ${now}
      WHERE id = ${team_id}
      RETURNING *`)
    const bus = yield* EventBus
    yield* TeamEvents.updated(bus, rows[0])
    return json(toTeam(rows[0], true))
  })

/** The `{team_id}` of the path, once the caller is known to administer that team (team or system admin). */
export const administeredTeamId = Effect.gen(function*() {
  const caller = yield* requireCaller
  const { team_id } = yield* Decode.params(TeamIdParams)
  const access = yield* Access
  const team = yield* access.teamMember(caller, team_id)
  if (!team.isAdmin) return yield* permissionDenied("this team")
  return team_id
})

const regenerateInvite = Effect.gen(function*() {
  const team_id = yield* administeredTeamId
  const db = yield* Db
  const now = yield* Clock.currentTimeMillis
  const rows = yield* db.transaction(db.sql<TeamRow>`
    UPDATE teams SET invite_id = ${newId()}, update_at = ${now} WHERE id = ${team_id} RETURNING *`)
  const bus = yield* EventBus
  yield* TeamEvents.updated(bus, rows[0])
  return json(toTeam(rows[0], true))
})

/** Archives the team (soft delete); `permanent=true` is not offered. */
const archiveTeam = Effect.gen(function*() {
  const team_id = yield* administeredTeamId
  const { permanent } = yield* Decode.query(PermanentQuery)
  if (permanent) return yield* forbidden("api.team.permanent_delete_team.disabled.app_error", "Permanent team deletion is disabled on this server.")
  const db = yield* Db
  const now = yield* Clock.currentTimeMillis
  const rows = yield* db.transaction(db.sql<TeamRow>`
    UPDATE teams SET delete_at = ${now}, update_at = ${now} WHERE id = ${team_id} AND delete_at = 0 RETURNING *`)
  if (rows.length > 0) {
    const bus = yield* EventBus
    yield* bus.publish("delete_team", { team: JSON.stringify(toTeam(rows[0], false)) }, { team_id })
  }
  return json({ status: "OK" })
})

const restoreTeam = Effect.gen(function*() {
  const team_id = yield* administeredTeamId
  const db = yield* Db
  const now = yield* Clock.currentTimeMillis
  const rows = yield* db.transaction(db.sql<TeamRow>`
    UPDATE teams SET delete_at = 0, update_at = ${now} WHERE id = ${team_id} RETURNING *`)
  const bus = yield* EventBus
  yield* bus.publish("restore_team", { team: JSON.stringify(toTeam(rows[0], false)) }, { team_id })
  return json(toTeam(rows[0], true))
})

const ListQuery = Schema.Struct({
  ...Paging,
  include_total_count: Schema.optionalWith(Decode.QueryBool, { default: () => false })
})

/** Teams the caller may join or is in; system admins see every team. */
const listTeams = Effect.gen(function*() {
  const caller = yield* requireCaller
  const q = yield* Decode.query(ListQuery)
  const db = yield* Db
  const sql = db.sql
  const visible = caller.isSystemAdmin
    ? sql`t.delete_at = 0`
    : sql`t.delete_at = 0 AND (t.allow_open_invite OR EXISTS (
        SELECT 1 FROM team_members tm WHERE tm.team_id = t.id AND tm.user_id = ${caller.userId} AND tm.delete_at = 0))`
  const rows = yield* db.read(sql<TeamRow & { total: string }>`
    SELECT t.*, count(*) OVER () AS total FROM teams t WHERE ${visible}
    ORDER BY t.display_name, t.id LIMIT ${q.per_page} OFFSET ${q.page * q.per_page}`)
  const teams = rows.map((r) => toTeam(r, caller.isSystemAdmin))
  if (!q.include_total_count) return json(teams)
  const total = rows.length > 0 ? Number(rows[0].total) : Number((yield* db.read(sql<{ n: string }>`
    SELECT count(*) AS n FROM teams t WHERE ${visible}`))[0].n)
  return json({ teams, total_count: total })
})

const teamStats = Effect.gen(function*() {
  const caller = yield* requireCaller
  const { team_id } = yield* Decode.params(TeamIdParams)
  const access = yield* Access
  yield* access.team(caller, team_id)
  const db = yield* Db
  // The team's member rows less its deactivated users (users_deactivated_idx): joining users reads them all.
  const [row] = yield* db.read(db.sql<{ total: string; active: string }>`
    SELECT count(*) AS total,
           count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.id = tm.user_id AND u.delete_at <> 0)) AS active
    FROM team_members tm
    WHERE tm.team_id = ${team_id} AND tm.delete_at = 0`)
  return json({ team_id, total_member_count: Number(row.total), active_member_count: Number(row.active) })
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.post("/api/v4/teams", createTeam),
  HttpRouter.get("/api/v4/teams", listTeams),
  HttpRouter.get("/api/v4/teams/:team_id", getTeam),
  HttpRouter.put("/api/v4/teams/:team_id", applyPatch(false)),
  HttpRouter.put("/api/v4/teams/:team_id/patch", applyPatch(true)),
  HttpRouter.del("/api/v4/teams/:team_id", archiveTeam),
  HttpRouter.post("/api/v4/teams/:team_id/restore", restoreTeam),
  HttpRouter.post("/api/v4/teams/:team_id/regenerate_invite_id", regenerateInvite),
  HttpRouter.get("/api/v4/teams/:team_id/stats", teamStats),
  HttpRouter.get("/api/v4/teams/name/:name", getTeamByName),
  HttpRouter.get("/api/v4/teams/name/:name/exists", teamExists)
)

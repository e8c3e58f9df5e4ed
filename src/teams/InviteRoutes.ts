import { HttpRouter } from "@effect/platform"
import { Effect, Option, Schema } from "effect"
import { Team, TeamInviteInfo, TeamsWithCount } from "../../schemas/wire/Team.ts"
import { authed, CurrentCaller, publicRoute } from "../auth/Guards.ts"
import { forbidden, notFound } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { respondWith, respondWithAll } from "../http/Respond.ts"
import { likePrefix } from "../search/Like.ts"
import * as TeamRepo from "./TeamRepo.ts"
import { toTeam } from "./TeamWire.ts"
import { viewTeams } from "./TeamViews.ts"

/** A team's public face for its invite link, and team search (the System Console's Teams list and the team picker). */

const InviteParams = Schema.Struct({ invite_id: Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9]{1,64}$/)) })

/**
 * GET /teams/invite/{invite_id}, without a session (the invite page shows the team before anyone signs in), as
 * Mattermost's getInviteInfo: four fields of the team. An id that names no team is a 404; a team that is not open
 * (allow_open_invite off) is a 403, as in Mattermost.
 */
const inviteInfo = Effect.gen(function*() {
  const { invite_id } = yield* Decode.params(InviteParams)
  const found = yield* TeamRepo.findByInviteId(invite_id)
  if (Option.isNone(found)) return yield* notFound("app.team.get_by_invite_id.finding.app_error", "Unable to find the existing team.")
  const team = found.value
  if (team.type !== "O") {
    return yield* forbidden("api.team.get_invite_info.not_open_team", "The invite link of this team cannot be used: the team is not open.")
  }
  return yield* respondWith(TeamInviteInfo, { display_name: team.display_name, description: team.description, name: team.name, id: team.id })
})

const SearchBody = Schema.Struct({
  term: Schema.optionalWith(Schema.String.pipe(Schema.maxLength(256)), { default: () => "" }),
  page: Schema.optional(Schema.Number.pipe(Schema.int(), Schema.between(0, 100_000))),
  per_page: Schema.optional(Schema.Number.pipe(Schema.int(), Schema.between(1, 200))),
  allow_open_invite: Schema.optional(Schema.Boolean)
})

/**
 * POST /teams/search: teams whose name or display name starts with the term (case-insensitive), among those the
 * caller may see (every team for system admins; open teams and their own for others). With `page` and `per_page`
 * the answer is `{teams, total_count}` (the System Console's paged list), otherwise a plain array, as in Mattermost.
 */
const search = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const body = yield* Decode.body(SearchBody)
  const paged = body.page !== undefined && body.per_page !== undefined
  const { rows, total } = yield* TeamRepo.search(caller, {
    pattern: likePrefix(body.term.trim()),
    allowOpenInvite: body.allow_open_invite,
    limit: paged ? body.per_page! : 100,
    offset: paged ? body.page! * body.per_page! : 0,
    withTotal: paged
  })
  const teams = yield* viewTeams(caller, rows)
  if (total === undefined) return yield* respondWithAll(Team, teams)
  return yield* respondWith(TeamsWithCount, { teams, total_count: total })
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v4/teams/invite/:invite_id", publicRoute(inviteInfo)),
  HttpRouter.post("/api/v4/teams/search", authed(search))
)

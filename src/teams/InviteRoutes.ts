import { HttpRouter } from "@effect/platform"
import { Effect, Schema } from "effect"
import { Db } from "../../layers/Db.ts"
import { requireCaller } from "../auth/Authenticate.ts"
import { forbidden, notFound } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { json } from "../http/Respond.ts"
import { likePrefix } from "../search/Like.ts"
import { type TeamRow, toTeam } from "./TeamWire.ts"

/** A team's public face for its invite link, and team search (the System Console's Teams list and the team picker). */

const InviteParams = Schema.Struct({ invite_id: Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9]{1,64}$/)) })

/**
 * GET /teams/invite/{invite_id}, without a session (the invite page shows the team before anyone signs in), as
 * Mattermost's getInviteInfo: four fields of the team. An id that names no team is a 404; a team that is not open
 * (allow_open_invite off) is a 403, as in Mattermost.
 */
const inviteInfo = Effect.gen(function*() {
  const { invite_id } = yield* Decode.params(InviteParams)
  const db = yield* Db
  const [team] = yield* db.read(db.sql<TeamRow>`
    SELECT * FROM teams WHERE invite_id = ${invite_id} AND invite_id <> '' AND delete_at = 0`)
  if (team === undefined) return yield* notFound("app.team.get_by_invite_id.finding.app_error", "Unable to find the existing team.")
  if (team.type !== "O") {
    return yield* forbidden("api.team.get_invite_info.not_open_team", "The invite link of this team cannot be used: the team is not open.")
  }
  return json({ display_name: team.display_name, description: team.description, name: team.name, id: team.id })
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
  const caller = yield* requireCaller
  const body = yield* Decode.body(SearchBody)
  const db = yield* Db
  const sql = db.sql
  const pattern = likePrefix(body.term.trim())
  const visible = caller.isSystemAdmin
    ? sql`TRUE`
    : sql`(t.allow_open_invite OR EXISTS (
        SELECT 1 FROM team_members tm WHERE tm.team_id = t.id AND tm.user_id = ${caller.userId} AND tm.delete_at = 0))`
  const open = body.allow_open_invite === undefined ? sql`TRUE` : sql`t.allow_open_invite = ${body.allow_open_invite}`
  const paged = body.page !== undefined && body.per_page !== undefined
  const limit = paged ? body.per_page! : 100
  const offset = paged ? body.page! * body.per_page! : 0
  const rows = yield* db.read(sql<TeamRow & { total: string }>`
    SELECT t.*, count(*) OVER () AS total FROM teams t
    WHERE t.delete_at = 0 AND ${visible} AND ${open}
      AND (lower(t.name) LIKE lower(${pattern}) OR lower(t.display_name) LIKE lower(${pattern}))
    ORDER BY t.display_name, t.id LIMIT ${limit} OFFSET ${offset}`)
  const teams = rows.map((r) => toTeam(r, caller.isSystemAdmin))
  if (!paged) return json(teams)
  const total = rows.length > 0 ? Number(rows[0].total) : Number((yield* db.read(sql<{ n: string }>`
    SELECT count(*) AS n FROM teams t WHERE t.delete_at = 0 AND ${visible} AND ${open}
      AND (lower(t.name) LIKE lower(${pattern}) OR lower(t.display_name) LIKE lower(${pattern}))`))[0].n)
  return json({ teams, total_count: total })
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v4/teams/invite/:invite_id", inviteInfo),
  HttpRouter.post("/api/v4/teams/search", search)
)

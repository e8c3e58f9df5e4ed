import { HttpRouter } from "@effect/platform"
import { Effect } from "effect"
import { ConsoleTeams, ConsoleTeamsQuery } from "../../schemas/native/Console.ts"
import { authed } from "../auth/Guards.ts"
import * as Decode from "../http/Decode.ts"
import { respondWith } from "../http/Respond.ts"
import * as TeamRepo from "./TeamRepo.ts"
import { toTeam } from "./TeamWire.ts"

/**
 * GET /api/v1/admin/teams (system admins): the web console's team list, searched by name, with archived teams when
 * asked (so they can be restored), and each team's member and channel counts, which Mattermost's team objects lack.
 */
const list = Effect.gen(function*() {
  const q = yield* Decode.query(ConsoleTeamsQuery)
  const rows = yield* TeamRepo.consolePage({ term: q.term, includeDeleted: q.include_deleted, limit: q.per_page, offset: q.page * q.per_page })
  return yield* respondWith(ConsoleTeams, {
    teams: rows.map((row) => ({
      ...toTeam(row, "full"),
      member_count: Number(row.member_count),
      active_member_count: Number(row.active_member_count),
      channel_count: Number(row.channel_count)
    })),
    // A page past the end carries no row with the total; the console never asks for one.
    total_count: rows.length > 0 ? Number(rows[0].total) : 0
  })
})

export const routes = HttpRouter.empty.pipe(HttpRouter.get("/api/v1/admin/teams", authed.admin(list)))

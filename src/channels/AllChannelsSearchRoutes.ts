import { HttpRouter } from "@effect/platform"
import { Effect } from "effect"
import { AllChannelsSearchBody } from "../../schemas/ChannelSearch.ts"
import { ChannelsWithTotalCount, ChannelWithTeamData } from "../../schemas/wire/Channel.ts"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import * as Decode from "../http/Decode.ts"
import { respondWith, respondWithAll } from "../http/Respond.ts"
import { AllChannelsSearchRepo } from "./AllChannelsSearchRepo.ts"
import { toChannel } from "./ChannelWire.ts"

/**
 * POST /channels/search: channels whose name or display name starts with the term, across teams, as
 * ChannelWithTeamData. System admins search every channel; others the public channels of their teams and the private
 * channels they belong to. With page and per_page the answer is `{channels, total_count}`, otherwise a plain array.
 */
const searchAll = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const q = yield* Decode.body(AllChannelsSearchBody)
  const paged = q.page !== undefined && q.per_page !== undefined
  const limit = paged ? q.per_page! : 100
  const repo = yield* AllChannelsSearchRepo
  const viewer = { userId: caller.userId, isAdmin: caller.isSystemAdmin }
  const rows = yield* repo.search(viewer, q, limit, paged ? q.page! * limit : 0)
  const channels = rows.map((r) => ({ ...toChannel(r), team_display_name: r.team_display_name, team_name: r.team_name, team_update_at: Number(r.team_update_at) }))
  if (!paged) return yield* respondWithAll(ChannelWithTeamData, channels)
  // A page past the end holds no row to carry the total: the first page's does.
  const total = rows.length > 0 ? Number(rows[0].total) : Number((yield* repo.search(viewer, q, 1, 0))[0]?.total ?? 0)
  return yield* respondWith(ChannelsWithTotalCount, { channels, total_count: total })
})

export const routes = HttpRouter.empty.pipe(HttpRouter.post("/api/v4/channels/search", authed(searchAll)))

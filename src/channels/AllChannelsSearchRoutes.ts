import { HttpRouter } from "@effect/platform"
import { Effect, Schema } from "effect"
import { AllChannelsSearchBody, AllChannelsSearchQuery } from "../../schemas/ChannelSearch.ts"
import { ChannelsWithTotalCount, ChannelWithTeamData } from "../../schemas/wire/Channel.ts"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import * as Decode from "../http/Decode.ts"
import { respondWith, respondWithAll } from "../http/Respond.ts"
import { AllChannelsSearchRepo, type ChannelWithTeamRow } from "./AllChannelsSearchRepo.ts"
import { toChannel } from "./ChannelWire.ts"

/**
 * POST /channels/search: channels whose name or display name starts with the term, across teams, as
 * ChannelWithTeamData. System admins search every channel (unless `system_console=false`); others the public channels
 * of their teams and the private channels they belong to. `deleted` asks for archived channels only. With page and per_page the answer is `{channels, total_count}`, otherwise a plain array.
 */
const withTeam = (r: ChannelWithTeamRow) =>
  ({ ...toChannel(r), team_display_name: r.team_display_name, team_name: r.team_name, team_update_at: Number(r.team_update_at) })

const searchAll = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const q = yield* Decode.body(AllChannelsSearchBody)
  const { system_console } = yield* Decode.query(AllChannelsSearchQuery)
  const paged = q.page !== undefined && q.per_page !== undefined
  const limit = paged ? q.per_page! : 100
  const repo = yield* AllChannelsSearchRepo
  const viewer = { userId: caller.userId, isAdmin: caller.isSystemAdmin && system_console !== "false" }
  const rows = yield* repo.search(viewer, q, limit, paged ? q.page! * limit : 0)
  const channels = rows.map(withTeam)
  if (!paged) return yield* respondWithAll(ChannelWithTeamData, channels)
  // A page past the end holds no row to carry the total: the first page's does.
  const total = rows.length > 0 ? Number(rows[0].total) : Number((yield* repo.search(viewer, q, 1, 0))[0]?.total ?? 0)
  return yield* respondWith(ChannelsWithTotalCount, { channels, total_count: total })
})

const ListQuery = Schema.Struct({
  page: Decode.QueryInt(0, { min: 0 }),
  per_page: Decode.QueryInt(60, { min: 1, max: 200 }),
  include_deleted: Schema.optionalWith(Decode.QueryBool, { default: () => false }),
  exclude_default_channels: Schema.optionalWith(Decode.QueryBool, { default: () => false }),
  include_total_count: Schema.optionalWith(Decode.QueryBool, { default: () => false })
})

/**
 * GET /channels: the System Console's list of every team channel, public and private, with its team's names, sorted
 * by display name; for system admins only. With include_total_count the answer is `{channels, total_count}`.
 */
const listAll = Effect.gen(function*() {
  const q = yield* Decode.query(ListQuery)
  const repo = yield* AllChannelsSearchRepo
  const options = { includeDeleted: q.include_deleted, excludeDefaultChannels: q.exclude_default_channels }
  const rows = yield* repo.list(options, q.per_page, q.page * q.per_page)
  const channels = rows.map(withTeam)
  if (!q.include_total_count) return yield* respondWithAll(ChannelWithTeamData, channels)
  const total = rows.length > 0 ? Number(rows[0].total) : Number((yield* repo.list(options, 1, 0))[0]?.total ?? 0)
  return yield* respondWith(ChannelsWithTotalCount, { channels, total_count: total })
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.post("/api/v4/channels/search", authed(searchAll)),
  HttpRouter.get("/api/v4/channels", authed.admin(listAll))
)

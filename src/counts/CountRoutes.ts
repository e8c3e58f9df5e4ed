import { HttpRouter } from "@effect/platform"
import { Effect, Schema } from "effect"
import { Access } from "../access/Access.ts"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import { badRequest, permissionDenied } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { respondWith } from "../http/Respond.ts"
import { CountsByChannel } from "../../schemas/wire/Counts.ts"
import { ownUserId } from "../access/UserParam.ts"
import { CountRepo } from "./CountRepo.ts"
import { ListOf, MaxItems } from "../../schemas/Limits.ts"

/** POST /channels/stats/member_count and GET /users/{user_id}/teams/{team_id}/threads/mention_counts. */

const ChannelIdsBody = ListOf(Decode.Id, MaxItems.channelIds)
const TeamParams = Schema.Struct({ team_id: Decode.Id })

/** `{channel_id: active members}`; every channel must be one the caller may read, as Mattermost requires. */
const memberCounts = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const ids = [...new Set(yield* Decode.body(ChannelIdsBody))]
  if (ids.length === 0) {
    return yield* badRequest("api.context.invalid_param.app_error", `Invalid or missing channel_ids parameter in request body (1 to ${MaxItems.channelIds}).`)
  }
  const rows = yield* (yield* CountRepo).memberCounts(caller.userId, caller.isSystemAdmin, ids)
  if (rows.length !== ids.length || rows.some((r) => !r.readable)) return yield* permissionDenied("these channels")
  return yield* respondWith(CountsByChannel, Object.fromEntries(rows.map((r) => [r.id, Number(r.members)])))
})

/** `{channel_id: unread mentions in followed threads}` of the caller in one team, for the thread badges. */
const threadMentionCounts = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  yield* ownUserId("the threads of another user")
  const { team_id } = yield* Decode.params(TeamParams)
  yield* (yield* Access).team(caller, team_id)
  const rows = yield* (yield* CountRepo).threadMentions(caller.userId, team_id)
  return yield* respondWith(CountsByChannel, Object.fromEntries(rows.map((r) => [r.channel_id, Number(r.mentions)])))
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.post("/api/v4/channels/stats/member_count", authed(memberCounts)),
  HttpRouter.get("/api/v4/users/:user_id/teams/:team_id/threads/mention_counts", authed(threadMentionCounts))
)

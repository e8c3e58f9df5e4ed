import { HttpRouter } from "@effect/platform"
import { Effect, ParseResult, Schema } from "effect"
import { Channel } from "../../schemas/wire/Channel.ts"
import { ChannelMember } from "../../schemas/wire/ChannelMember.ts"
import { authed } from "../auth/Guards.ts"
import * as Decode from "../http/Decode.ts"
import { respondWithAll } from "../http/Respond.ts"
import { ownDataInTeam, selfOrAdmin } from "../access/UserParam.ts"
import { UserParams } from "../../schemas/Params.ts"
import * as ChannelRepo from "./ChannelRepo.ts"
import { toChannel, toChannelMember } from "./ChannelWire.ts"

/**
 * A user's own channels and memberships, per team or across all teams. Per team, the lists include the user's DMs
 * and GMs (team_id ""), as Mattermost's do: the mobile app builds its DM sidebar from them.
 */

const DeletedQuery = Schema.Struct({
  include_deleted: Schema.optionalWith(Decode.QueryBool, { default: () => false }),
  last_delete_at: Decode.QueryInt(0, { min: 0 })
})

/** A page of -1 (sent by newer webapps) means every membership at once. */
const AllPages = Schema.Struct({
  page: Schema.optionalWith(
    Schema.transformOrFail(Schema.String, Schema.Number, {
      strict: true,
      decode: (s, _, ast) => {
        const n = s === "" ? 0 : Number(s)
        return Number.isInteger(n) && n >= -1 ? ParseResult.succeed(n) : ParseResult.fail(new ParseResult.Type(ast, s, "expected a page number"))
      },
      encode: (n) => ParseResult.succeed(String(n))
    }),
    { default: () => 0 }
  ),
  per_page: Decode.QueryInt(60, { min: 1, max: 1000 })
})

const myTeamChannels = Effect.gen(function*() {
  const { userId, teamId } = yield* ownDataInTeam
  const q = yield* Decode.query(DeletedQuery)
  const rows = yield* ChannelRepo.ofUser(userId, teamId, { include: q.include_deleted, since: q.last_delete_at })
  return yield* respondWithAll(Channel, rows.map(toChannel))
})

const myTeamChannelMembers = Effect.gen(function*() {
  const { userId, teamId } = yield* ownDataInTeam
  const rows = yield* ChannelRepo.membershipsInTeam(userId, teamId)
  return yield* respondWithAll(ChannelMember, rows.map(toChannelMember))
})

/** All of the user's channels in every team (teams the user has left are not included). */
const myChannels = Effect.gen(function*() {
  const params = yield* Decode.params(UserParams)
  const q = yield* Decode.query(DeletedQuery)
  const userId = yield* selfOrAdmin(params.user_id)
  const rows = yield* ChannelRepo.ofUser(userId, undefined, { include: q.include_deleted, since: q.last_delete_at })
  return yield* respondWithAll(Channel, rows.map(toChannel))
})

const myChannelMembers = Effect.gen(function*() {
  const params = yield* Decode.params(UserParams)
  const q = yield* Decode.query(AllPages)
  const userId = yield* selfOrAdmin(params.user_id)
  const rows = yield* ChannelRepo.membershipsOfUser(userId, q.page === -1 ? undefined : { limit: q.per_page, offset: q.page * q.per_page })
  return yield* respondWithAll(ChannelMember, rows.map(toChannelMember))
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v4/users/:user_id/teams/:team_id/channels", authed(myTeamChannels)),
  HttpRouter.get("/api/v4/users/:user_id/teams/:team_id/channels/members", authed(myTeamChannelMembers)),
  HttpRouter.get("/api/v4/users/:user_id/channels", authed(myChannels)),
  HttpRouter.get("/api/v4/users/:user_id/channel_members", authed(myChannelMembers))
)

import { HttpRouter } from "@effect/platform"
import { Effect, Option, Schema } from "effect"
import { Channel } from "../../schemas/wire/Channel.ts"
import { PagingQuery, TeamParams } from "../../schemas/Params.ts"
import { Access } from "../access/Access.ts"
import type { Caller } from "../auth/Authenticate.ts"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import { notFound, permissionDenied } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { respondWith, respondWithAll } from "../http/Respond.ts"
import * as ChannelRepo from "./ChannelRepo.ts"
import { toChannel } from "./ChannelWire.ts"

/** A team's channels: browse, archived, by name, autocomplete and search. */

const LIMIT = 50

/**
 * One page of a team's channels, by name: the caller must be on the team (and a system admin where `adminOnly` says
 * what they would see); `where` picks the channels (`c` is the channels row).
 */
const teamChannelPage = (
  filter: ChannelRepo.TeamChannelFilter,
  adminOnly?: string
) =>
  Effect.gen(function*() {
    const caller = yield* CurrentCaller
    const { team_id } = yield* Decode.params(TeamParams)
    const q = yield* Decode.query(PagingQuery)
    const access = yield* Access
    yield* access.team(caller, team_id)
    if (adminOnly !== undefined && !caller.isSystemAdmin) return yield* permissionDenied(adminOnly)
    const rows = yield* ChannelRepo.teamPage(team_id, filter, caller.userId, q.per_page, q.page * q.per_page)
    return yield* respondWithAll(Channel, rows.map(toChannel))
  })

const publicChannels = teamChannelPage("public")

/** Archived public channels, and archived private ones the caller belongs to. */
const deletedChannels = teamChannelPage("archived")

/** Every private channel of a team: system admins only (Mattermost's manage_system). */
const privateChannels = teamChannelPage("private", "the private channels of this team")

const byName = (caller: Caller, teamId: string, name: string, includeDeleted: boolean) =>
  Effect.gen(function*() {
    const found = yield* ChannelRepo.byTeamAndName(teamId, name)
    if (Option.isNone(found) || (!includeDeleted && found.value.delete_at !== "0")) {
      return yield* notFound("app.channel.get_by_name.missing.app_error", "Channel not found.")
    }
    const row = found.value
    const access = yield* Access
    yield* access.channel(caller, row.id, "read")
    return yield* respondWith(Channel, toChannel(row))
  })

const IncludeDeleted = Schema.Struct({ include_deleted: Schema.optionalWith(Decode.QueryBool, { default: () => false }) })
const TeamChannelNameParams = Schema.Struct({ team_id: Decode.Id, channel_name: Schema.String })
const TeamNameChannelNameParams = Schema.Struct({ team_name: Schema.String, channel_name: Schema.String })

const channelByName = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const params = yield* Decode.params(TeamChannelNameParams)
  const q = yield* Decode.query(IncludeDeleted)
  const access = yield* Access
  yield* access.team(caller, params.team_id)
  return yield* byName(caller, params.team_id, params.channel_name, q.include_deleted)
})

const channelByTeamAndChannelName = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const params = yield* Decode.params(TeamNameChannelNameParams)
  const q = yield* Decode.query(IncludeDeleted)
  const teamId = yield* ChannelRepo.teamIdByName(params.team_name)
  if (Option.isNone(teamId)) return yield* notFound("app.team.get_by_name.missing.app_error", "Team not found.")
  const access = yield* Access
  yield* access.team(caller, teamId.value)
  return yield* byName(caller, teamId.value, params.channel_name, q.include_deleted)
})

const NameQuery = Schema.Struct({ name: Schema.optionalWith(Schema.String, { default: () => "" }) })

/** Channels the caller could open from the channel switcher: public ones and private ones they belong to. */
const autocomplete = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { team_id } = yield* Decode.params(TeamParams)
  const { name } = yield* Decode.query(NameQuery)
  const access = yield* Access
  yield* access.team(caller, team_id)
  const rows = yield* ChannelRepo.autocomplete(team_id, caller.userId, name, LIMIT)
  return yield* respondWithAll(Channel, rows.map(toChannel))
})

/** Channels to search posts in ("in:" suggestions): the caller's own channels of the team. */
const searchAutocomplete = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { team_id } = yield* Decode.params(TeamParams)
  const { name } = yield* Decode.query(NameQuery)
  const access = yield* Access
  yield* access.team(caller, team_id)
  const rows = yield* ChannelRepo.memberChannelsMatching(team_id, caller.userId, name, LIMIT)
  return yield* respondWithAll(Channel, rows.map(toChannel))
})

const SearchBody = Schema.Struct({ term: Schema.String.pipe(Schema.maxLength(256)) })

/** Public channels (live or archived) whose name or display name starts with the term. */
const search = (archived: boolean) =>
  Effect.gen(function*() {
    const caller = yield* CurrentCaller
    const { team_id } = yield* Decode.params(TeamParams)
    const { term } = yield* Decode.body(SearchBody)
    const access = yield* Access
    yield* access.team(caller, team_id)
    const rows = yield* ChannelRepo.searchPublic(team_id, term.trim(), archived, 100)
    return yield* respondWithAll(Channel, rows.map(toChannel))
  })

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v4/teams/:team_id/channels", authed(publicChannels)),
  HttpRouter.get("/api/v4/teams/:team_id/channels/deleted", authed(deletedChannels)),
  HttpRouter.get("/api/v4/teams/:team_id/channels/private", authed(privateChannels)),
  HttpRouter.get("/api/v4/teams/:team_id/channels/autocomplete", authed(autocomplete)),
  HttpRouter.get("/api/v4/teams/:team_id/channels/search_autocomplete", authed(searchAutocomplete)),
  HttpRouter.post("/api/v4/teams/:team_id/channels/search", authed(search(false))),
  HttpRouter.post("/api/v4/teams/:team_id/channels/search_archived", authed(search(true))),
  HttpRouter.get("/api/v4/teams/:team_id/channels/name/:channel_name", authed(channelByName)),
  HttpRouter.get("/api/v4/teams/name/:team_name/channels/name/:channel_name", authed(channelByTeamAndChannelName))
)

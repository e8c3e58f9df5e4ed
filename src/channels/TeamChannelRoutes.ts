import { HttpRouter } from "@effect/platform"
import type { SqlClient, Statement } from "@effect/sql"
import { Effect, Schema } from "effect"
import { Db } from "../../layers/Db.ts"
import { Access } from "../access/Access.ts"
import { type Caller, requireCaller } from "../auth/Authenticate.ts"
import { notFound, permissionDenied } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { json } from "../http/Respond.ts"
import { Paging } from "../teams/UserParam.ts"
import { type ChannelRow, toChannel } from "./ChannelWire.ts"

/** A team's channels: browse, archived, by name, autocomplete and search. */

const TeamIdParams = Schema.Struct({ team_id: Decode.Id })
const PagingQuery = Schema.Struct(Paging)
const LIMIT = 50

/** A LIKE pattern matching values that start with the term, the term's wildcards taken literally. */
const prefixPattern = (term: string) => `${term.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/**
 * One page of a team's channels, by name: the caller must be on the team (and a system admin where `adminOnly` says
 * what they would see); `where` picks the channels (`c` is the channels row).
 */
const teamChannelPage = (
  where: (sql: SqlClient.SqlClient, caller: Caller) => Statement.Fragment,
  adminOnly?: string
) =>
  Effect.gen(function*() {
    const caller = yield* requireCaller
    const { team_id } = yield* Decode.params(TeamIdParams)
    const q = yield* Decode.query(PagingQuery)
    const access = yield* Access
    yield* access.team(caller, team_id)
    if (adminOnly !== undefined && !caller.isSystemAdmin) return yield* permissionDenied(adminOnly)
    const db = yield* Db
    const sql = db.sql
    const rows = yield* db.read(sql<ChannelRow>`
      SELECT c.* FROM channels c WHERE c.team_id = ${team_id} AND ${where(sql, caller)}
      ORDER BY c.display_name, c.id LIMIT ${q.per_page} OFFSET ${q.page * q.per_page}`)
    return json(rows.map(toChannel))
  })

const publicChannels = teamChannelPage((sql) => sql`c.type = 'O' AND c.delete_at = 0`)

/** Archived public channels, and archived private ones the caller belongs to. */
const deletedChannels = teamChannelPage((sql, caller) => sql`
  c.delete_at <> 0 AND (c.type = 'O' OR (c.type = 'P' AND EXISTS (
    SELECT 1 FROM channel_members cm WHERE cm.channel_id = c.id AND cm.user_id = ${caller.userId})))`)

/** Every private channel of a team: system admins only (Mattermost's manage_system). */
const privateChannels = teamChannelPage((sql) => sql`c.type = 'P' AND c.delete_at = 0`, "the private channels of this team")

const byName = (caller: Caller, teamId: string, name: string, includeDeleted: boolean) =>
  Effect.gen(function*() {
    const db = yield* Db
    const [row] = yield* db.read(db.sql<ChannelRow>`SELECT * FROM channels WHERE team_id = ${teamId} AND name = ${name}`)
    if (row === undefined || (!includeDeleted && row.delete_at !== "0")) {
      return yield* notFound("app.channel.get_by_name.missing.app_error", "Channel not found.")
    }
    const access = yield* Access
    yield* access.channel(caller, row.id, "read")
    return json(toChannel(row))
  })

const IncludeDeleted = Schema.Struct({ include_deleted: Schema.optionalWith(Decode.QueryBool, { default: () => false }) })
const TeamChannelNameParams = Schema.Struct({ team_id: Decode.Id, channel_name: Schema.String })
const TeamNameChannelNameParams = Schema.Struct({ team_name: Schema.String, channel_name: Schema.String })

const channelByName = Effect.gen(function*() {
  const caller = yield* requireCaller
  const params = yield* Decode.params(TeamChannelNameParams)
  const q = yield* Decode.query(IncludeDeleted)
  const access = yield* Access
  yield* access.team(caller, params.team_id)
  return yield* byName(caller, params.team_id, params.channel_name, q.include_deleted)
})

const channelByTeamAndChannelName = Effect.gen(function*() {
  const caller = yield* requireCaller
  const params = yield* Decode.params(TeamNameChannelNameParams)
  const q = yield* Decode.query(IncludeDeleted)
  const db = yield* Db
  const [team] = yield* db.read(db.sql<{ id: string }>`SELECT id FROM teams WHERE name = ${params.team_name}`)
  if (team === undefined) return yield* notFound("app.team.get_by_name.missing.app_error", "Team not found.")
  const access = yield* Access
  yield* access.team(caller, team.id)
  return yield* byName(caller, team.id, params.channel_name, q.include_deleted)
})

const NameQuery = Schema.Struct({ name: Schema.optionalWith(Schema.String, { default: () => "" }) })

const matches = (sql: SqlClient.SqlClient, term: string) => sql`(lower(c.name) LIKE ${prefixPattern(term)} OR lower(c.display_name) LIKE ${prefixPattern(term)})`

/** Channels the caller could open from the channel switcher: public ones and private ones they belong to. */
const autocomplete = Effect.gen(function*() {
  const caller = yield* requireCaller
  const { team_id } = yield* Decode.params(TeamIdParams)
  const { name } = yield* Decode.query(NameQuery)
  const access = yield* Access
  yield* access.team(caller, team_id)
  const db = yield* Db
  const sql = db.sql
  const rows = yield* db.read(sql<ChannelRow>`
    SELECT c.* FROM channels c
    WHERE c.team_id = ${team_id} AND c.delete_at = 0 AND ${matches(sql, name)}
      AND (c.type = 'O' OR EXISTS (SELECT 1 FROM channel_members cm WHERE cm.channel_id = c.id AND cm.user_id = ${caller.userId}))
    ORDER BY c.display_name, c.id LIMIT ${LIMIT}`)
  return json(rows.map(toChannel))
})

/** Channels to search posts in ("in:" suggestions): the caller's own channels of the team. */
const searchAutocomplete = Effect.gen(function*() {
  const caller = yield* requireCaller
  const { team_id } = yield* Decode.params(TeamIdParams)
  const { name } = yield* Decode.query(NameQuery)
  const access = yield* Access
  yield* access.team(caller, team_id)
  const db = yield* Db
  const sql = db.sql
  const rows = yield* db.read(sql<ChannelRow>`
    SELECT c.* FROM channel_members cm JOIN channels c ON c.id = cm.channel_id
    WHERE cm.user_id = ${caller.userId} AND c.team_id = ${team_id} AND ${matches(sql, name)}
    ORDER BY c.display_name, c.id LIMIT ${LIMIT}`)
  return json(rows.map(toChannel))
})

const SearchBody = Schema.Struct({ term: Schema.String.pipe(Schema.maxLength(256)) })

/** Public channels (live or archived) whose name or display name starts with the term. */
const search = (archived: boolean) =>
  Effect.gen(function*() {
    const caller = yield* requireCaller
    const { team_id } = yield* Decode.params(TeamIdParams)
    const { term } = yield* Decode.body(SearchBody)
    const access = yield* Access
    yield* access.team(caller, team_id)
    const db = yield* Db
    const sql = db.sql
    const rows = yield* db.read(sql<ChannelRow>`
      SELECT c.* FROM channels c
      WHERE c.team_id = ${team_id} AND c.type = 'O' AND ${archived ? sql`c.delete_at <> 0` : sql`c.delete_at = 0`}
        AND ${matches(sql, term.trim())}
      ORDER BY c.display_name, c.id LIMIT 100`)
    return json(rows.map(toChannel))
  })

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v4/teams/:team_id/channels", publicChannels),
  HttpRouter.get("/api/v4/teams/:team_id/channels/deleted", deletedChannels),
  HttpRouter.get("/api/v4/teams/:team_id/channels/private", privateChannels),
  HttpRouter.get("/api/v4/teams/:team_id/channels/autocomplete", autocomplete),
  HttpRouter.get("/api/v4/teams/:team_id/channels/search_autocomplete", searchAutocomplete),
  HttpRouter.post("/api/v4/teams/:team_id/channels/search", search(false)),
  HttpRouter.post("/api/v4/teams/:team_id/channels/search_archived", search(true)),
  HttpRouter.get("/api/v4/teams/:team_id/channels/name/:channel_name", channelByName),
  HttpRouter.get("/api/v4/teams/name/:team_name/channels/name/:channel_name", channelByTeamAndChannelName)
)

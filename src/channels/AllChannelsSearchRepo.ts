import type { Statement } from "@effect/sql"
import { Context, Effect, Layer, Schema } from "effect"
import { Db, type DbError } from "../../layers/Db.ts"
import { Int8Text, rows } from "../../layers/Rows.ts"
import type { AllChannelsSearchBody } from "../../schemas/ChannelSearch.ts"
import { likePrefix } from "../search/Like.ts"
import { ChannelRow } from "./ChannelRows.ts"



/** Channel search across teams, within what the caller may see. */
export const ChannelWithTeamRow = Schema.Struct({
  ...ChannelRow.fields,
  team_display_name: Schema.String,
  team_name: Schema.String,
  team_update_at: Int8Text,
  total: Int8Text
})
export type ChannelWithTeamRow = typeof ChannelWithTeamRow.Type
const ChannelsWithTeam = rows("AllChannelsSearchRepo search", ChannelWithTeamRow)

/** GET /channels (the System Console's list): every team channel, for system admins. */
export interface AllChannelsListOptions {
  readonly includeDeleted: boolean
  readonly excludeDefaultChannels: boolean
}

export interface AllChannelsSearchRepoService {
  readonly list: (options: AllChannelsListOptions, limit: number, offset: number) => Effect.Effect<ReadonlyArray<ChannelWithTeamRow>, DbError>
  readonly search: (
    viewer: { readonly userId: string; readonly isAdmin: boolean },
    q: AllChannelsSearchBody,
    limit: number,
    offset: number
  ) => Effect.Effect<ReadonlyArray<ChannelWithTeamRow>, DbError>
}

export class AllChannelsSearchRepo extends Context.Tag("service/AllChannelsSearchRepo")<AllChannelsSearchRepo, AllChannelsSearchRepoService>() {}

const prefix = (term: string) => likePrefix(term.toLowerCase())

export const make = Effect.gen(function*() {
  const db = yield* Db
  const sql = db.sql
  const page = (filters: Array<Statement.Fragment>, limit: number, offset: number) =>
    db.read(sql`
      SELECT c.*, t.display_name AS team_display_name, t.name AS team_name, t.update_at AS team_update_at, count(*) OVER () AS total
      FROM channels c JOIN teams t ON t.id = c.team_id
      WHERE ${sql.and(filters)}
      ORDER BY c.display_name, c.id LIMIT ${limit} OFFSET ${offset}`.pipe(ChannelsWithTeam))
  const service: AllChannelsSearchRepoService = {
    list: (options, limit, offset) => {
      const filters = [sql`c.team_id <> ''`, sql`t.delete_at = 0`]
      if (!options.includeDeleted) filters.push(sql`c.delete_at = 0`)
      // Mattermost's default channels, which every team member is in.
      if (options.excludeDefaultChannels) filters.push(sql`c.name NOT IN ('town-square', 'off-topic')`)
      return page(filters, limit, offset)
    },
    search: (viewer, q, limit, offset) => {
      const term = q.term.trim()
      const filters = [
        sql`c.team_id <> ''`,
        sql`t.delete_at = 0`,
        // Name, display name or purpose, as Mattermost's channel search.
        sql`(lower(c.name) LIKE ${prefix(term)} OR lower(c.display_name) LIKE ${prefix(term)} OR lower(c.purpose) LIKE ${prefix(term)})`
      ]
      if (q.deleted) filters.push(sql`c.delete_at <> 0`)
      else if (!q.include_deleted) filters.push(sql`c.delete_at = 0`)
      if (q.exclude_default_channels) filters.push(sql`c.name NOT IN ('town-square', 'off-topic')`)
      if (q.team_ids !== undefined && q.team_ids.length > 0) filters.push(sql`c.team_id IN ${sql.in(q.team_ids)}`)
      if (q.public === true && q.private !== true) filters.push(sql`c.type = 'O'`)
      if (q.private === true && q.public !== true) filters.push(sql`c.type = 'P'`)
      if (!viewer.isAdmin) {
        // Others see the public channels of their teams and the private channels they belong to.
        filters.push(sql`(
          (c.type = 'O' AND EXISTS (SELECT 1 FROM team_members tm WHERE tm.team_id = c.team_id AND tm.user_id = ${viewer.userId} AND tm.delete_at = 0))
          OR EXISTS (SELECT 1 FROM channel_members cm WHERE cm.channel_id = c.id AND cm.user_id = ${viewer.userId}))`)
      }
      return page(filters, limit, offset)
    }
  }
  return service
})

export const layer = Layer.effect(AllChannelsSearchRepo, make)

import type { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { Int8Text, rows, StringList } from "../../layers/Rows.ts"
import { Invalid } from "../../schemas/Errors.ts"
import { ChannelCategory } from "../../schemas/wire/ChannelCategory.ts"
import { type CategoryRow, SORT_DISTANCE, toCategory } from "./CategoryWire.ts"
import * as Sidebar from "./Sidebar.ts"
import { anyText } from "../../layers/SqlArrays.ts"

/** A category row with its position and channel ids (CategoryWire.ts's CategoryRow, decoded). */
const Categories = rows("CategoryStore list", Schema.Struct({
  id: Schema.String,
  user_id: Schema.String,
  team_id: Schema.String,
  display_name: Schema.String,
  type: ChannelCategory.fields.type,
  sort_order: Int8Text,
  position: Int8Text,
  sorting: ChannelCategory.fields.sorting,
  muted: Schema.Boolean,
  collapsed: Schema.Boolean,
  channel_ids: StringList
}))
const ChannelTypes = rows("CategoryStore channel types", Schema.Struct({ id: Schema.String, type: Schema.String }))

/** Reads and rewrites of one user's categories of one team; statements run inside the caller's transaction. */

/** The user's categories of the team in sidebar order, each with its channel ids in order (one query). */
export const list = (sql: SqlClient.SqlClient, userId: string, teamId: string) =>
  Effect.map(
    sql`
      SELECT cat.*, row_number() OVER (ORDER BY cat.sort_order, cat.id) - 1 AS position,
             COALESCE(array_agg(sc.channel_id ORDER BY sc.sort_order, sc.channel_id) FILTER (WHERE sc.channel_id IS NOT NULL), '{}') AS channel_ids
      FROM sidebar_categories cat LEFT JOIN sidebar_channels sc ON sc.category_id = cat.id
      WHERE cat.user_id = ${userId} AND cat.team_id = ${teamId}
      GROUP BY cat.id
      ORDER BY cat.sort_order, cat.id`.pipe(Categories),
    (rows) => rows.map(toCategory)
  )

export interface CategoryUpdate {
  readonly id: string
  readonly display_name?: string | undefined
  readonly sorting?: string | undefined
  readonly muted?: boolean | undefined
  readonly collapsed?: boolean | undefined
  readonly channel_ids?: ReadonlyArray<string> | undefined
}

const invalid = (message: string) => new Invalid({ id: "api.sidebar_category.invalid.app_error", message })

/**
 * Checks that channel ids are channels of the user that can sit in this team's sidebar, and that default categories
 * keep their kind: no DMs in "channels", no team channels in "direct_messages".
 */
const checkChannels = (sql: SqlClient.SqlClient, userId: string, teamId: string, updates: ReadonlyArray<{ type: string; channel_ids: ReadonlyArray<string> }>) =>
  Effect.gen(function*() {
    const ids = [...new Set(updates.flatMap((u) => u.channel_ids))]
    if (ids.length === 0) return
    const rows = yield* sql`
      SELECT c.id, c.type FROM channel_members cm JOIN channels c ON c.id = cm.channel_id
      WHERE cm.user_id = ${userId} AND cm.channel_id = ${anyText(sql, ids)} AND (c.team_id = ${teamId} OR c.team_id = '')`.pipe(ChannelTypes)
    if (rows.length !== ids.length) return yield* invalid("A category may only hold channels of this team that the user belongs to.")
    const direct = new Set(rows.filter((r) => r.type === "D" || r.type === "G").map((r) => r.id))
    for (const u of updates) {
      if (u.type === "channels" && u.channel_ids.some((id) => direct.has(id))) {
        return yield* invalid("Direct and group messages cannot be placed in the Channels category.")
      }
      if (u.type === "direct_messages" && u.channel_ids.some((id) => !direct.has(id))) {
        return yield* invalid("Only direct and group messages can be placed in the Direct Messages category.")
      }
    }
    const seen = new Set<string>()
    for (const id of updates.flatMap((u) => u.channel_ids)) {
      if (seen.has(id)) return yield* invalid("A channel can be in only one category.")
      seen.add(id)
    }
  })

/** Replaces a category's channels: they leave their other categories; channels it drops go back to the defaults. */
const setChannels = (sql: SqlClient.SqlClient, userId: string, teamId: string, categoryId: string, channelIds: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    yield* sql`
      DELETE FROM sidebar_channels sc USING sidebar_categories cat
      WHERE cat.id = sc.category_id AND cat.user_id = ${userId} AND cat.team_id = ${teamId}
        AND (sc.category_id = ${categoryId} OR sc.channel_id = ${anyText(sql, channelIds.length > 0 ? channelIds : [""])})`
    if (channelIds.length === 0) return
    yield* sql`
      INSERT INTO sidebar_channels (category_id, channel_id, user_id, sort_order)
      SELECT ${categoryId}, e.channel_id, ${userId}, (e.ord - 1) * 10
      FROM unnest(${channelIds}::text[]) WITH ORDINALITY AS e(channel_id, ord)`
  })

/** Applies updates to existing categories of the user and team; every channel still ends in exactly one category. */
export const update = (sql: SqlClient.SqlClient, userId: string, teamId: string, updates: ReadonlyArray<CategoryUpdate>, now: number) =>
  Effect.gen(function*() {
    const current = yield* list(sql, userId, teamId)
    const byId = new Map(current.map((c) => [c.id, c]))
    const resolved = []
    for (const u of updates) {
      const existing = byId.get(u.id)
      if (existing === undefined) return yield* invalid(`Unknown category ${u.id}.`)
      if (u.display_name !== undefined && u.display_name !== existing.display_name) {
        if (existing.type !== "custom") return yield* invalid("Only custom categories can be renamed.")
        if (u.display_name.trim() === "" || [...u.display_name].length > 64) return yield* invalid("Category names must be 1 to 64 characters.")
      }
      resolved.push({ ...u, type: existing.type, channel_ids: u.channel_ids ?? existing.channel_ids, existing })
    }
    yield* checkChannels(sql, userId, teamId, resolved)
    for (const u of resolved) {
      yield* sql`
        UPDATE sidebar_categories SET
          display_name = ${u.display_name?.trim() ?? u.existing.display_name},
          sorting = ${u.sorting ?? u.existing.sorting},
          muted = ${u.muted ?? u.existing.muted},
          collapsed = ${u.collapsed ?? u.existing.collapsed}
        WHERE id = ${u.id}`
      if (u.channel_ids !== u.existing.channel_ids) yield* setChannels(sql, userId, teamId, u.id, u.channel_ids)
    }
    // Muting a category mutes its channels, as in Mattermost (their unread state only shows mentions).
    for (const u of resolved) {
      if (u.muted !== undefined && u.muted !== u.existing.muted && u.channel_ids.length > 0) {
        yield* sql`
          UPDATE channel_members SET notify_props = notify_props || ${JSON.stringify({ mark_unread: u.muted ? "mention" : "all" })}::jsonb,
                 last_update_at = ${now}
          WHERE user_id = ${userId} AND channel_id = ${anyText(sql, u.channel_ids)}`
      }
    }
    yield* Sidebar.ensure(sql, userId, teamId, now)
  })

/** Rewrites the order of the user's categories of a team; it must name each of them once. */
export const reorder = (sql: SqlClient.SqlClient, userId: string, teamId: string, order: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const current = yield* list(sql, userId, teamId)
    const ids = new Set(current.map((c) => c.id))
    if (order.length !== ids.size || new Set(order).size !== order.length || order.some((id) => !ids.has(id))) {
      return yield* invalid("The order must list every category of the team exactly once.")
    }
    yield* sql`
      UPDATE sidebar_categories cat SET sort_order = (e.ord - 1) * ${SORT_DISTANCE}
      FROM unnest(${order}::text[]) WITH ORDINALITY AS e(id, ord)
      WHERE cat.id = e.id AND cat.user_id = ${userId}`
  })

/**
 * Renumbers the user's categories of a team 0, 10, 20... in their current order, as Mattermost keeps them, after a
 * category was placed between two others or removed.
 */
export const renumber = (sql: SqlClient.SqlClient, userId: string, teamId: string) =>
  Effect.asVoid(sql`
    UPDATE sidebar_categories cat SET sort_order = ranked.position * ${SORT_DISTANCE}
    FROM (SELECT id, row_number() OVER (ORDER BY sort_order, id) - 1 AS position
          FROM sidebar_categories WHERE user_id = ${userId} AND team_id = ${teamId}) ranked
    WHERE cat.id = ranked.id AND cat.sort_order <> ranked.position * ${SORT_DISTANCE}`)

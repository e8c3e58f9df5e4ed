import type { ChannelCategory } from "../../schemas/wire/ChannelCategory.ts"

/**
 * ChannelCategory of @mattermost/types, from a category row with its channel ids aggregated in order, plus the
 * `sort_order` of Mattermost's SidebarCategory (the mobile app stores `sort_order / 10` and sorts by it): the
 * category's position in the sidebar times 10, as Mattermost numbers them.
 */

export interface CategoryRow {
  readonly id: string
  readonly user_id: string
  readonly team_id: string
  readonly display_name: string
  readonly type: ChannelCategory["type"]
  readonly sort_order: string
  readonly position: string
  readonly sorting: ChannelCategory["sorting"]
  readonly muted: boolean
  readonly collapsed: boolean
  readonly channel_ids: ReadonlyArray<string>
}

/** Mattermost's MinimalSidebarSortDistance. */
export const SORT_DISTANCE = 10

export const toCategory = (row: CategoryRow): ChannelCategory => ({
  id: row.id,
  user_id: row.user_id,
  team_id: row.team_id,
  type: row.type,
  display_name: row.display_name,
  sort_order: Number(row.position) * SORT_DISTANCE,
  sorting: row.sorting,
  channel_ids: row.channel_ids,
  muted: row.muted,
  collapsed: row.collapsed
})

export type Category = ChannelCategory

/** ChannelCategory of @mattermost/types, from a category row with its channel ids aggregated in order. */

export interface CategoryRow {
  readonly id: string
  readonly user_id: string
  readonly team_id: string
  readonly display_name: string
  readonly type: string
  readonly sort_order: string
  readonly sorting: string
  readonly muted: boolean
  readonly collapsed: boolean
  readonly channel_ids: ReadonlyArray<string>
}

export const toCategory = (row: CategoryRow) => ({
  id: row.id,
  user_id: row.user_id,
  team_id: row.team_id,
  type: row.type,
  display_name: row.display_name,
  sorting: row.sorting,
  channel_ids: row.channel_ids,
  muted: row.muted,
  collapsed: row.collapsed
})

export type Category = ReturnType<typeof toCategory>

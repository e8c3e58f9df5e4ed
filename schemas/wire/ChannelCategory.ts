import { Schema } from "effect"

/**
 * The ChannelCategory of @mattermost/types (src/categories/CategoryWire.ts) plus the `sort_order` of Mattermost's
 * SidebarCategory, which the mobile app sorts by: the category's position in the sidebar times 10.
 */
export const ChannelCategory = Schema.Struct({
  id: Schema.String,
  user_id: Schema.String,
  team_id: Schema.String,
  type: Schema.Literal("favorites", "channels", "direct_messages", "custom", "managed"),
  display_name: Schema.String,
  sort_order: Schema.Number,
  sorting: Schema.Literal("", "alpha", "recent", "manual"),
  channel_ids: Schema.Array(Schema.String),
  muted: Schema.Boolean,
  collapsed: Schema.Boolean
})
export type ChannelCategory = typeof ChannelCategory.Type

/** The OrderedChannelCategories of @mattermost/types: a team's categories, and their ids in sidebar order. */
export const OrderedChannelCategories = Schema.Struct({
  categories: Schema.Array(ChannelCategory),
  order: Schema.Array(Schema.String)
})
export type OrderedChannelCategories = typeof OrderedChannelCategories.Type

/** A team's category ids in sidebar order (`GET` and `PUT .../categories/order`). */
export const CategoryOrder = Schema.Array(Schema.String)

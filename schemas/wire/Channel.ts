import { Schema } from "effect"

/**
 * The ServerChannel of @mattermost/types (a Channel plus its message totals) as every channel endpoint sends it
 * (src/channels/ChannelWire.ts).
 */
export const Channel = Schema.Struct({
  id: Schema.String,
  create_at: Schema.Number,
  update_at: Schema.Number,
  delete_at: Schema.Number,
  team_id: Schema.String,
  type: Schema.Literal("O", "P", "D", "G"),
  display_name: Schema.String,
  name: Schema.String,
  header: Schema.String,
  purpose: Schema.String,
  last_post_at: Schema.Number,
  last_root_post_at: Schema.Number,
  creator_id: Schema.String,
  scheme_id: Schema.String,
  group_constrained: Schema.Boolean,
  shared: Schema.Boolean,
  props: Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  /** Data retention policies do not exist here: always null. */
  policy_id: Schema.Null,
  total_msg_count: Schema.Number,
  total_msg_count_root: Schema.Number
})
export type Channel = typeof Channel.Type

/** The ChannelWithTeamData of @mattermost/types (POST /channels/search): a channel with its team's names. */
export const ChannelWithTeamData = Schema.Struct({
  ...Channel.fields,
  team_display_name: Schema.String,
  team_name: Schema.String,
  team_update_at: Schema.Number
})
export type ChannelWithTeamData = typeof ChannelWithTeamData.Type

/** The ChannelsWithTotalCount of @mattermost/types: a page of POST /channels/search and how many match in all. */
export const ChannelsWithTotalCount = Schema.Struct({ channels: Schema.Array(ChannelWithTeamData), total_count: Schema.Number })
export type ChannelsWithTotalCount = typeof ChannelsWithTotalCount.Type

/** The ChannelStats of @mattermost/types; `files_count` is -1 when the request left it out (exclude_files_count). */
export const ChannelStats = Schema.Struct({
  channel_id: Schema.String,
  member_count: Schema.Number,
  guest_count: Schema.Number,
  pinnedpost_count: Schema.Number,
  files_count: Schema.Number
})
export type ChannelStats = typeof ChannelStats.Type

/** GET /channels/{channel_id}/timezones: the distinct time zones of the channel's active members. */
export const ChannelTimezones = Schema.Array(Schema.String)

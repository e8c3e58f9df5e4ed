import { Schema } from "effect"
import { Int8Text, JsonObject, StringMap } from "../../layers/Rows.ts"

/**
 * The channels and channel_members rows as the repos read them (decoded with layers/Rows.ts). Their bigint columns
 * stay the driver's text, as the row types of ChannelWire.ts declare them (the wire mapping converts them).
 */
export const ChannelRow = Schema.Struct({
  id: Schema.String,
  create_at: Int8Text,
  update_at: Int8Text,
  delete_at: Int8Text,
  team_id: Schema.String,
  type: Schema.String,
  display_name: Schema.String,
  name: Schema.String,
  header: Schema.String,
  purpose: Schema.String,
  last_post_at: Int8Text,
  last_root_post_at: Int8Text,
  total_msg_count: Int8Text,
  total_msg_count_root: Int8Text,
  creator_id: Schema.String,
  group_constrained: Schema.Boolean,
  shared: Schema.Boolean,
  props: Schema.NullOr(JsonObject)
})
export type ChannelRow = typeof ChannelRow.Type

export const ChannelMemberRow = Schema.Struct({
  channel_id: Schema.String,
  user_id: Schema.String,
  roles: Schema.String,
  last_viewed_at: Int8Text,
  msg_count: Int8Text,
  msg_count_root: Int8Text,
  mention_count: Int8Text,
  mention_count_root: Int8Text,
  urgent_mention_count: Int8Text,
  notify_props: StringMap,
  last_update_at: Int8Text,
  scheme_guest: Schema.Boolean,
  scheme_user: Schema.Boolean,
  scheme_admin: Schema.Boolean
})
export type ChannelMemberRow = typeof ChannelMemberRow.Type

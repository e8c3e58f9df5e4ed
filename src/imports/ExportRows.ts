import { Schema } from "effect"
import { IdRow, Int8, JsonObject, rows, StringMap } from "../../layers/Rows.ts"

/**
 * The rows the export (Exporter.ts) reads, each naming the columns it writes out, decoded with layers/Rows.ts.
 * Statements that select `*` still bring the table's other columns (kept as they come), but the export reads none.
 * Bigint columns are decoded to numbers, as the import format has them.
 */

export const UserNames = rows("Exporter user names", Schema.Struct({ id: Schema.String, username: Schema.String }))
export const Teams = rows("Exporter teams", Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  display_name: Schema.String,
  type: Schema.String,
  description: Schema.String,
  allow_open_invite: Schema.Boolean
}))
export const Channels = rows("Exporter channels", Schema.Struct({
  id: Schema.String,
  team_id: Schema.String,
  name: Schema.String,
  display_name: Schema.String,
  type: Schema.String,
  header: Schema.String,
  purpose: Schema.String,
  delete_at: Int8
}))
export const Users = rows("Exporter users", Schema.Struct({
  id: Schema.String,
  username: Schema.String,
  email: Schema.String,
  auth_service: Schema.String,
  auth_data: Schema.NullOr(Schema.String),
  password: Schema.String,
  nickname: Schema.String,
  first_name: Schema.String,
  last_name: Schema.String,
  position: Schema.String,
  roles: Schema.String,
  locale: Schema.String,
  delete_at: Int8,
  last_picture_update: Int8,
  notify_props: StringMap
}))
export const TeamMembers = rows("Exporter team members", Schema.Struct({
  team_id: Schema.String,
  user_id: Schema.String,
  scheme_guest: Schema.Boolean,
  scheme_admin: Schema.Boolean
}))
const ChannelMemberRow = Schema.Struct({
  channel_id: Schema.String,
  user_id: Schema.String,
  scheme_guest: Schema.Boolean,
  scheme_admin: Schema.Boolean,
  notify_props: StringMap,
  msg_count: Int8,
  msg_count_root: Int8,
  mention_count: Int8,
  mention_count_root: Int8,
  urgent_mention_count: Int8,
  last_viewed_at: Int8
})
export type ChannelMemberRow = typeof ChannelMemberRow.Type
export const ChannelMembers = rows("Exporter channel members", ChannelMemberRow)
export const TeamChannelMembers = rows("Exporter team channel members", Schema.Struct({
  ...ChannelMemberRow.fields,
  team_id: Schema.String
}))
export const Preferences = rows("Exporter preferences", Schema.Struct({
  user_id: Schema.String,
  category: Schema.String,
  name: Schema.String,
  value: Schema.String
}))
export const Bots = rows("Exporter bots", Schema.Struct({ user_id: Schema.String, description: Schema.String, owner_id: Schema.String }))
export const BotUsers = rows("Exporter bot users", Schema.Struct({
  id: Schema.String,
  username: Schema.String,
  first_name: Schema.String,
  delete_at: Int8,
  description: Schema.String,
  owner_id: Schema.String
}))
export const Emoji = rows("Exporter emoji", Schema.Struct({ id: Schema.String, name: Schema.String }))
const PostRow = Schema.Struct({
  id: Schema.String,
  channel_id: Schema.String,
  user_id: Schema.String,
  root_id: Schema.String,
  create_at: Int8,
  edit_at: Int8,
  message: Schema.String,
  type: Schema.String,
  props: JsonObject,
  is_pinned: Schema.Boolean
})
export type PostRow = typeof PostRow.Type
export const Posts = rows("Exporter posts", PostRow)
export const Reactions = rows("Exporter reactions", Schema.Struct({
  post_id: Schema.String,
  user_id: Schema.String,
  emoji_name: Schema.String,
  create_at: Int8
}))
export const Flags = rows("Exporter flags", Schema.Struct({ name: Schema.String, user_id: Schema.String }))
export const PostFiles = rows("Exporter post files", Schema.Struct({ post_id: Schema.String, path: Schema.String, name: Schema.String }))
export const Followers = rows("Exporter thread followers", Schema.Struct({
  post_id: Schema.String,
  user_id: Schema.String,
  last_viewed: Int8,
  unread_mentions: Int8
}))
export const UserIds = rows("Exporter user ids", Schema.Struct({ user_id: Schema.String }))
export const Files = rows("Exporter files", Schema.Struct({ id: Schema.String, path: Schema.String, name: Schema.String }))
export const Ids = rows("Exporter ids", IdRow)

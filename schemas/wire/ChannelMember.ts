import { Schema, Struct } from "effect"

/**
 * The ChannelMembership of @mattermost/types as this server sends it (src/channels/ChannelWire.ts): `roles` with the
 * scheme roles, `explicit_roles` and `scheme_guest` as Mattermost's model has them.
 */
export const ChannelMember = Schema.Struct({
  channel_id: Schema.String,
  user_id: Schema.String,
  roles: Schema.String,
  last_viewed_at: Schema.Number,
  msg_count: Schema.Number,
  msg_count_root: Schema.Number,
  mention_count: Schema.Number,
  mention_count_root: Schema.Number,
  urgent_mention_count: Schema.Number,
  notify_props: Schema.Record({ key: Schema.String, value: Schema.String }),
  last_update_at: Schema.Number,
  scheme_guest: Schema.Boolean,
  scheme_user: Schema.Boolean,
  scheme_admin: Schema.Boolean,
  explicit_roles: Schema.String
})
export type ChannelMember = typeof ChannelMember.Type

/**
 * The ChannelViewResponse of @mattermost/types (POST /channels/members/{user_id}/view and .../mark_read): the
 * last_viewed_at of each channel the call marked read, by channel id.
 */
export const ChannelViewResponse = Schema.Struct({
  status: Schema.Literal("OK"),
  last_viewed_at_times: Schema.Record({ key: Schema.String, value: Schema.Number })
})
export type ChannelViewResponse = typeof ChannelViewResponse.Type

/**
 * `GET /users/{user_id}/channels/{channel_id}/unread`: Mattermost's ChannelUnread, the counts still unread (the
 * channel's totals less the membership's; none but mentions when the member marks unread on mentions only).
 */
export const ChannelUnread = Schema.Struct({
  team_id: Schema.String,
  channel_id: Schema.String,
  user_id: Schema.String,
  msg_count: Schema.Number,
  msg_count_root: Schema.Number,
  mention_count: Schema.Number,
  mention_count_root: Schema.Number,
  urgent_mention_count: Schema.Number,
  last_viewed_at: Schema.Number,
  notify_props: Schema.Record({ key: Schema.String, value: Schema.String })
})
export type ChannelUnread = typeof ChannelUnread.Type

/**
 * `POST /users/{user_id}/posts/{post_id}/set_unread`: Mattermost's ChannelUnreadAt, the membership's counts once
 * the post and every later one are unread (also the post_unread event's data).
 */
export const ChannelUnreadAt = Schema.Struct({
  ...Struct.omit(ChannelUnread.fields, "user_id", "notify_props"),
  post_id: Schema.String
})
export type ChannelUnreadAt = typeof ChannelUnreadAt.Type

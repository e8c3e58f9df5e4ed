import { createHash } from "node:crypto"
import type { Channel } from "../../schemas/wire/Channel.ts"
import type { ChannelMember, ChannelViewResponse } from "../../schemas/wire/ChannelMember.ts"
import { schemeRoles } from "../teams/TeamWire.ts"

/** Channel / ServerChannel and ChannelMembership of @mattermost/types, from their rows. */

export interface ChannelRow {
  readonly id: string
  readonly create_at: string
  readonly update_at: string
  readonly delete_at: string
  readonly team_id: string
  /** "O", "P", "D" or "G" as written by the service; the column itself does not constrain it. */
  readonly type: string
  readonly display_name: string
  readonly name: string
  readonly header: string
  readonly purpose: string
  readonly last_post_at: string
  readonly last_root_post_at: string
  readonly total_msg_count: string
  readonly total_msg_count_root: string
  readonly creator_id: string
  readonly group_constrained: boolean
  readonly shared: boolean
  readonly props: Record<string, unknown> | null
}

export interface ChannelMemberRow {
  readonly channel_id: string
  readonly user_id: string
  readonly roles: string
  readonly last_viewed_at: string
  readonly msg_count: string
  readonly msg_count_root: string
  readonly mention_count: string
  readonly mention_count_root: string
  readonly urgent_mention_count: string
  readonly notify_props: Record<string, string>
  readonly last_update_at: string
  readonly scheme_guest: boolean
  readonly scheme_user: boolean
  readonly scheme_admin: boolean
}

/** The ServerChannel (a Channel plus its message totals), as every channel endpoint returns it. */
export const toChannel = (row: ChannelRow): Channel => ({
  id: row.id,
  create_at: Number(row.create_at),
  update_at: Number(row.update_at),
  delete_at: Number(row.delete_at),
  team_id: row.team_id,
  type: row.type as Channel["type"],
  display_name: row.display_name,
  name: row.name,
  header: row.header,
  purpose: row.purpose,
  last_post_at: Number(row.last_post_at),
  last_root_post_at: Number(row.last_root_post_at),
  creator_id: row.creator_id,
  scheme_id: "",
  group_constrained: row.group_constrained,
  shared: row.shared,
  props: row.props ?? null,
  policy_id: null,
  total_msg_count: Number(row.total_msg_count),
  total_msg_count_root: Number(row.total_msg_count_root)
})

export const toChannelMember = (row: ChannelMemberRow): ChannelMember => ({
  channel_id: row.channel_id,
  user_id: row.user_id,
  roles: schemeRoles("channel", row.roles, row),
  last_viewed_at: Number(row.last_viewed_at),
  msg_count: Number(row.msg_count),
  msg_count_root: Number(row.msg_count_root),
  mention_count: Number(row.mention_count),
  mention_count_root: Number(row.mention_count_root),
  urgent_mention_count: Number(row.urgent_mention_count),
  notify_props: row.notify_props,
  last_update_at: Number(row.last_update_at),
  scheme_guest: row.scheme_guest,
  scheme_user: row.scheme_user,
  scheme_admin: row.scheme_admin,
  explicit_roles: row.roles
})

/**
 * Precompiled encoder of the ChannelViewResponse wire Schema: channel view is the most frequent write (on
 * src/http/FastPath.ts as on the router), where encoding with the Schema would cost more than the rest of the answer
 * (test/compat/WireMappers.test.ts checks both agree).
 */
export const toViewResponse = (rows: ReadonlyArray<{ readonly channel_id: string; readonly last_viewed_at: string }>): ChannelViewResponse => ({
  status: "OK",
  last_viewed_at_times: Object.fromEntries(rows.map((r) => [r.channel_id, Number(r.last_viewed_at)]))
})

/** Mattermost's GetDefaultChannelNotifyProps. */
export const DEFAULT_CHANNEL_NOTIFY_PROPS: Record<string, string> = {
  desktop: "default",
  email: "default",
  push: "default",
  mark_unread: "all",
  ignore_channel_mentions: "default",
  channel_auto_follow_threads: "off",
  desktop_threads: "default",
  push_threads: "default"
}

/** DM names are the two ids in order; self-DMs repeat the id. */
export const directName = (a: string, b: string) => (a < b ? `${a}__${b}` : `${b}__${a}`)

/** Mattermost's GetGroupNameFromUserIds: the SHA-1 of the sorted ids. */
export const groupName = (ids: ReadonlyArray<string>) => {
  const hash = createHash("sha1")
  for (const id of [...ids].sort()) hash.update(id)
  return hash.digest("hex")
}

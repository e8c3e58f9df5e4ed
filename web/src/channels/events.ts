import { batch } from "@preact/signals"
import type { ServerChannel as Channel, ChannelMembership } from "@mattermost/types/channels"
import { client } from "../app/api.ts"
import { navigate } from "../app/router.ts"
import { currentChannelId, currentTeamId, me, put, teams } from "../app/state.ts"
import { displayName, users } from "../people/state.ts"
import { json, type Handlers } from "../realtime/handlers.ts"
import { applyConversationPrefs } from "./actions.ts"
import { channelLabel, channelPath, channels, dropChannel, members, membersChanged, refreshChannels, reloadCategories } from "./state.ts"

/** Fetches one channel again (restored, or one we were added to in another team) and puts it in the store. */
const refetch = async (channelId: string) => {
  const [channel, member] = await Promise.all([client.getChannel(channelId), client.getMyChannelMember(channelId).catch(() => undefined)])
  batch(() => {
    put(channels, [channel])
    if (member) members.value = { ...members.value, [member.channel_id]: member }
  })
}

const viewed = (channelId: string) => {
  const member = members.value[channelId]
  const channel = channels.value[channelId]
  if (member && channel) members.value = { ...members.value, [channelId]: { ...member, msg_count: channel.total_msg_count, mention_count: 0 } }
}

const name = (channelId: string) => {
  const channel = channels.value[channelId]
  return channel ? (channel.type === "O" || channel.type === "P" ? `~${channelLabel(channel)}` : channelLabel(channel)) : "the channel"
}

/** Channels, memberships and sidebar categories, live: what another person or device changes shows here at once. */
export const channelEvents: Handlers = {
  channel_created: (data) => {
    if (data.team_id === currentTeamId.value || data.team_id === "") void refreshChannels()
  },
  // A rename, new purpose or header: the sidebar and header read the channel; its address follows a new name.
  channel_updated: (data) => {
    const channel = json<Channel | null>(data.channel, null)
    if (!channel?.id) return
    const before = channels.value[channel.id]
    if (!before && !members.value[channel.id]) return
    put(channels, [{ ...before, ...channel }])
    const team = teams.value.find((t) => t.id === (channel.team_id || currentTeamId.value))
    if (currentChannelId.value === channel.id && before && before.name !== channel.name && team) navigate(channelPath(team.name, channel), true)
  },
  channel_converted: (data) => {
    const before = channels.value[data.channel_id]
    if (before) put(channels, [{ ...before, type: data.channel_type }])
  },
  // Archived: gone from the sidebar; open, it stays on screen read-only (as Mattermost shows archived channels).
  channel_deleted: (data) => {
    const before = channels.value[data.channel_id]
    if (before) put(channels, [{ ...before, delete_at: data.delete_at || Date.now() }])
  },
  channel_restored: (data) => void refetch(data.channel_id).catch(() => undefined),
  channel_member_updated: (data) => {
    const member = json<ChannelMembership | null>(data.channelMember, null)
    if (!member) return
    if (member.user_id === me.value?.id) members.value = { ...members.value, [member.channel_id]: { ...members.value[member.channel_id], ...member } }
    membersChanged(member.channel_id)
  },
  channel_viewed: (data) => viewed(data.channel_id),
  multiple_channels_viewed: (data) => {
    for (const id of Object.keys(data.channel_times ?? {})) viewed(id)
  },
  post_unread: (data) => {
    const member = members.value[data.channel_id]
    if (member) {
      members.value = {
        ...members.value,
        [data.channel_id]: { ...member, msg_count: data.msg_count, mention_count: data.mention_count, last_viewed_at: data.last_viewed_at }
      }
    }
  },
  user_added: (data, broadcast) => {
    const channelId = broadcast.channel_id as string
    if (!channelId) return
    if (data.user_id === me.value?.id) void refetch(channelId).then(() => reloadCategories(), () => undefined)
    else membersChanged(channelId)
  },
  // Two copies: the removed person's own (channel_id, to their sockets) and the channel's (user_id, to its members).
  user_removed: (data, broadcast) => {
    const mine = data.channel_id !== undefined || data.user_id === me.value?.id
    const channelId = (data.channel_id ?? broadcast.channel_id) as string
    if (!channelId) return
    if (!mine) return membersChanged(channelId)
    if (!channels.value[channelId]) return
    const self = !data.remover_id || data.remover_id === me.value?.id
    const remover = self ? undefined : (users.value[data.remover_id] && displayName(users.value[data.remover_id]))
    dropChannel(channelId, self ? `You left ${name(channelId)}.` : `You were removed from ${name(channelId)}${remover ? ` by ${remover}` : ""}.`)
  },
  // Direct and group messages closed or opened again on another device.
  preferences_changed: (data) => applyConversationPrefs(json(data.preferences, [])),
  preferences_deleted: (data) => applyConversationPrefs(json(data.preferences, []), true),
  direct_added: () => void refreshChannels(),
  group_added: () => void refreshChannels(),
  sidebar_category_created: () => void reloadCategories(),
  sidebar_category_updated: () => void reloadCategories(),
  sidebar_category_deleted: () => void reloadCategories(),
  sidebar_category_order_updated: () => void reloadCategories()
}

import { batch, computed, signal } from "@preact/signals"
import type { ServerChannel as Channel, ChannelMembership } from "@mattermost/types/channels"
import type { ChannelCategory } from "@mattermost/types/channel_categories"
import type { Team } from "@mattermost/types/teams"
import { client } from "../app/api.ts"
import { navigate } from "../app/router.ts"
import { currentChannelId, currentTeamId, me, notice, put, teams } from "../app/state.ts"
import { displayName, needUsers, users } from "../people/state.ts"

export const channels = signal<Record<string, Channel>>({})
export const members = signal<Record<string, ChannelMembership>>({})
export const categories = signal<Array<ChannelCategory>>([])

export const channelLabel = (channel: Channel) => {
  if (channel.type === "D") {
    const other = channel.name.split("__").find((id) => id !== me.value?.id) ?? me.value?.id ?? ""
    return displayName(users.value[other], "Direct message")
  }
  return channel.display_name || channel.name
}

/** The address of a channel: DMs by the other person's username, group messages and channels by name. */
export const channelPath = (teamName: string, channel: Channel) => {
  if (channel.type === "D") {
    const other = channel.name.split("__").find((id) => id !== me.value?.id) ?? me.value?.id ?? ""
    return `/${teamName}/messages/@${users.value[other]?.username ?? other}`
  }
  return channel.type === "G" ? `/${teamName}/messages/${channel.name}` : `/${teamName}/channels/${channel.name}`
}

export const unread = (channelId: string) => {
  const channel = channels.value[channelId]
  const member = members.value[channelId]
  if (!channel || !member) return { unread: false, mentions: 0 }
  // A muted channel (mark_unread "mention") counts as unread only for its mentions, as in Mattermost.
  const muted = (member.notify_props as { mark_unread?: string } | undefined)?.mark_unread === "mention"
  return { unread: muted ? member.mention_count > 0 : channel.total_msg_count > member.msg_count, mentions: member.mention_count }
}

export const totalMentions = computed(() => Object.values(members.value).reduce((n, m) => n + (m.mention_count ?? 0), 0))

export const loadTeam = async (team: Team) => {
  const [mine, memberships, cats] = await Promise.all([
    client.getMyChannels(team.id),
    client.getMyChannelMembers(team.id),
    client.getChannelCategories("me", team.id)
  ])
  batch(() => {
    put(channels, mine)
    members.value = { ...members.value, ...Object.fromEntries(memberships.map((m) => [m.channel_id, m])) }
    categories.value = cats.categories
    currentTeamId.value = team.id
  })
  needUsers(mine.filter((c) => c.type === "D").flatMap((c) => c.name.split("__")))
}

export const reloadCategories = async () => {
  if (!currentTeamId.value) return
  categories.value = (await client.getChannelCategories("me", currentTeamId.value)).categories
}

/** Favourites: moving a channel in or out (back to its default category), as Mattermost's sidebar does. */
export const isFavourite = (channelId: string) => categories.value.some((c) => c.type === "favorites" && c.channel_ids.includes(channelId))

export const toggleFavourite = async (channel: Channel) => {
  const userId = me.value!.id
  const teamId = currentTeamId.value
  const favourites = categories.value.find((c) => c.type === "favorites")
  if (!favourites || !teamId) return
  const home = categories.value.find((c) => c.type === (channel.type === "D" || channel.type === "G" ? "direct_messages" : "channels"))
  const updates = isFavourite(channel.id)
    ? [{ ...favourites, channel_ids: favourites.channel_ids.filter((id) => id !== channel.id) }, ...(home ? [{ ...home, channel_ids: [channel.id, ...home.channel_ids] }] : [])]
    : [{ ...favourites, channel_ids: [channel.id, ...favourites.channel_ids] }]
  await client.updateChannelCategories(userId, teamId, updates)
  await reloadCategories()
}

/** `remote` false: read here at once, told to the server later (the channel view first reads its unread posts). */
export const markViewed = async (channelId: string, remote = true) => {
  const channel = channels.value[channelId]
  const member = members.value[channelId]
  if (channel && member) {
    members.value = { ...members.value, [channelId]: { ...member, msg_count: channel.total_msg_count, mention_count: 0, last_viewed_at: Date.now() } }
  }
  if (remote) await client.viewMyChannel(channelId).catch(() => {})
}

export const refreshChannels = async () => {
  const team = teams.value.find((t) => t.id === currentTeamId.value)
  if (team) await loadTeam(team)
}

/**
 * Per channel, a number that grows whenever its members change (someone added, removed, their channel roles): views
 * that list members read it and fetch again.
 */
export const membersVersion = signal<Record<string, number>>({})
export const membersChanged = (channelId: string) => {
  membersVersion.value = { ...membersVersion.value, [channelId]: (membersVersion.value[channelId] ?? 0) + 1 }
}

/**
 * A channel this person can no longer see (removed, or left on another device): when it is the one on screen, the view
 * moves to the team's Town Square first (so the channel's address is not opened again, which would join a public
 * channel anew) and `why` is shown; then it leaves the sidebar.
 */
export const dropChannel = (channelId: string, why: string) => {
  const channel = channels.value[channelId]
  batch(() => {
    if (currentChannelId.value === channelId) {
      const team = teams.value.find((t) => t.id === (channel?.team_id || currentTeamId.value)) ?? teams.value[0]
      if (team) navigate(`/${team.name}/channels/town-square`, true)
      notice.value = why
    }
    const { [channelId]: _c, ...rest } = channels.value
    const { [channelId]: _m, ...others } = members.value
    channels.value = rest
    members.value = others
  })
}

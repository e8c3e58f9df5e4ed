import { batch, signal } from "@preact/signals"
import type { ServerChannel as Channel, ChannelMembership } from "@mattermost/types/channels"
import { client } from "../app/api.ts"
import { currentTeamId, isAdmin, me, put, teams } from "../app/state.ts"
import { navigate } from "../app/router.ts"
import { isTeamAdmin } from "../people/teams.ts"
import { channels, members } from "./state.ts"

/**
 * What a person can do to a channel from its menu, as Mattermost's web app does it: each action calls the API and
 * updates the store from the answer at once (the other members learn of it through their sockets).
 */
export const isChannelAdmin = (channelId: string) => {
  const member = members.value[channelId]
  const channel = channels.value[channelId]
  return isAdmin.value || (channel ? isTeamAdmin(channel.team_id) : false) ||
    (member?.roles ?? "").split(" ").includes("channel_admin") || !!(member as { scheme_admin?: boolean } | undefined)?.scheme_admin
}

export const isTownSquare = (channel: Channel) => channel.name === "town-square"

export const otherUserId = (channel: Channel) => channel.name.split("__").find((id) => id !== me.value?.id) ?? me.value?.id ?? ""

const teamOf = (channel: Channel) => teams.value.find((t) => t.id === (channel.team_id || currentTeamId.value))

export const setChannel = (channel: Channel) => put(channels, [channel])

export const patchChannel = async (channelId: string, patch: Partial<Channel>) => {
  const updated = await client.patchChannel(channelId, patch)
  setChannel(updated)
  return updated
}

/** Renaming the URL moves the address bar along. */
export const renameChannel = async (channel: Channel, displayName: string, name: string) => {
  const updated = await patchChannel(channel.id, { display_name: displayName, name })
  const team = teamOf(updated)
  if (team && updated.name !== channel.name) navigate(`/${team.name}/channels/${updated.name}`, true)
}

export type NotifyProps = { desktop: string; push: string; mark_unread: string }

export const notifyProps = (channelId: string): NotifyProps => {
  const p = (members.value[channelId]?.notify_props ?? {}) as Partial<NotifyProps>
  return { desktop: p.desktop ?? "default", push: p.push ?? "default", mark_unread: p.mark_unread ?? "all" }
}

export const isMuted = (channelId: string) => notifyProps(channelId).mark_unread === "mention"

/** PUT /channels/{id}/members/{user}/notify_props: only the given keys change. */
export const setNotifyProps = async (channelId: string, props: Partial<NotifyProps>) => {
  const userId = me.value!.id
  await client.updateChannelNotifyProps({ channel_id: channelId, user_id: userId, ...props })
  const member = members.value[channelId]
  if (member) members.value = { ...members.value, [channelId]: { ...member, notify_props: { ...member.notify_props, ...props } } as ChannelMembership }
}

export const toggleMute = (channelId: string) => setNotifyProps(channelId, { mark_unread: isMuted(channelId) ? "all" : "mention" })

export const convertToPrivate = async (channel: Channel) => setChannel(await client.updateChannelPrivacy(channel.id, "P"))

/** Archiving keeps the channel open, read-only, as Mattermost does; the sidebar no longer lists it. */
export const archiveChannel = async (channel: Channel) => {
  await client.deleteChannel(channel.id)
  setChannel({ ...channel, delete_at: Date.now() })
}

export const unarchiveChannel = async (channel: Channel) => setChannel(await client.unarchiveChannel(channel.id))

const goHome = (channel: Channel) => {
  const team = teamOf(channel)
  if (team) navigate(`/${team.name}/channels/town-square`)
}

export const leaveChannel = async (channel: Channel) => {
  await client.removeFromChannel(me.value!.id, channel.id)
  batch(() => {
    const { [channel.id]: _gone, ...rest } = members.value
    members.value = rest
  })
  goHome(channel)
}

/**
 * Direct and group messages the person closed (Mattermost's preferences `direct_channel_show` by the other person's
 * id and `group_channel_show` by channel id, value "false"): the sidebar leaves them out until they are opened again
 * or a new message comes.
 */
export const hiddenConversations = signal<Set<string>>(new Set())

const showKey = (channel: Channel) => (channel.type === "D" ? `direct_channel_show:${otherUserId(channel)}` : `group_channel_show:${channel.id}`)

export const isHidden = (channel: Channel) => (channel.type === "D" || channel.type === "G") && hiddenConversations.value.has(showKey(channel))

export const applyConversationPrefs = (prefs: Array<{ category: string; name: string; value?: string }>, deleted = false) => {
  let next: Set<string> | undefined
  for (const p of prefs) {
    if (p.category !== "direct_channel_show" && p.category !== "group_channel_show") continue
    next ??= new Set(hiddenConversations.value)
    const key = `${p.category}:${p.name}`
    if (!deleted && p.value === "false") next.add(key)
    else next.delete(key)
  }
  if (next) hiddenConversations.value = next
}

const saveShow = async (channel: Channel, show: boolean) => {
  const [category, name] = showKey(channel).split(":")
  const pref = { user_id: me.value!.id, category, name, value: show ? "true" : "false" }
  applyConversationPrefs([pref])
  await client.savePreferences(me.value!.id, [pref])
}

export const closeConversation = async (channel: Channel) => {
  await saveShow(channel, false)
  goHome(channel)
}

/** Opening a closed conversation, or a new message in it, lists it again. */
export const showConversation = (channel: Channel) => {
  if (isHidden(channel)) void saveShow(channel, true).catch(() => undefined)
}

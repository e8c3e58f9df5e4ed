import { batch } from "@preact/signals"
import type { ServerChannel as Channel } from "@mattermost/types/channels"
import type { Post } from "@mattermost/types/posts"
import { client } from "../app/api.ts"
import { currentChannelId, currentTeamId, me, put } from "../app/state.ts"
import { showConversation } from "../channels/actions.ts"
import { channels, members, reloadCategories } from "../channels/state.ts"
import { needUsers } from "../people/state.ts"
import { refreshTeamUnreads } from "../people/teams.ts"
import { notifyPost } from "../notifications/desktop.ts"
import { json, type Handlers } from "../realtime/handlers.ts"
import { typing } from "../realtime/typing.ts"
import { addPosts, flagged, postCreated, posts } from "./state.ts"

/** Posts, reactions and saved posts, live. */
const onPosted = async (data: Record<string, any>) => {
  const post = JSON.parse(data.post) as Post
  // Activity in another team shows on the team switcher.
  if (data.team_id && data.team_id !== currentTeamId.value) refreshTeamUnreads()
  let channel = channels.value[post.channel_id]
  if (!channel) {
    // A DM or channel we were just added to: fetch it and its membership, then the sidebar shows it.
    try {
      channel = await client.getChannel(post.channel_id)
      const member = await client.getMyChannelMember(post.channel_id)
      batch(() => {
        put(channels, [channel!])
        members.value = { ...members.value, [member.channel_id]: member }
      })
      if (channel.type === "D") needUsers(channel.name.split("__"))
      void reloadCategories()
    } catch {
      return
    }
  }
  const mine = post.user_id === me.value?.id
  // Direct and group messages always count as mentions (Mattermost's rule, which the server's counts follow).
  const mentioned = mine ? false : channel.type === "D" || channel.type === "G" || (JSON.parse(data.mentions ?? "[]") as Array<string>).includes(me.value?.id ?? "")
  // A closed direct or group message is listed again when a message comes.
  showConversation(channel)
  batch(() => {
    postCreated(post)
    const c = channels.value[post.channel_id]
    if (c) channels.value = { ...channels.value, [c.id]: { ...c, total_msg_count: c.total_msg_count + 1, last_post_at: post.create_at } }
    const member = members.value[post.channel_id]
    if (member) {
      const viewing = currentChannelId.value === post.channel_id && !document.hidden
      members.value = {
        ...members.value,
        [post.channel_id]: viewing || mine
          ? { ...member, msg_count: member.msg_count + 1 }
          : { ...member, mention_count: member.mention_count + (mentioned ? 1 : 0) }
      }
    }
    const t = typing.value[post.channel_id]
    if (t?.[post.user_id]) {
      const { [post.user_id]: _gone, ...rest } = t
      typing.value = { ...typing.value, [post.channel_id]: rest }
    }
  })
  if (currentChannelId.value === post.channel_id && !document.hidden) void client.viewMyChannel(post.channel_id).catch(() => {})
  // Desktop notifications follow Mattermost's rules (notifications/desktop.ts).
  notifyPost(post, channel, json<Array<string>>(data.mentions, []))
}

export const postEvents: Handlers = {
  posted: (data) => void onPosted(data),
  post_edited: (data) => addPosts([JSON.parse(data.post)]),
  // A slash command's or an integration's answer for this user alone (never stored by the server).
  ephemeral_message: (data) => postCreated(JSON.parse(data.post) as Post),
  post_deleted: (data) => {
    const post = JSON.parse(data.post) as Post
    const known = posts.value[post.id]
    addPosts([{ ...(known ?? post), delete_at: post.delete_at || Date.now(), message: "", file_ids: [] } as Post])
  },
  reaction_added: (data) => {
    const reaction = JSON.parse(data.reaction)
    const post = posts.value[reaction.post_id]
    if (!post) return
    const list = (post.metadata?.reactions ?? []).filter((r) => !(r.user_id === reaction.user_id && r.emoji_name === reaction.emoji_name))
    addPosts([{ ...post, metadata: { ...post.metadata, reactions: [...list, reaction] } } as Post])
  },
  reaction_removed: (data) => {
    const reaction = JSON.parse(data.reaction)
    const post = posts.value[reaction.post_id]
    if (!post) return
    const list = (post.metadata?.reactions ?? []).filter((r) => !(r.user_id === reaction.user_id && r.emoji_name === reaction.emoji_name))
    addPosts([{ ...post, metadata: { ...post.metadata, reactions: list } } as Post])
  },
  preferences_changed: (data) => {
    const prefs = JSON.parse(data.preferences ?? "[]") as Array<{ category: string; name: string; value: string }>
    const next = new Set(flagged.value)
    for (const p of prefs) if (p.category === "flagged_post") next.add(p.name)
    flagged.value = next
  },
  preferences_deleted: (data) => {
    const prefs = JSON.parse(data.preferences ?? "[]") as Array<{ category: string; name: string }>
    const next = new Set(flagged.value)
    for (const p of prefs) if (p.category === "flagged_post") next.delete(p.name)
    flagged.value = next
  }
}

import { batch, computed, signal } from "@preact/signals"
import type { ServerChannel as Channel, ChannelMembership } from "@mattermost/types/channels"
import type { ChannelCategory } from "@mattermost/types/channel_categories"
import type { Post } from "@mattermost/types/posts"
import type { Team } from "@mattermost/types/teams"
import type { UserProfile } from "@mattermost/types/users"
import { client, socket, socketUrl } from "./api.ts"

/**
 * The app's state: plain signals keyed by id, updated by API answers and WebSocket events. Components read only the
 * signals they show, so an event touches only what depends on it (no store-wide re-render, no reducer boilerplate).
 */
export const config = signal<Record<string, string>>({})
export const me = signal<UserProfile | null>(null)
export const teams = signal<Array<Team>>([])
export const channels = signal<Record<string, Channel>>({})
export const members = signal<Record<string, ChannelMembership>>({})
export const categories = signal<Array<ChannelCategory>>([])
export const users = signal<Record<string, UserProfile>>({})
export const statuses = signal<Record<string, string>>({})
export const posts = signal<Record<string, Post>>({})
/** Per channel: post ids oldest first (root posts and replies), and whether older history remains. */
export const timelines = signal<Record<string, { order: Array<string>; more: boolean }>>({})
export const typing = signal<Record<string, Record<string, number>>>({})
export const connected = signal(true)
export const currentChannelId = signal<string>("")
export const currentTeamId = signal<string>("")
export const flagged = signal<Set<string>>(new Set())
/** Display preferences (Mattermost's display_settings category): 24-hour clock, collapsed reply threads. */
export const militaryTime = signal(false)
export const collapsedThreads = signal(true)

export const isAdmin = computed(() => (me.value?.roles ?? "").split(" ").includes("system_admin"))

export const displayName = (user: UserProfile | undefined) => (user ? user.username : "someone")

export const channelLabel = (channel: Channel) => {
  if (channel.type === "D") {
    const other = channel.name.split("__").find((id) => id !== me.value?.id) ?? me.value?.id ?? ""
    return users.value[other]?.username ?? "Direct message"
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
  return { unread: channel.total_msg_count > member.msg_count, mentions: member.mention_count }
}

export const totalMentions = computed(() => Object.values(members.value).reduce((n, m) => n + (m.mention_count ?? 0), 0))

const put = <T extends { id: string }>(store: { value: Record<string, T> }, items: Array<T>) => {
  if (items.length === 0) return
  const next = { ...store.value }
  for (const item of items) next[item.id] = item
  store.value = next
}

const missingUsers = new Set<string>()
let userTimer: ReturnType<typeof setTimeout> | undefined
/** Profiles are fetched in one batch for every unknown id seen in the same tick. */
export const needUsers = (ids: Array<string>) => {
  for (const id of ids) if (id && !users.value[id]) missingUsers.add(id)
  if (missingUsers.size === 0 || userTimer) return
  userTimer = setTimeout(async () => {
    userTimer = undefined
    const ids = [...missingUsers]
    missingUsers.clear()
    try {
      put(users, await client.getProfilesByIds(ids))
      const found = await client.getStatusesByIds(ids)
      statuses.value = { ...statuses.value, ...Object.fromEntries(found.map((s) => [s.user_id, s.status])) }
    } catch {}
  }, 0)
}

export const addPosts = (list: Array<Post>) => {
  put(posts, list)
  needUsers(list.map((p) => p.user_id))
}

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

const PAGE = 60

/**
 * Posts that arrived for a channel (our own sends, socket events) while a fetch of its first page was under way: the
 * page may have been read before they were written, so the merge keeps them rather than losing a message sent while
 * the channel was still loading.
 */
const loadsUnderWay = new Set<{ readonly channelId: string; readonly arrived: Set<string> }>()

/**
 * First page of a channel (or the newest posts after a reconnect), merged into what is known: posts older than the
 * page stay, and so do posts deleted while we watched (shown as deleted until the channel is reloaded, as Mattermost
 * does) and posts that arrived while the page was fetched; other posts missing from the page's time range are gone.
 */
export const loadChannel = async (channelId: string) => {
  const load = { channelId, arrived: new Set<string>() }
  loadsUnderWay.add(load)
  let list: Awaited<ReturnType<typeof client.getPosts>>
  try {
    list = await client.getPosts(channelId, 0, PAGE, false, false)
  } finally {
    loadsUnderWay.delete(load)
  }
  // The channel view measures "channel-paint" from here to the frame after it rendered these posts.
  performance.mark("channel-data")
  const fresh = new Set(list.order)
  const oldest = Math.min(...list.order.map((id) => list.posts[id].create_at), Number.MAX_SAFE_INTEGER)
  batch(() => {
    addPosts(Object.values(list.posts))
    const old = timelines.value[channelId]
    const known = new Set([...(old?.order ?? []), ...load.arrived])
    const keep = [...known].filter((id) => {
      const p = posts.value[id]
      return p && !fresh.has(id) && (p.create_at < oldest || p.delete_at > 0 || load.arrived.has(id))
    })
    const order = [...keep, ...list.order].sort((a, b) => posts.value[a].create_at - posts.value[b].create_at)
    const more = old ? old.more || keep.some((id) => posts.value[id].create_at < oldest) : list.order.length >= PAGE
    timelines.value = { ...timelines.value, [channelId]: { order, more } }
  })
}

export const loadOlder = async (channelId: string) => {
  const line = timelines.value[channelId]
  if (!line || !line.more || line.order.length === 0) return
  const list = await client.getPostsBefore(channelId, line.order[0], 0, PAGE, false, false)
  const older = [...list.order].reverse().filter((id) => !line.order.includes(id))
  batch(() => {
    addPosts(Object.values(list.posts))
    timelines.value = { ...timelines.value, [channelId]: { order: [...older, ...line.order], more: list.order.length >= PAGE } }
  })
}

export const markViewed = async (channelId: string) => {
  const channel = channels.value[channelId]
  const member = members.value[channelId]
  if (channel && member) {
    members.value = { ...members.value, [channelId]: { ...member, msg_count: channel.total_msg_count, mention_count: 0, last_viewed_at: Date.now() } }
  }
  await client.viewMyChannel(channelId).catch(() => {})
}

const addToTimeline = (post: Post) => {
  for (const load of loadsUnderWay) if (load.channelId === post.channel_id) load.arrived.add(post.id)
  const line = timelines.value[post.channel_id]
  if (!line || line.order.includes(post.id)) return
  timelines.value = { ...timelines.value, [post.channel_id]: { ...line, order: [...line.order, post.id] } }
}

export const postCreated = (post: Post) => {
  batch(() => {
    const known = posts.value[post.id] !== undefined
    addPosts([post])
    addToTimeline(post)
    const root = post.root_id ? posts.value[post.root_id] : undefined
    if (root && !known) addPosts([{ ...root, reply_count: (root.reply_count ?? 0) + 1 }])
  })
}

const notify = (post: Post, channel: Channel | undefined) => {
  if (typeof Notification === "undefined" || Notification.permission !== "granted" || !document.hidden) return
  const sender = users.value[post.user_id]?.username ?? "Someone"
  // A DM is titled by its sender alone ("frank in frank" says nothing more).
  new Notification(channel && channel.type !== "D" ? `${sender} in ${channelLabel(channel)}` : sender, { body: post.message.slice(0, 200), tag: post.id })
}

const onPosted = async (data: Record<string, any>) => {
  const post = JSON.parse(data.post) as Post
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
  const desktop = (me.value?.notify_props as { desktop?: string } | undefined)?.desktop ?? "mention"
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
  if (!mine && (desktop === "all" || (desktop !== "none" && mentioned))) notify(post, channel)
}

const handlers: Record<string, (data: Record<string, any>, broadcast: Record<string, any>) => void> = {
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
  typing: (data, broadcast) => {
    const channelId = broadcast.channel_id as string
    const userId = data.user_id as string
    if (userId === me.value?.id) return
    needUsers([userId])
    typing.value = { ...typing.value, [channelId]: { ...typing.value[channelId], [userId]: Date.now() + 6000 } }
  },
  status_change: (data) => {
    statuses.value = { ...statuses.value, [data.user_id]: data.status }
  },
  channel_viewed: (data) => {
    const member = members.value[data.channel_id]
    const channel = channels.value[data.channel_id]
    if (member && channel) members.value = { ...members.value, [data.channel_id]: { ...member, msg_count: channel.total_msg_count, mention_count: 0 } }
  },
  user_added: (data, broadcast) => {
    if (data.user_id === me.value?.id && broadcast.channel_id) void refreshChannels()
  },
  direct_added: () => void refreshChannels(),
  sidebar_category_updated: () => void reloadCategories(),
  channel_created: () => void refreshChannels(),
  preferences_changed: (data) => {
    const prefs = JSON.parse(data.preferences ?? "[]") as Array<{ category: string; name: string; value: string }>
    const next = new Set(flagged.value)
    for (const p of prefs) if (p.category === "flagged_post") next.add(p.name)
    flagged.value = next
    applyDisplay(prefs)
  },
  preferences_deleted: (data) => {
    const prefs = JSON.parse(data.preferences ?? "[]") as Array<{ category: string; name: string }>
    const next = new Set(flagged.value)
    for (const p of prefs) if (p.category === "flagged_post") next.delete(p.name)
    flagged.value = next
  }
}

export const applyDisplay = (prefs: Array<{ category: string; name: string; value: string }>) => {
  for (const p of prefs) {
    if (p.category !== "display_settings") continue
    if (p.name === "use_military_time") militaryTime.value = p.value === "true"
    if (p.name === "collapsed_reply_threads") collapsedThreads.value = p.value !== "off"
  }
}

/**
 * One formatter per clock, made once: `toLocaleTimeString` with options builds a new Intl.DateTimeFormat on every call
 * (about 0.4 ms each in V8), which alone cost a 60-post channel some 25 ms of its first paint.
 */
const clock12 = new Intl.DateTimeFormat([], { hour: "numeric", minute: "2-digit", hourCycle: "h12" })
const clock24 = new Intl.DateTimeFormat([], { hour: "2-digit", minute: "2-digit", hourCycle: "h23" })

export const formatTime = (at: number) => (militaryTime.value ? clock24 : clock12).format(at)

export const refreshChannels = async () => {
  const team = teams.value.find((t) => t.id === currentTeamId.value)
  if (team) await loadTeam(team)
}

let started = false
/** Opens the socket once signed in; after a reconnect, everything that may have changed meanwhile is fetched again. */
export const startSocket = () => {
  if (started) return
  started = true
  socket.addMessageListener((msg) => {
    const handler = handlers[msg.event]
    if (handler) handler((msg.data ?? {}) as Record<string, any>, (msg.broadcast ?? {}) as Record<string, any>)
  })
  socket.addFirstConnectListener(() => {
    connected.value = true
  })
  socket.addReconnectListener(() => {
    connected.value = true
    void refreshChannels()
    if (currentChannelId.value) void loadChannel(currentChannelId.value)
  })
  socket.addCloseListener(() => {
    connected.value = false
  })
  socket.initialize(socketUrl())
}

export const stopSocket = () => {
  if (!started) return
  started = false
  socket.close()
}

/** Typing indicators expire on their own (the server sends no "stopped typing"). */
setInterval(() => {
  const now = Date.now()
  let changed = false
  const next: Record<string, Record<string, number>> = {}
  for (const [channel, who] of Object.entries(typing.value)) {
    next[channel] = {}
    for (const [user, until] of Object.entries(who)) {
      if (until > now) next[channel][user] = until
      else changed = true
    }
  }
  if (changed) typing.value = next
}, 2000)

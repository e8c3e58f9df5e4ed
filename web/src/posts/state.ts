import { batch, signal } from "@preact/signals"
import type { Post } from "@mattermost/types/posts"
import { militaryTime } from "../account/preferences.ts"
import { client } from "../app/api.ts"
import { put } from "../app/state.ts"
import { needUsers } from "../people/state.ts"

export const posts = signal<Record<string, Post>>({})
/** Per channel: post ids oldest first (root posts and replies), and whether older history remains. */
export const timelines = signal<Record<string, { order: Array<string>; more: boolean }>>({})
export const flagged = signal<Set<string>>(new Set())

export const addPosts = (list: Array<Post>) => {
  put(posts, list)
  needUsers(list.map((p) => p.user_id))
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
    // An ephemeral answer is not stored: it is no reply the thread counts.
    if (root && !known && post.type !== "system_ephemeral") addPosts([{ ...root, reply_count: (root.reply_count ?? 0) + 1 }])
  })
}

/**
 * One formatter per clock, made once: `toLocaleTimeString` with options builds a new Intl.DateTimeFormat on every call
 * (about 0.4 ms each in V8), which alone cost a 60-post channel some 25 ms of its first paint.
 */
const clock12 = new Intl.DateTimeFormat([], { hour: "numeric", minute: "2-digit", hourCycle: "h12" })
const clock24 = new Intl.DateTimeFormat([], { hour: "2-digit", minute: "2-digit", hourCycle: "h23" })

export const formatTime = (at: number) => (militaryTime.value ? clock24 : clock12).format(at)

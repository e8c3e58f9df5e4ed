import { batch, signal } from "@preact/signals"
import type { Post } from "@mattermost/types/posts"
import { collapsedThreads, militaryTime } from "../account/preferences.ts"
import { client } from "../app/api.ts"
import { me, put } from "../app/state.ts"
import { needUsers } from "../people/state.ts"

export const posts = signal<Record<string, Post>>({})
/**
 * Per channel: one loaded stretch of its history, post ids oldest first (root posts and replies), whether older history
 * remains (`more`) and whether newer posts exist past its end (`newer`: a stretch loaded around a permalink or the
 * first unread post, not reaching the present; live posts are not appended to it, scrolling down fetches them).
 */
export type Timeline = { order: Array<string>; more: boolean; newer?: boolean }
export const timelines = signal<Record<string, Timeline>>({})
export const flagged = signal<Set<string>>(new Set())

export const addPosts = (list: Array<Post>) => {
  // The newer of two copies wins: a post's own POST answer or an old page can arrive after the post_edited that
  // carries its link preview (written by a background job moments later), and must not take it back.
  const known = posts.value
  put(posts, list.filter((p) => !(known[p.id] && (known[p.id].update_at ?? 0) > (p.update_at ?? 0))))
  needUsers(list.map((p) => p.user_id))
}

const PAGE = 60
const HALF = PAGE / 2

const byTime = (ids: Iterable<string>) => [...new Set(ids)].filter((id) => posts.value[id]).sort((a, b) => posts.value[a].create_at - posts.value[b].create_at)

/** Replaces what is known of a channel's history with one stretch (the one the reader jumps to). */
const setStretch = (channelId: string, list: { order: Array<string>; posts: Record<string, Post> }, more: boolean, newer: boolean) => {
  batch(() => {
    addPosts(Object.values(list.posts))
    timelines.value = { ...timelines.value, [channelId]: { order: byTime(list.order), more, newer } }
  })
}

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
  const current = timelines.value[channelId]
  // The reader is in a stretch of older history that the newest page does not reach: it stays as it is (scrolling
  // down or "Jump to recent" reaches the present).
  const overlaps = current !== undefined && list.order.some((id) => current.order.includes(id))
  if (current?.newer && !overlaps) {
    addPosts(Object.values(list.posts))
    return
  }
  // A full page that does not meet what was known (a channel left long ago, a long outage): more was written in
  // between than one page holds, so the old posts are dropped rather than shown as if they came right before.
  if (current && current.order.length > 0 && !overlaps && list.order.length >= PAGE && load.arrived.size === 0) {
    setStretch(channelId, list, true, false)
    return
  }
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
    timelines.value = { ...timelines.value, [channelId]: { order, more, newer: false } }
  })
}

/** The newest page alone, replacing a stretch of older history ("Jump to recent", or one's own post sent from there). */
export const loadLatest = async (channelId: string) => {
  const list = await client.getPosts(channelId, 0, PAGE, false, false)
  setStretch(channelId, list, list.order.length >= PAGE, false)
}

/** A permalink's post with up to half a page of posts either side. */
export const loadAround = async (channelId: string, postId: string) => {
  const [post, before, after] = await Promise.all([
    client.getPost(postId),
    client.getPostsBefore(channelId, postId, 0, HALF, false, false),
    client.getPostsAfter(channelId, postId, 0, HALF, false, false)
  ])
  setStretch(channelId, { order: [...before.order, post.id, ...after.order], posts: { ...before.posts, ...after.posts, [post.id]: post } },
    before.order.length >= HALF, after.order.length >= HALF)
}

/** The posts around the caller's first unread one (GET /users/{id}/channels/{id}/posts/unread), both ways. */
export const loadUnread = async (channelId: string) => {
  const list = await client.getPostsUnread(channelId, me.value!.id, HALF, HALF, false, false)
  setStretch(channelId, list, (list.prev_post_id ?? "") !== "", (list.next_post_id ?? "") !== "")
}

/**
 * A channel being opened: its newest page, and when its first unread post (after `since`, the member's last view, read
 * before this view recorded a new one) is older than that page, the posts around it instead. The first unread post
 * (not one's own), and whether it was beyond the newest page.
 */
export const openChannel = async (channelId: string, since: number | null) => {
  await loadChannel(channelId)
  if (since === null) return { unread: null, beyond: false }
  let line = timelines.value[channelId]
  const oldest = line && posts.value[line.order[0]]?.create_at
  const beyond = !!line?.more && oldest !== undefined && oldest > since
  if (beyond) await loadUnread(channelId)
  line = timelines.value[channelId]
  const myId = me.value?.id
  // Under collapsed threads the channel shows root posts only: the line goes above the first unread one of those.
  const unread = line?.order.find((id) => {
    const p = posts.value[id]
    return p.create_at > since && p.user_id !== myId && !(collapsedThreads.value && p.root_id)
  }) ?? null
  return { unread, beyond }
}

export const loadOlder = async (channelId: string) => {
  const first = timelines.value[channelId]?.order[0]
  if (!first || !timelines.value[channelId].more) return
  const list = await client.getPostsBefore(channelId, first, 0, PAGE, false, false)
  // Read again after the wait: posts that arrived meanwhile stay; a stretch replaced meanwhile is left alone.
  const line = timelines.value[channelId]
  if (!line || line.order[0] !== first) return
  batch(() => {
    addPosts(Object.values(list.posts))
    const older = byTime(list.order).filter((id) => !line.order.includes(id))
    timelines.value = { ...timelines.value, [channelId]: { ...line, order: [...older, ...line.order], more: list.order.length >= PAGE } }
  })
}

/** The page after a stretch's newest post; the stretch reaches the present when it comes back short. */
export const loadNewer = async (channelId: string) => {
  const start = timelines.value[channelId]
  const last = start?.order[start.order.length - 1]
  if (!last || !start.newer) return
  const list = await client.getPostsAfter(channelId, last, 0, PAGE, false, false)
  const line = timelines.value[channelId]
  if (!line || line.order[line.order.length - 1] !== last) return
  batch(() => {
    addPosts(Object.values(list.posts))
    const newer = byTime(list.order).filter((id) => !line.order.includes(id))
    timelines.value = { ...timelines.value, [channelId]: { ...line, order: [...line.order, ...newer], newer: list.order.length >= PAGE } }
  })
}

const addToTimeline = (post: Post) => {
  for (const load of loadsUnderWay) if (load.channelId === post.channel_id) load.arrived.add(post.id)
  const line = timelines.value[post.channel_id]
  if (!line || line.order.includes(post.id)) return
  if (line.newer) {
    // Not appended after a gap; one's own message brings the reader to the present, where it shows.
    if (post.user_id === me.value?.id) void loadLatest(post.channel_id).catch(() => undefined)
    return
  }
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

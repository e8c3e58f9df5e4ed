import type { Post } from "@mattermost/types/posts"
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks"
import { collapsedThreads } from "../account/preferences.ts"
import { highlight } from "../shell/panels.ts"
import { CombinedActivity } from "./CombinedActivity.tsx"
import { day, dayLabel, isCompact } from "./grouping.ts"
import { combineRows } from "./userActivity.ts"
import { PostItem } from "./Post.tsx"
import { firstVisible, type Place, restorePlace, savePlace, takeSavedPlace } from "./reading.ts"
import "./reading.css"
import { loadAround, loadLatest, loadNewer, loadOlder, posts, timelines } from "./state.ts"

/**
 * The channel's posts, read back and forth without losing one's place.
 *
 * Windowing: at most MAX posts are in the page; scrolling near an edge adds STEP posts there (from memory, or a page
 * fetched from the server) and drops as many at the far edge. The virtual-list libraries fit chat badly here: virtua
 * has no Preact build (its React one needs preact/compat aliased as react, and its framework-free core is exported as
 * `unstable_core`), and @tanstack/virtual-core positions rows from estimated heights and has no "prepend" mode, so
 * posts whose height is only known once rendered (images, code, attachments) move the view as they are measured.
 * Windows of whole posts keep real heights and need only the anchor below.
 *
 * Anchoring: before every render the first visible post and its offset from the list's top are read (the DOM still
 * shows the previous render), and after it the list is scrolled so that post is at the same offset again: pages
 * inserted above, posts dropped below or above, all leave what is on screen where it was.
 */
const MAX = 200
const STEP = 60
/** Distance from an edge (px) at which more posts are added there. */
const EDGE = 600

type Window = { readonly from: string | null; readonly to: string | null }
type Focus = { readonly id: string; readonly how: "center" | "unread" | Place; readonly flash: boolean }

const shown = (channelId: string) => {
  const collapsed = collapsedThreads.value
  // With collapsed threads replies stay in their thread, except ephemeral answers (an action's reply): the person who
  // clicked sees it where they clicked.
  return (timelines.value[channelId]?.order ?? []).filter((id) => posts.value[id] && (!collapsed || !posts.value[id].root_id || posts.value[id].type === "system_ephemeral"))
}

/** The window's bounds in the list: `from` null is the last MAX posts, `to` null runs to the newest loaded post. */
const bounds = (all: Array<string>, win: Window, pinned: boolean): [number, number] => {
  let end = win.to === null ? all.length : all.indexOf(win.to) + 1
  if (end <= 0) end = all.length
  let start = win.from === null ? Math.max(0, end - MAX) : all.indexOf(win.from)
  if (start < 0 || start >= end) start = Math.max(0, end - MAX)
  // Live posts arriving at the bottom: the oldest go when the reader follows the newest, else the newest wait.
  if (end - start > MAX) {
    if (pinned) start = end - MAX
    else end = start + MAX
  }
  return [start, end]
}

export const PostList = ({ channelId, editing, setEditing, opened = { unread: null, beyond: false } }: {
  channelId: string
  editing: string | null
  setEditing: (id: string | null) => void
  /**
   * Set once the channel is loaded for this view: its first unread post (a "New messages" line goes above it), and
   * whether that was beyond the newest page (then the view goes there).
   */
  opened?: { readonly unread: string | null; readonly beyond: boolean } | null
}) => {
  const line = timelines.value[channelId]
  const scroller = useRef<HTMLDivElement>(null)
  const pinned = useRef(true)
  const busy = useRef(false)
  const [win, setWinState] = useState<Window>({ from: null, to: null })
  const winRef = useRef(win)
  const setWin = (next: Window) => {
    winRef.current = next
    setWinState(next)
  }
  const [flash, setFlash] = useState<string | null>(null)
  const [far, setFar] = useState(false)
  const [unread, setUnread] = useState<string | null>(null)
  const pending = useRef<Focus | null>(null)
  const anchor = useRef<Place | null>(null)

  const all = shown(channelId)
  const [start, end] = bounds(all, win, pinned.current)
  const atNewest = end === all.length && !line?.newer
  // Read before this render reaches the DOM: the post at the top, to be put back where it is.
  anchor.current = scroller.current && !pinned.current ? firstVisible(scroller.current) : null

  useLayoutEffect(() => {
    if (performance.getEntriesByName("channel-data").length > 0) performance.measure("channel-render", "channel-data")
    const el = scroller.current
    if (!el) return
    const focus = pending.current
    const target = focus && el.querySelector<HTMLElement>(`article[data-post-id="${focus.id}"]`)
    if (focus && target) {
      pending.current = null
      if (focus.how === "center") {
        target.scrollIntoView({ block: "center" })
        target.focus({ preventScroll: true })
      } else if (focus.how === "unread") {
        // The "New messages" line a little below the top, with some of what was read above it.
        el.scrollTop += target.getBoundingClientRect().top - el.getBoundingClientRect().top - el.clientHeight / 4
      } else restorePlace(el, focus.how)
      pinned.current = false
    } else if (pinned.current) el.scrollTop = el.scrollHeight
    else if (anchor.current) restorePlace(el, anchor.current)
  })
  // A post that grows after it is shown (an image or a link preview loading) keeps a reader at the newest posts there;
  // above the reader, the browser's own scroll anchoring (overflow-anchor) keeps the view still.
  const content = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const el = scroller.current
    if (!el || !content.current || typeof ResizeObserver === "undefined") return
    const observer = new ResizeObserver(() => {
      if (pinned.current) el.scrollTop = el.scrollHeight
    })
    observer.observe(content.current)
    return () => observer.disconnect()
  }, [])
  // Time from the channel's posts arriving to the end of the first frame that shows them (read by the paint-time
  // test): the DOM is committed here, the next animation frame runs just before that frame's style, layout and paint,
  // and a task queued from it runs once they are done.
  useLayoutEffect(() => {
    if (performance.getEntriesByName("channel-data").length === 0) return
    requestAnimationFrame(() =>
      setTimeout(() => {
        performance.measure("channel-paint", "channel-data")
        performance.clearMarks("channel-data")
      }, 0)
    )
  }, [line])

  /** Shows the post with posts around it, loading them if it is not among the loaded ones. */
  const focusOn = async (focus: Focus) => {
    let list = shown(channelId)
    if (!list.includes(focus.id)) {
      await loadAround(channelId, focus.id)
      list = shown(channelId)
    }
    const i = list.indexOf(focus.id)
    if (i < 0) return
    const from = Math.max(0, Math.min(i - MAX / 2, list.length - MAX))
    const to = Math.min(list.length, from + MAX)
    pending.current = focus
    pinned.current = false
    setWin({ from: list[from], to: to === list.length ? null : list[to - 1] })
    if (focus.flash) setFlash(focus.id)
  }

  // A search result's "Jump" or a permalink: the post, centred, focused and briefly highlighted.
  const target = highlight.value
  // A jump the reader asked for wins over where the channel would open by itself (its first unread, a saved place).
  const jumped = useRef(false)
  useEffect(() => {
    if (!target || !line) return
    const known = posts.value[target]
    if (known && known.channel_id !== channelId) return
    highlight.value = null
    jumped.current = true
    void focusOn({ id: target, how: "center", flash: true }).catch(() => undefined)
  }, [target, !line])

  // Once the channel is open: after a reload the place kept for it; else the first unread post, and the view goes there
  // when it is older than the newest page (the posts around it were loaded instead).
  const started = useRef(false)
  useEffect(() => {
    if (!opened || !line || started.current) return
    started.current = true
    const place = takeSavedPlace(channelId)
    if (jumped.current) {
      if (opened.unread) setUnread(opened.unread)
      return
    }
    if (place) {
      void focusOn({ id: place.id, how: place, flash: false }).catch(() => undefined)
      return
    }
    if (!opened.unread) return
    setUnread(opened.unread)
    if (opened.beyond) void focusOn({ id: opened.unread, how: "unread", flash: false }).catch(() => undefined)
  }, [opened, !line])

  /** Adds posts at one edge of the window (fetching a page when memory has no more) and drops the far ones. */
  const grow = async (up: boolean) => {
    if (busy.current) return
    busy.current = true
    try {
      let list = shown(channelId)
      let [s, e] = bounds(list, winRef.current, pinned.current)
      const here = timelines.value[channelId]
      if (up && s === 0 && here?.more) await loadOlder(channelId)
      else if (!up && e === list.length && here?.newer) await loadNewer(channelId)
      const firstShown = list[s]
      const lastShown = list[e - 1]
      list = shown(channelId)
      s = Math.max(0, list.indexOf(firstShown))
      e = list.indexOf(lastShown) + 1 || list.length
      const [from, to] = up ? [Math.max(0, s - STEP), 0] : [0, Math.min(list.length, e + STEP)]
      const next = up ? { from, to: Math.min(e, from + MAX) } : { from: Math.max(s, to - MAX), to }
      const newest = next.to === list.length
      setWin({ from: list[next.from], to: newest ? null : list[next.to - 1] })
    } finally {
      busy.current = false
    }
  }

  const jumpToRecent = async () => {
    if (timelines.value[channelId]?.newer) await loadLatest(channelId)
    pinned.current = true
    setWin({ from: null, to: null })
    setFar(false)
    savePlace(channelId, null)
  }

  let saving = 0
  const onScroll = () => {
    const el = scroller.current!
    const fromBottom = el.scrollHeight - el.scrollTop - el.clientHeight
    pinned.current = atNewest && fromBottom < 40
    setFar(!atNewest || fromBottom > 2 * el.clientHeight)
    if (el.scrollTop < EDGE && (start > 0 || line?.more)) void grow(true).catch(() => undefined)
    else if (fromBottom < EDGE && !atNewest) void grow(false).catch(() => undefined)
    // Kept only once the place kept before a reload has been taken (the first scroll to the bottom would erase it).
    if (!started.current) return
    cancelAnimationFrame(saving)
    saving = requestAnimationFrame(() => savePlace(channelId, pinned.current ? null : firstVisible(el)))
  }

  const days: Array<{ key: string; label: string; ids: Array<string> }> = []
  for (const id of all.slice(start, end)) {
    const at = posts.value[id].create_at
    const key = day(at)
    if (days[days.length - 1]?.key !== key) days.push({ key, label: dayLabel(at), ids: [] })
    days[days.length - 1].ids.push(id)
  }
  let prev: Post | undefined
  // The first unread post, a post being flashed and one about to be jumped to keep a row of their own (the line
  // above it, the flash on it, the focus found by its id).
  const breaks = new Set([unread, flash, pending.current?.id].filter((id): id is string => typeof id === "string"))
  return (
    <div class="post-list">
      <div class="posts" ref={scroller} onScroll={onScroll} role="log" aria-label="Messages" aria-live="polite" tabIndex={0}>
        <div ref={content}>
        {line === undefined && <p class="muted center">Loading…</p>}
        {line && !line.more && start === 0 && <p class="muted center intro">This is the start of the channel.</p>}
        {days.map((d) => (
          // A day's posts in one box, so that its date stays at the top (sticky) while they scroll past.
          <div class="day" key={d.key}>
            <div class="separator" role="separator" aria-label={d.label}><span>{d.label}</span></div>
            {combineRows(d.ids, posts.value, breaks).map(({ id, combined }) => {
              const post = posts.value[combined?.[combined.length - 1] ?? id]
              const compact = combined === undefined && isCompact(posts.value[id], prev) && id !== unread
              prev = post
              return (
                <div key={id} class={id === flash ? "post-row flash" : "post-row"} onAnimationEnd={() => id === flash && setFlash(null)}>
                  {id === unread && <div class="separator new-messages" role="separator" aria-label="New messages"><span>New messages</span></div>}
                  {combined ? <CombinedActivity ids={combined} /> : <PostItem id={id} compact={compact} editing={editing === id} setEditing={setEditing} />}
                </div>
              )
            })}
          </div>
        ))}
        </div>
      </div>
      {far && (
        <button type="button" class="jump-recent" onClick={() => void jumpToRecent().catch(() => undefined)}>Jump to recent messages</button>
      )}
    </div>
  )
}

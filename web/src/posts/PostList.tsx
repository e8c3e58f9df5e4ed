import type { Post } from "@mattermost/types/posts"
import { useEffect, useLayoutEffect, useRef } from "preact/hooks"
import { collapsedThreads } from "../account/preferences.ts"
import { highlight } from "../shell/panels.ts"
import { day, dayLabel, isCompact } from "./grouping.ts"
import { PostItem } from "./Post.tsx"
import { loadOlder, posts, timelines } from "./state.ts"

export const PostList = ({ channelId, editing, setEditing }: { channelId: string; editing: string | null; setEditing: (id: string | null) => void }) => {
  const line = timelines.value[channelId]
  const scroller = useRef<HTMLDivElement>(null)
  const pinnedToBottom = useRef(true)
  const loadingOlder = useRef(false)
  const heightBefore = useRef(0)
  const collapsed = collapsedThreads.value
  // With collapsed threads replies stay in their thread, except ephemeral answers (an action's reply): the person who
  // clicked sees it where they clicked.
  const order = (line?.order ?? []).filter((id) => posts.value[id] && (!collapsed || !posts.value[id].root_id || posts.value[id].type === "system_ephemeral"))

  useLayoutEffect(() => {
    if (performance.getEntriesByName("channel-data").length > 0) performance.measure("channel-render", "channel-data")
    const el = scroller.current
    if (!el) return
    if (heightBefore.current) {
      el.scrollTop += el.scrollHeight - heightBefore.current
      heightBefore.current = 0
    } else if (pinnedToBottom.current) el.scrollTop = el.scrollHeight
  })
  useEffect(() => {
    pinnedToBottom.current = true
  }, [channelId])
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

  // A search result's "Jump": scroll to the post once it is loaded (older pages are fetched until it is), focus it.
  const target = highlight.value
  useEffect(() => {
    if (!target || !line) return
    const el = scroller.current?.querySelector<HTMLElement>(`[data-post-id="${target}"]`)
    if (el) {
      pinnedToBottom.current = false
      el.scrollIntoView({ block: "center" })
      el.focus({ preventScroll: true })
      highlight.value = null
    } else if (line.more && !loadingOlder.current && posts.value[target]?.channel_id === channelId) {
      loadingOlder.current = true
      void loadOlder(channelId).catch(() => undefined).finally(() => (loadingOlder.current = false))
    }
  }, [target, line])

  const onScroll = async () => {
    const el = scroller.current!
    pinnedToBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40
    if (el.scrollTop < 200 && line?.more && !loadingOlder.current) {
      loadingOlder.current = true
      heightBefore.current = el.scrollHeight
      await loadOlder(channelId).catch(() => undefined)
      loadingOlder.current = false
    }
  }

  let prev: Post | undefined
  return (
    <div class="posts" ref={scroller} onScroll={onScroll} role="log" aria-label="Messages" aria-live="polite" tabIndex={0}>
      {line === undefined && <p class="muted center">Loading…</p>}
      {line && !line.more && <p class="muted center intro">This is the start of the channel.</p>}
      {order.map((id) => {
        const post = posts.value[id]
        const separator = !prev || day(prev.create_at) !== day(post.create_at)
        const compact = !separator && isCompact(post, prev)
        prev = post
        return (
          <div key={id}>
            {separator && <div class="separator" role="separator" aria-label={dayLabel(post.create_at)}><span>{dayLabel(post.create_at)}</span></div>}
            <PostItem id={id} compact={compact} editing={editing === id} setEditing={setEditing} />
          </div>
        )
      })}
    </div>
  )
}

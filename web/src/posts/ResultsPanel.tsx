import type { Post } from "@mattermost/types/posts"
import { useEffect, useMemo, useRef, useState } from "preact/hooks"
import { collapsedThreads } from "../account/preferences.ts"
import { errorMessage } from "../app/api.ts"
import { navigate } from "../app/router.ts"
import { teams } from "../app/state.ts"
import { channelLabel, channelPath, channels } from "../channels/state.ts"
import { highlight, openThread, panel } from "../shell/panels.ts"
import { PostItem } from "./Post.tsx"
import { searchRegExp } from "./searchMarks.ts"
import { addPosts, posts } from "./state.ts"
import "./results.css"

/** One page of results: Mattermost's PostList, with the words each result matched when it is a search's. */
export type ResultPage = { order: Array<string>; posts: Record<string, Post>; has_next?: boolean; matches?: Record<string, Array<string>> | null }

/** The post in its channel (its thread open when it is a reply), scrolled to and highlighted by the channel view. */
const jump = (post: Post) => {
  const c = channels.value[post.channel_id]
  const team = teams.value.find((t) => t.id === c?.team_id) ?? teams.value[0]
  if (!c || !team) return
  // With collapsed reply threads a reply is not in the channel: the channel shows its root, the panel the reply.
  highlight.value = post.root_id && collapsedThreads.value ? post.root_id : post.id
  navigate(channelPath(team.name, c))
  if (post.root_id) openThread(post.root_id)
}

/**
 * Search results, saved or pinned messages: a page at a time ("Load more results" while the server says more follow),
 * the search's words marked in each result, and "Jump" to the post in its channel.
 */
export const ResultsPanel = ({ title, load, terms }: {
  title: string
  load: (page: number) => Promise<ResultPage>
  /** The search typed, for marking its words; none for saved and pinned messages. */
  terms?: string
}) => {
  const [ids, setIds] = useState<Array<string> | null>(null)
  const [matched, setMatched] = useState<Record<string, Array<string>>>({})
  const [more, setMore] = useState(false)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState("")
  const page = useRef(0)
  // A newer search replaces an older one still loading: answers carry the generation they were asked in.
  const generation = useRef(0)

  const fetchPage = async (n: number, reset: boolean) => {
    const asked = ++generation.current
    setBusy(true)
    try {
      const r = await load(n)
      if (asked !== generation.current) return
      addPosts(Object.values(r.posts))
      page.current = n
      setIds((old) => {
        const before = reset || !old ? [] : old
        const seen = new Set(before)
        return [...before, ...r.order.filter((id) => !seen.has(id))]
      })
      setMatched((old) => ({ ...(reset ? {} : old), ...(r.matches ?? {}) }))
      setMore(r.has_next === true)
      setError("")
    } catch (e) {
      if (asked === generation.current) setError(errorMessage(e))
    } finally {
      if (asked === generation.current) setBusy(false)
    }
  }
  useEffect(() => {
    setIds(null)
    setMore(false)
    void fetchPage(0, true)
  }, [title])

  const base = useMemo(() => (terms ? searchRegExp(terms) : null), [terms])
  return (
    <aside class="panel" aria-label={title}>
      <header><h2>{title}</h2><button type="button" class="icon" aria-label="Close panel" onClick={() => (panel.value = null)}>✕</button></header>
      {error && <p class="alert" role="alert">{error}</p>}
      {ids === null && !error && <p class="muted">Searching…</p>}
      {ids?.length === 0 && <p class="muted">No results</p>}
      <div class="results-scroll">
        <ul class="results">
          {ids?.map((id) => {
            const p = posts.value[id]
            if (!p) return null
            const c = channels.value[p.channel_id]
            const words = matched[id]
            return (
              <li key={id}>
                <p class="muted">{c ? channelLabel(c) : ""} · {new Date(p.create_at).toLocaleString()}</p>
                <PostItem id={id} compact={false} inThread editing={false} setEditing={() => undefined}
                  marks={terms ? (words?.length ? searchRegExp(terms, words) : base) : null} />
                <button type="button" class="link" onClick={() => jump(p)}>Jump</button>
              </li>
            )
          })}
        </ul>
        {ids !== null && ids.length > 0 && (
          <div class="results-more">
            <p class="muted" role="status">{ids.length === 1 ? "1 result" : `${ids.length} results`}{more ? "" : ", all shown"}</p>
            {more && <button type="button" class="secondary" disabled={busy} onClick={() => void fetchPage(page.current + 1, false)}>{busy ? "Loading…" : "Load more results"}</button>}
          </div>
        )}
      </div>
    </aside>
  )
}

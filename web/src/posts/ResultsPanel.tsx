import type { Post } from "@mattermost/types/posts"
import { useEffect, useState } from "preact/hooks"
import { collapsedThreads } from "../account/preferences.ts"
import { errorMessage } from "../app/api.ts"
import { navigate } from "../app/router.ts"
import { teams } from "../app/state.ts"
import { channelLabel, channelPath, channels } from "../channels/state.ts"
import { highlight, openThread, panel } from "../shell/panels.ts"
import { PostItem } from "./Post.tsx"
import { addPosts, posts } from "./state.ts"

export const ResultsPanel = ({ title, load }: { title: string; load: () => Promise<{ order: Array<string>; posts: Record<string, Post> }> }) => {
  const [ids, setIds] = useState<Array<string> | null>(null)
  const [error, setError] = useState("")
  useEffect(() => {
    setIds(null)
    load().then((r) => { addPosts(Object.values(r.posts)); setIds(r.order) }, (e) => setError(errorMessage(e)))
  }, [title])
  const jump = (post: Post) => {
    const c = channels.value[post.channel_id]
    const team = teams.value.find((t) => t.id === c?.team_id) ?? teams.value[0]
    if (!c || !team) return
    // With collapsed reply threads a reply is not in the channel: the channel shows its root, the panel the reply.
    highlight.value = post.root_id && collapsedThreads.value ? post.root_id : post.id
    navigate(channelPath(team.name, c))
    if (post.root_id) openThread(post.root_id)
  }
  return (
    <aside class="panel" aria-label={title}>
      <header><h2>{title}</h2><button type="button" class="icon" aria-label="Close panel" onClick={() => (panel.value = null)}>✕</button></header>
      {error && <p class="alert" role="alert">{error}</p>}
      {ids === null && !error && <p class="muted">Searching…</p>}
      {ids?.length === 0 && <p class="muted">No results</p>}
      <ul class="results">
        {ids?.map((id) => {
          const p = posts.value[id]
          if (!p) return null
          const c = channels.value[p.channel_id]
          return (
            <li key={id}>
              <p class="muted">{c ? channelLabel(c) : ""} · {new Date(p.create_at).toLocaleString()}</p>
              <PostItem id={id} compact={false} inThread editing={false} setEditing={() => undefined} />
              <button type="button" class="link" onClick={() => jump(p)}>Jump</button>
            </li>
          )
        })}
      </ul>
    </aside>
  )
}

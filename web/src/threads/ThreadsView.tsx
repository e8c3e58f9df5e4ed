import type { Post } from "@mattermost/types/posts"
import { useEffect, useState } from "preact/hooks"
import { client, errorMessage } from "../app/api.ts"
import { displayName, users } from "../people/state.ts"
import { addPosts, posts } from "../posts/state.ts"
import { openThread, panel } from "../shell/panels.ts"

/**
 * /{team}/threads: the threads this person follows in the team (collapsed reply threads), newest activity first,
 * unread replies counted; a thread opens in the side panel, and the list is fetched again when the panel closes.
 */
export const ThreadsView = ({ teamId }: { teamId: string }) => {
  const [threads, setThreads] = useState<Array<{ id: string; reply_count: number; unread_replies: number; last_reply_at: number; post: Post }> | null>(null)
  const [error, setError] = useState("")
  const panelOpen = panel.value !== null
  useEffect(() => {
    if (panelOpen) return
    client.getUserThreads("me", teamId, { perPage: 50, extended: false }).then((r) => {
      addPosts(r.threads.map((t) => t.post as Post))
      setThreads(r.threads as any)
    }, (e) => setError(errorMessage(e)))
  }, [teamId, panelOpen])
  return (
    <main class="channel" aria-labelledby="threads-title">
      <header class="channel-header"><h1 id="threads-title">Threads</h1></header>
      {error && <p class="alert" role="alert">{error}</p>}
      {threads === null && !error && <p class="muted center">Loading…</p>}
      {threads?.length === 0 && <p class="muted center">You follow no threads yet: reply to a message or follow its thread.</p>}
      <ul class="results threads" aria-label="Followed threads">
        {threads?.map((t) => (
          <li key={t.id}>
            <button type="button" class="thread-link" onClick={() => openThread(t.id)}>
              <strong>{displayName(users.value[t.post.user_id], "…")}</strong>
              <span class="excerpt">{(posts.value[t.id]?.message ?? t.post.message).slice(0, 140)}</span>
              <span class="muted">{new Date(t.last_reply_at || t.post.create_at).toLocaleString()} · {t.reply_count === 1 ? "1 reply" : `${t.reply_count} replies`}{t.unread_replies ? ` · ${t.unread_replies} new` : ""}</span>
            </button>
          </li>
        ))}
      </ul>
    </main>
  )
}

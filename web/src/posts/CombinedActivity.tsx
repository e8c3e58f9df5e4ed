import { me } from "../app/state.ts"
import { SystemAvatar } from "./authors/postAuthor.tsx"
import { formatTime, posts } from "./state.ts"
import { activitySentences } from "./userActivity.ts"

/**
 * A run of join, leave, add and remove posts as one muted system message (Mattermost's combined user activity): one
 * focusable article, named for screen readers like any post, whose sentences say who came and went.
 */
export const CombinedActivity = ({ ids }: { ids: ReadonlyArray<string> }) => {
  const run = ids.map((id) => posts.value[id]).filter((p) => p !== undefined)
  if (run.length === 0) return null
  const myId = me.value?.id
  const sentences = activitySentences(run, (u) => u.id === myId ? "You" : `@${u.username}`, myId)
  const last = run[run.length - 1]
  const at = formatTime(last.create_at)
  return (
    <article class="post system combined-activity" aria-label={`System at ${at}`} data-post-id={ids[0]} tabIndex={0}>
      <SystemAvatar />
      <div class="body">
        <header>
          <span class="author">System</span>
          <time dateTime={new Date(last.create_at).toISOString()}>{at}</time>
        </header>
        <div class="message">
          {sentences.map((s) => <p key={s}>{s}</p>)}
        </div>
      </div>
    </article>
  )
}

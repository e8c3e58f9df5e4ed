import { useEffect, useState } from "preact/hooks"
import { client, errorMessage } from "../app/api.ts"
import { currentTeamId } from "../app/state.ts"
import { Composer } from "../posts/Composer.tsx"
import { isCompact } from "../posts/grouping.ts"
import { PostItem } from "../posts/Post.tsx"
import { addPosts, posts } from "../posts/state.ts"
import { panel } from "../shell/panels.ts"

export const ThreadPanel = ({ rootId }: { rootId: string }) => {
  const [editing, setEditing] = useState<string | null>(null)
  const [error, setError] = useState("")
  const root = posts.value[rootId]
  useEffect(() => {
    client.getPostThread(rootId, false, false).then((t) => addPosts(Object.values(t.posts)), (e) => setError(errorMessage(e)))
    // Reading a followed thread clears its unread replies in the Followed threads list (not following: nothing to do).
    if (currentTeamId.value) void client.updateThreadReadForUser("me", currentTeamId.value, rootId, Date.now()).catch(() => undefined)
  }, [rootId])
  const replies = Object.values(posts.value).filter((p) => p.root_id === rootId).sort((a, b) => a.create_at - b.create_at)
  return (
    <aside class="panel" aria-label="Thread">
      <header><h2>Thread</h2><button type="button" class="icon" aria-label="Close thread" onClick={() => (panel.value = null)}>✕</button></header>
      {error && <p class="alert" role="alert">{error}</p>}
      <div class="posts">
        {root && <PostItem id={rootId} compact={false} inThread editing={editing === rootId} setEditing={setEditing} />}
        {replies.map((p, i) => <PostItem key={p.id} id={p.id} compact={isCompact(p, i ? replies[i - 1] : root)} inThread editing={editing === p.id} setEditing={setEditing} />)}
      </div>
      {root && <Composer channelId={root.channel_id} rootId={rootId} label="Reply to thread" onEditLast={setEditing} />}
    </aside>
  )
}

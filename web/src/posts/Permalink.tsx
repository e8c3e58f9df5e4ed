import { useEffect, useState } from "preact/hooks"
import { collapsedThreads } from "../account/preferences.ts"
import { client, errorMessage } from "../app/api.ts"
import { link, navigate } from "../app/router.ts"
import { teams } from "../app/state.ts"
import { channelPath, channels } from "../channels/state.ts"
import { highlight, openThread } from "../shell/panels.ts"
import { addPosts } from "./state.ts"

/** The address of a post that opens it in its channel: `/{team}/pl/{post_id}`, as in Mattermost. */
export const permalink = (teamName: string, postId: string) => `${location.origin}/${teamName}/pl/${postId}`

/**
 * `/{team}/pl/{post_id}`: finds the post's channel, then opens the channel's address with the post asked for (the list
 * loads the posts around it both ways, centres and lights it up); a reply under collapsed threads shows its root in
 * the channel and itself in the thread.
 */
export const Permalink = ({ teamName, postId }: { teamName: string; postId: string }) => {
  const [error, setError] = useState("")
  useEffect(() => {
    const open = async () => {
      const post = await client.getPost(postId)
      addPosts([post])
      const channel = channels.value[post.channel_id] ?? await client.getChannel(post.channel_id)
      const team = teams.value.find((t) => t.id === channel.team_id)?.name ?? teamName
      highlight.value = post.root_id && collapsedThreads.value ? post.root_id : post.id
      if (post.root_id) openThread(post.root_id)
      navigate(channelPath(team, channel), true)
    }
    open().catch((e) => setError(errorMessage(e, "This message could not be found")))
  }, [postId])
  if (!error) return <p class="muted center" role="status">Opening the message…</p>
  return (
    <main class="auth"><div class="card"><h1>Message not found</h1><p role="alert">{error}</p>
      <a href={`/${teamName}`} onClick={link(`/${teamName}`)}>Back to the team</a></div></main>
  )
}

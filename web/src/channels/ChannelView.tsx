import type { ServerChannel as Channel } from "@mattermost/types/channels"
import { useEffect, useState } from "preact/hooks"
import { Composer, typingText } from "../posts/Composer.tsx"
import { PostList } from "../posts/PostList.tsx"
import { openChannel, posts, timelines } from "../posts/state.ts"
import { typing } from "../realtime/typing.ts"
import { takeSavedThread } from "../posts/reading.ts"
import { openThread } from "../shell/panels.ts"
import { recordVisit } from "../shell/recent.ts"
import { focusMessageBox, focusWhenShown, MESSAGE_BOX_ID } from "../ui/messageBox.ts"
import { showConversation } from "./actions.ts"
import { ChannelHeader } from "./ChannelHeader.tsx"
import { channelLabel, channels, markViewed, members } from "./state.ts"
import { PermissionBanner } from "../notifications/PermissionBanner.tsx"

/** The last root post of the channel (Shift+Up replies to it). */
const lastRoot = (channelId: string) => {
  const order = timelines.value[channelId]?.order ?? []
  for (let i = order.length - 1; i >= 0; i--) {
    const p = posts.value[order[i]]
    if (p && !p.delete_at && p.type === "") return p.root_id || p.id
  }
  return undefined
}

/** When the channel has unread posts: the time it was last viewed (before this view marks it read), else null. */
const unreadSince = (channelId: string) => {
  const member = members.value[channelId]
  const channel = channels.value[channelId]
  return member && channel && channel.last_post_at > member.last_viewed_at && channel.total_msg_count > member.msg_count ? member.last_viewed_at : null
}

export const ChannelView = ({ channel }: { channel: Channel }) => {
  const [editing, setEditingState] = useState<string | null>(null)
  const [since] = useState(() => unreadSince(channel.id))
  const [opened, setOpened] = useState<{ unread: string | null; beyond: boolean } | null>(null)
  // Leaving the edit box (saved or cancelled) puts focus back in the message box.
  const setEditing = (id: string | null) => {
    setEditingState(id)
    if (id === null) focusMessageBox()
  }
  const who = Object.keys(typing.value[channel.id] ?? {})
  const label = channelLabel(channel)
  useEffect(() => {
    // With unread posts, the server hears of this view once they are loaded (it finds the first unread one by the
    // last view); the sidebar shows the channel read at once.
    void openChannel(channel.id, since).catch(() => ({ unread: null, beyond: false })).then((found) => {
      setOpened(found)
      if (since !== null) void markViewed(channel.id)
    })
    const thread = takeSavedThread(channel.id)
    if (thread) openThread(thread)
    void markViewed(channel.id, since === null)
    recordVisit(channel.id)
    showConversation(channel)
    focusMessageBox()
    const onFocus = () => void markViewed(channel.id)
    addEventListener("focus", onFocus)
    return () => removeEventListener("focus", onFocus)
  }, [channel.id])
  const replyLast = () => {
    const root = lastRoot(channel.id)
    if (!root) return
    openThread(root)
    focusWhenShown(".panel textarea")
  }
  return (
    <main class="channel" aria-labelledby="channel-title">
      <ChannelHeader channel={channel} />
      <PermissionBanner />
      <PostList channelId={channel.id} editing={editing} setEditing={setEditing} opened={opened} />
      <p class="typing" aria-live="polite">{typingText(who.filter((id) => !typing.value[channel.id]?.[id] || true))}</p>
      {channel.delete_at > 0 ? (
        <p class="archived-notice" role="status">You are viewing an archived channel. New messages cannot be posted.</p>
      ) : (
        <Composer id={MESSAGE_BOX_ID} channelId={channel.id} label={`Write to ${label}`} onEditLast={setEditing} onReplyLast={replyLast} />
      )}
    </main>
  )
}

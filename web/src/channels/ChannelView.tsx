import type { ServerChannel as Channel } from "@mattermost/types/channels"
import { useEffect, useState } from "preact/hooks"
import { Composer, typingText } from "../posts/Composer.tsx"
import { PostList } from "../posts/PostList.tsx"
import { loadChannel, posts, timelines } from "../posts/state.ts"
import { typing } from "../realtime/typing.ts"
import { openThread } from "../shell/panels.ts"
import { recordVisit } from "../shell/recent.ts"
import { focusMessageBox, focusWhenShown, MESSAGE_BOX_ID } from "../ui/messageBox.ts"
import { showConversation } from "./actions.ts"
import { ChannelHeader } from "./ChannelHeader.tsx"
import { channelLabel, markViewed } from "./state.ts"
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

export const ChannelView = ({ channel }: { channel: Channel }) => {
  const [editing, setEditingState] = useState<string | null>(null)
  // Leaving the edit box (saved or cancelled) puts focus back in the message box.
  const setEditing = (id: string | null) => {
    setEditingState(id)
    if (id === null) focusMessageBox()
  }
  const who = Object.keys(typing.value[channel.id] ?? {})
  const label = channelLabel(channel)
  useEffect(() => {
    void loadChannel(channel.id).catch(() => undefined)
    void markViewed(channel.id)
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
      <PostList channelId={channel.id} editing={editing} setEditing={setEditing} />
      <p class="typing" aria-live="polite">{typingText(who.filter((id) => !typing.value[channel.id]?.[id] || true))}</p>
      {channel.delete_at > 0 ? (
        <p class="archived-notice" role="status">You are viewing an archived channel. New messages cannot be posted.</p>
      ) : (
        <Composer id={MESSAGE_BOX_ID} channelId={channel.id} label={`Write to ${label}`} onEditLast={setEditing} onReplyLast={replyLast} />
      )}
    </main>
  )
}

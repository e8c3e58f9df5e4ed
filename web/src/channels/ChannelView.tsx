import type { ServerChannel as Channel } from "@mattermost/types/channels"
import { useEffect, useState } from "preact/hooks"
import { Composer, typingText } from "../posts/Composer.tsx"
import { PostList } from "../posts/PostList.tsx"
import { loadChannel } from "../posts/state.ts"
import { typing } from "../realtime/typing.ts"
import { panel } from "../shell/panels.ts"
import { Icon } from "../ui/Icon.tsx"
import { channelLabel, isFavourite, markViewed, toggleFavourite } from "./state.ts"

export const ChannelView = ({ channel }: { channel: Channel }) => {
  const [editing, setEditing] = useState<string | null>(null)
  const who = Object.keys(typing.value[channel.id] ?? {})
  const label = channelLabel(channel)
  useEffect(() => {
    void loadChannel(channel.id).catch(() => undefined)
    void markViewed(channel.id)
    const onFocus = () => void markViewed(channel.id)
    addEventListener("focus", onFocus)
    return () => removeEventListener("focus", onFocus)
  }, [channel.id])
  return (
    <main class="channel" aria-labelledby="channel-title">
      <header class="channel-header">
        <h1 id="channel-title">{channel.type === "O" ? "# " : channel.type === "P" ? <><Icon name="lock" label="Private channel" />{" "}</> : ""}{label}</h1>
        {channel.purpose && <p class="muted purpose">{channel.purpose}</p>}
        <button type="button" class="icon" aria-label="Favourite" aria-pressed={isFavourite(channel.id)} title={isFavourite(channel.id) ? "Remove from favourites" : "Add to favourites"}
          onClick={() => void toggleFavourite(channel).catch(() => undefined)}>{isFavourite(channel.id) ? "★" : "☆"}</button>
        <button type="button" class="icon" aria-label="Pinned messages" title="Pinned messages" onClick={() => (panel.value = { kind: "pinned", channelId: channel.id })}><Icon name="pin" /></button>
      </header>
      <PostList channelId={channel.id} editing={editing} setEditing={setEditing} />
      <p class="typing" aria-live="polite">{typingText(who.filter((id) => !typing.value[channel.id]?.[id] || true))}</p>
      <Composer channelId={channel.id} label={`Write to ${label}`} onEditLast={setEditing} />
    </main>
  )
}

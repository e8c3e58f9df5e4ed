import type { ServerChannel as Channel } from "@mattermost/types/channels"
import { signal } from "@preact/signals"
import { useEffect } from "preact/hooks"
import { client } from "../app/api.ts"
import { renderMarkdown } from "../posts/markdown.ts"
import { openLink } from "../posts/Post.tsx"
import { openModal } from "../shell/modal.ts"
import { panel } from "../shell/panels.ts"
import { Icon } from "../ui/Icon.tsx"
import { MenuButton, type MenuEntries } from "../ui/Menu.tsx"
import { closeConversation, isChannelAdmin, isMuted, isTownSquare, toggleMute } from "./actions.ts"
import { channelLabel, isFavourite, membersVersion, toggleFavourite } from "./state.ts"

/** Member counts of the channels shown, fetched when a channel opens (GET /channels/{id}/stats). */
export const memberCounts = signal<Record<string, number>>({})

export const refreshMemberCount = (channelId: string) =>
  client.getChannelStats(channelId).then((s) => (memberCounts.value = { ...memberCounts.value, [channelId]: s.member_count }), () => undefined)

/** The channel menu, as in Mattermost: what applies to this kind of channel and to this person's roles. */
export const channelMenu = (channel: Channel): MenuEntries => {
  const id = channel.id
  const archived = channel.delete_at > 0
  const conversation = channel.type === "D" || channel.type === "G"
  const admin = isChannelAdmin(id)
  const muted = isMuted(id)
  const confirm = (action: "convert" | "archive" | "unarchive" | "leave") => () => openModal({ kind: "channel-confirm", channelId: id, action })
  if (conversation) {
    return [
      { label: "View info", onSelect: () => openModal({ kind: "channel-info", channelId: id }) },
      channel.type === "G" && { label: "Members", onSelect: () => openModal({ kind: "channel-members", channelId: id }) },
      { label: "Add people", onSelect: () => openModal({ kind: "add-people", channelId: id }) },
      "-",
      { label: muted ? "Unmute conversation" : "Mute conversation", onSelect: () => void toggleMute(id).catch(() => undefined) },
      { label: "Notification preferences", onSelect: () => openModal({ kind: "channel-notify", channelId: id }) },
      { label: "Edit header", onSelect: () => openModal({ kind: "channel-edit", channelId: id, field: "header" }) },
      "-",
      { label: "Close conversation", onSelect: () => void closeConversation(channel).catch(() => undefined) }
    ]
  }
  if (archived) {
    return [
      { label: "View info", onSelect: () => openModal({ kind: "channel-info", channelId: id }) },
      { label: "Members", onSelect: () => openModal({ kind: "channel-members", channelId: id }) },
      admin && { label: "Unarchive channel", onSelect: confirm("unarchive") }
    ]
  }
  return [
    { label: "View info", onSelect: () => openModal({ kind: "channel-info", channelId: id }) },
    { label: "Members", onSelect: () => openModal({ kind: "channel-members", channelId: id }) },
    "-",
    { label: muted ? "Unmute channel" : "Mute channel", onSelect: () => void toggleMute(id).catch(() => undefined) },
    { label: "Notification preferences", onSelect: () => openModal({ kind: "channel-notify", channelId: id }) },
    "-",
    { label: "Edit header", onSelect: () => openModal({ kind: "channel-edit", channelId: id, field: "header" }) },
    { label: "Edit purpose", onSelect: () => openModal({ kind: "channel-edit", channelId: id, field: "purpose" }) },
    admin && { label: "Rename channel", onSelect: () => openModal({ kind: "channel-edit", channelId: id, field: "name" }) },
    admin && channel.type === "O" && !isTownSquare(channel) && { label: "Convert to private channel", onSelect: confirm("convert") },
    "-",
    admin && !isTownSquare(channel) && { label: "Archive channel", danger: true, onSelect: confirm("archive") },
    !isTownSquare(channel) && { label: "Leave channel", danger: true, onSelect: confirm("leave") }
  ]
}

/** The channel's name (its menu), what it is for and its header (markdown, links), then its tools. */
export const ChannelHeader = ({ channel }: { channel: Channel }) => {
  const label = channelLabel(channel)
  const count = memberCounts.value[channel.id]
  // Counted again when someone joins or leaves (membersVersion grows on user_added and user_removed).
  const version = membersVersion.value[channel.id] ?? 0
  useEffect(() => {
    if (channel.type !== "D") void refreshMemberCount(channel.id)
  }, [channel.id, channel.type, version])
  const favourite = isFavourite(channel.id)
  return (
    <header class="channel-header">
      <div class="channel-title">
        <div class="row nowrap">
          <h1 id="channel-title">
            {channel.type === "P" && <Icon name="lock" label="Private channel" />}
            <MenuButton label={`${label} channel menu`} buttonClass="channel-name" items={() => channelMenu(channel)}>
              {channel.type === "O" && <span aria-hidden="true">#</span>}
              <span class="label">{label}</span>
              <Icon name="chevron" />
            </MenuButton>
          </h1>
          {isMuted(channel.id) && <span class="tag">Muted</span>}
          {channel.delete_at > 0 && <span class="tag">Archived</span>}
        </div>
        {(channel.purpose || channel.header) && (
          <div class="channel-about">
            {channel.purpose && <p class="purpose muted" title={channel.purpose}>{channel.purpose}</p>}
            {channel.header && (
              <div class="headline message" title={channel.header} onClick={openLink} dangerouslySetInnerHTML={{ __html: renderMarkdown(channel.header) }} />
            )}
          </div>
        )}
      </div>
      <div class="channel-tools">
        <button type="button" class="icon" aria-label="Favourite" aria-pressed={favourite} title={favourite ? "Remove from favourites" : "Add to favourites"}
          onClick={() => void toggleFavourite(channel).catch(() => undefined)}>{favourite ? "★" : "☆"}</button>
        {channel.type !== "D" && (
          <button type="button" class="icon count" aria-label={count === undefined ? "Members" : `Members, ${count}`} title="Members"
            onClick={() => openModal({ kind: "channel-members", channelId: channel.id })}>
            <Icon name="people" /> <span aria-hidden="true">{count ?? ""}</span>
          </button>
        )}
        <button type="button" class="icon" aria-label="Pinned messages" title="Pinned messages" onClick={() => (panel.value = { kind: "pinned", channelId: channel.id })}><Icon name="pin" /></button>
      </div>
    </header>
  )
}

import type { ServerChannel as Channel } from "@mattermost/types/channels"
import { collapsedThreads } from "../account/preferences.ts"
import { link } from "../app/router.ts"
import { currentChannelId, teams } from "../app/state.ts"
import { openModal } from "../shell/modal.ts"
import { dialog } from "../shell/panels.ts"
import { Icon } from "../ui/Icon.tsx"
import { ThreadsEntry } from "../notifications/ThreadsEntry.tsx"
import { isHidden, isMuted } from "./actions.ts"
import { categories, channelLabel, channelPath, channels, members, unread } from "./state.ts"

export const Sidebar = ({ teamName, threadsOpen }: { teamName: string; threadsOpen: boolean }) => {
  const current = currentChannelId.value
  const byId = channels.value
  const chanLink = (c: Channel) => channelPath(teamName, c)
  // Only this team's channels (and DMs, which belong to no team), also in the moment after a team switch while the
  // new team's categories are still loading.
  const teamId = teams.value.find((t) => t.name === teamName)?.id
  const inTeam = (c: Channel) => c.team_id === teamId || c.team_id === ""
  const own = categories.value.filter((c) => c.team_id === teamId)
  const cats = own.length > 0 ? own : [{ id: "all", display_name: "Channels", channel_ids: Object.values(byId).filter(inTeam).map((c) => c.id), type: "custom" } as any]
  return (
    <nav class="sidebar" id="sidebar" aria-label="Channels">
      {collapsedThreads.value && <ThreadsEntry teamName={teamName} teamId={teamId} open={threadsOpen} />}
      {cats.map((cat) => {
        const list = (cat.channel_ids as Array<string>).map((id) => byId[id]).filter((c): c is Channel => !!c && c.delete_at === 0 && !!members.value[c.id] && inTeam(c) && (!isHidden(c) || c.id === current))
        if (list.length === 0 && cat.type !== "direct_messages" && cat.type !== "channels") return null
        return (
          <section key={cat.id} aria-labelledby={`cat-${cat.id}`}>
            <h2 id={`cat-${cat.id}`} class="category">
              {cat.display_name}
              {cat.type === "direct_messages" && <button type="button" class="icon small" aria-label="Write a direct message" onClick={() => (dialog.value = "dm")}><Icon name="plus" /></button>}
              {cat.type === "channels" && <button type="button" class="icon small" aria-label="Create a channel" onClick={() => openModal({ kind: "create-channel" })}><Icon name="plus" /></button>}
            </h2>
            <ul>
              {list.map((c) => {
                const u = unread(c.id)
                const label = channelLabel(c)
                const name = `${label}${u.mentions ? `, ${u.mentions} mention${u.mentions > 1 ? "s" : ""}` : u.unread ? ", unread" : ""}`
                return (
                  <li key={c.id}>
                    <a href={chanLink(c)} onClick={link(chanLink(c))} aria-current={c.id === current ? "page" : undefined} aria-label={name}
                      class={`${u.unread ? "unread" : ""} ${c.id === current ? "active" : ""}${isMuted(c.id) ? " muted" : ""}`}>
                      <span aria-hidden="true" class="glyph">{c.type === "P" ? <Icon name="lock" /> : c.type === "O" ? "#" : "@"}</span>
                      <span class="label">{label}</span>
                      {/* The count is drawn by CSS: as text it would be part of the link's visible text but not of its name. */}
                      {u.mentions > 0 && <span class="badge" aria-hidden="true" data-count={u.mentions} />}
                    </a>
                  </li>
                )
              })}
            </ul>
          </section>
        )
      })}
      <button type="button" class="link" onClick={() => openModal({ kind: "browse" })}>Browse channels</button>
    </nav>
  )
}

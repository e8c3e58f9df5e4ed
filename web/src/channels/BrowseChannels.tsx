import type { Channel } from "@mattermost/types/channels"
import type { Team } from "@mattermost/types/teams"
import { useEffect, useState } from "preact/hooks"
import { client, errorMessage } from "../app/api.ts"
import { navigate } from "../app/router.ts"
import { me, put } from "../app/state.ts"
import { closeModal, openModal } from "../shell/modal.ts"
import { Icon } from "../ui/Icon.tsx"
import { Modal } from "../ui/Modal.tsx"
import { channels, members, refreshChannels } from "./state.ts"

type Filter = "all" | "public" | "private" | "archived"

/**
 * Browse channels, as in Mattermost: a search over the team's public channels, your private ones and (by the filter)
 * archived ones; channels you are in say "Joined" and open without joining again.
 */
export default function BrowseChannels({ team }: { team: Team }) {
  const [filter, setFilter] = useState<Filter>("all")
  const [term, setTerm] = useState("")
  const [lists, setLists] = useState<{ open: Array<Channel>; archived: Array<Channel> | null } | null>(null)
  const [error, setError] = useState("")
  useEffect(() => {
    client.getChannels(team.id, 0, 200).then((open) => setLists((l) => ({ open, archived: l?.archived ?? null })), (e) => setError(errorMessage(e)))
  }, [team.id])
  useEffect(() => {
    if (filter !== "archived" || lists?.archived) return
    client.getArchivedChannels(team.id, 0, 200).then((archived) => setLists((l) => ({ open: l?.open ?? [], archived })), (e) => setError(errorMessage(e)))
  }, [filter])
  const mine = Object.values(channels.value).filter((c) => c.team_id === team.id && c.type === "P" && c.delete_at === 0 && members.value[c.id])
  const pool = filter === "archived" ? lists?.archived ?? null : lists === null ? null
    : filter === "public" ? lists.open : filter === "private" ? mine : [...lists.open, ...mine]
  const needle = term.trim().toLowerCase()
  const shown = (pool ?? [])
    .filter((c) => !needle || `${c.display_name} ${c.name} ${c.purpose}`.toLowerCase().includes(needle))
    .sort((a, b) => a.display_name.localeCompare(b.display_name))
  const open = async (c: Channel) => {
    try {
      if (!members.value[c.id] && c.delete_at === 0) {
        await client.addToChannel(me.value!.id, c.id)
        await refreshChannels()
      } else if (c.delete_at > 0) put(channels, [c as never])
      closeModal()
      navigate(`/${team.name}/channels/${c.name}`)
    } catch (e) {
      setError(errorMessage(e))
    }
  }
  return (
    <Modal title="Browse channels" class="wide">
      <div class="dialog-body">
        <div class="row toolbar">
          <label class="grow">Search channels<input type="search" value={term} onInput={(e) => setTerm(e.currentTarget.value)} placeholder="Name or purpose" /></label>
          <label>Show<select value={filter} onChange={(e) => setFilter(e.currentTarget.value as Filter)}>
            <option value="all">All channels</option>
            <option value="public">Public channels</option>
            <option value="private">Private channels</option>
            <option value="archived">Archived channels</option>
          </select></label>
          <button type="button" class="secondary create" onClick={() => openModal({ kind: "create-channel" })}>Create channel</button>
        </div>
        {error && <p class="alert" role="alert">{error}</p>}
        {pool === null && !error && <p class="muted">Loading…</p>}
        <p class="muted" role="status">{pool === null ? "" : `${shown.length} channel${shown.length === 1 ? "" : "s"}`}</p>
        <ul class="list channels" aria-label="Channels">
          {shown.map((c) => {
            const joined = !!members.value[c.id]
            const verb = joined || c.delete_at > 0 ? "View" : "Join"
            return (
              <li key={c.id}>
                <span class="what">
                  <strong><span aria-hidden="true" class="glyph">{c.type === "P" ? <Icon name="lock" /> : "#"}</span> {c.display_name}</strong>
                  {joined && <span class="tag">Joined</span>}
                  {c.delete_at > 0 && <span class="tag">Archived</span>}
                  {c.purpose && <span class="muted purpose">{c.purpose}</span>}
                </span>
                <button type="button" class={verb === "View" ? "secondary" : undefined} aria-label={`${verb} ${c.display_name}`} onClick={() => void open(c)}>{verb}</button>
              </li>
            )
          })}
        </ul>
      </div>
    </Modal>
  )
}

import type { Channel } from "@mattermost/types/channels"
import type { Team } from "@mattermost/types/teams"
import { useEffect, useRef, useState } from "preact/hooks"
import { client, errorMessage } from "../app/api.ts"
import { navigate } from "../app/router.ts"
import { me, put } from "../app/state.ts"
import { closeModal, openModal } from "../shell/modal.ts"
import { Icon } from "../ui/Icon.tsx"
import { Modal } from "../ui/Modal.tsx"
import { channels, members, refreshChannels } from "./state.ts"

type Filter = "all" | "public" | "private" | "archived"

const PAGE = 50

/** What the server is asked for each filter (Mattermost's Browse channels: POST /channels/search, nonAdminSearch). */
const options = (teamId: string, filter: Filter, page: number) => ({
  team_ids: [teamId],
  nonAdminSearch: true,
  ...(filter === "public" ? { public: true } : filter === "private" ? { private: true } : {}),
  ...(filter === "archived" ? { deleted: true, include_deleted: true } : {}),
  page,
  per_page: PAGE
})

/**
 * Browse channels, as in Mattermost: the server searches the team's public channels, your private ones and (by the
 * filter) archived ones, a page at a time ("Load more"), so a team of thousands of channels is searched whole;
 * channels you are in say "Joined" and open without joining again.
 */
export default function BrowseChannels({ team }: { team: Team }) {
  const [filter, setFilter] = useState<Filter>("all")
  const [term, setTerm] = useState("")
  const [query, setQuery] = useState("")
  const [result, setResult] = useState<{ list: Array<Channel>; total: number; page: number } | null>(null)
  const [loading, setLoading] = useState(false)
  const [error, setError] = useState("")
  // The term is searched once typing pauses; a newer search's answer replaces an older one's, never the reverse.
  useEffect(() => {
    const timer = setTimeout(() => setQuery(term.trim()), 200)
    return () => clearTimeout(timer)
  }, [term])
  const latest = useRef(0)
  const fetchPage = async (page: number) => {
    const ticket = ++latest.current
    setLoading(true)
    try {
      const answer = await client.searchAllChannels(query, options(team.id, filter, page)) as unknown as { channels: Array<Channel>; total_count: number }
      if (ticket !== latest.current) return
      setResult((r) => ({ list: page === 0 || !r ? answer.channels : [...r.list, ...answer.channels], total: answer.total_count, page }))
      setError("")
    } catch (e) {
      if (ticket === latest.current) setError(errorMessage(e))
    } finally {
      if (ticket === latest.current) setLoading(false)
    }
  }
  useEffect(() => {
    setResult(null)
    void fetchPage(0)
  }, [team.id, filter, query])
  const shown = result?.list ?? []
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
        {result === null && !error && <p class="muted">Loading…</p>}
        <p class="muted" role="status">{result === null ? "" : `${result.total} channel${result.total === 1 ? "" : "s"}`}</p>
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
        {result !== null && shown.length < result.total && (
          // Not disabled while loading, so focus stays on it for the next page.
          <button type="button" class="secondary" aria-busy={loading} onClick={() => { if (!loading) void fetchPage(result.page + 1) }}>Load more</button>
        )}
      </div>
    </Modal>
  )
}

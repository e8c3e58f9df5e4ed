import type { ChannelWithTeamData } from "@mattermost/types/channels"
import { useState } from "preact/hooks"
import { link } from "../app/router.ts"
import type { ConsoleTeam } from "./Teams.tsx"
import { api, consolePath, useDebounced, useLoad } from "./state.ts"
import { Outcome, Pager, TableWrap } from "./ui.tsx"

const PAGE = 20
type Kind = "all" | "public" | "private"
type State = "live" | "archived" | "both"

/** Every team, for the team filters and the move dialog (the console's list, archived teams aside). */
export const useTeams = () => useLoad(() => api<{ teams: Array<ConsoleTeam> }>("GET", "/api/v1/admin/teams?per_page=200").then((r) => r.teams))

/**
 * User management > Channels: channels of every team (POST /api/v4/channels/search, as the System Console pages it),
 * searched by name, filtered by team, privacy and archived state; each row opens the channel's page.
 */
export default function Channels() {
  const [term, setTerm] = useState("")
  const [team, setTeam] = useState("")
  const [kind, setKind] = useState<Kind>("all")
  const [state, setState] = useState<State>("live")
  const [page, setPage] = useState(0)
  const teams = useTeams()
  const search = useDebounced(term)
  const channels = useLoad(() => api<{ channels: Array<ChannelWithTeamData>; total_count: number }>("POST", "/api/v4/channels/search", {
    term: search.trim(),
    page,
    per_page: PAGE,
    ...(team ? { team_ids: [team] } : {}),
    ...(kind === "public" ? { public: true } : kind === "private" ? { private: true } : {}),
    include_deleted: state === "both",
    deleted: state === "archived"
  }), [search, team, kind, state, page])
  const rows = channels.data?.channels ?? []
  const filter = <T,>(set: (v: T) => void) => (v: T) => { set(v); setPage(0) }
  return (
    <section aria-labelledby="channels-title">
      <h2 id="channels-title">Channels</h2>
      <Outcome error={channels.error} />
      <div class="row filters">
        <label>Search channels<input type="search" value={term} onInput={(e) => filter(setTerm)(e.currentTarget.value)} /></label>
        <label>Team
          <select value={team} onChange={(e) => filter(setTeam)(e.currentTarget.value)}>
            <option value="">All teams</option>
            {teams.data?.map((t) => <option key={t.id} value={t.id}>{t.display_name}</option>)}
          </select>
        </label>
        <label>Privacy
          <select value={kind} onChange={(e) => filter(setKind)(e.currentTarget.value as Kind)}>
            <option value="all">Public and private</option><option value="public">Public</option><option value="private">Private</option>
          </select>
        </label>
        <label>State
          <select value={state} onChange={(e) => filter(setState)(e.currentTarget.value as State)}>
            <option value="live">Not archived</option><option value="archived">Archived</option><option value="both">All</option>
          </select>
        </label>
      </div>
      {channels.data && <p class="muted">{channels.data.total_count} {channels.data.total_count === 1 ? "channel" : "channels"}</p>}
      <TableWrap label="Channels">
        <table>
          <thead><tr><th scope="col">Name</th><th scope="col">Team</th><th scope="col">Privacy</th><th scope="col">State</th></tr></thead>
          <tbody>
            {rows.map((c) => (
              <tr key={c.id}>
                <td><a href={consolePath(`user_management/channels/${c.id}`)} onClick={link(consolePath(`user_management/channels/${c.id}`))}>{c.display_name}</a>
                  <span class="muted"> ~{c.name}</span></td>
                <td>{c.team_display_name}</td>
                <td>{c.type === "P" ? "Private" : "Public"}</td>
                <td>{c.delete_at ? "Archived" : "Active"}</td>
              </tr>
            ))}
            {channels.data && rows.length === 0 && <tr><td colSpan={4}>No channels match.</td></tr>}
          </tbody>
        </table>
      </TableWrap>
      <Pager label="Channels" page={page} hasNext={(page + 1) * PAGE < (channels.data?.total_count ?? 0)} onPage={setPage} />
    </section>
  )
}

import type { Team } from "@mattermost/types/teams"
import { useState } from "preact/hooks"
import { link, navigate } from "../app/router.ts"
import { api, consolePath, notice, useDebounced, useLoad } from "./state.ts"
import { ConsoleDialog, FormError, Outcome, Pager, TableWrap, useFormSubmit } from "./ui.tsx"

export type ConsoleTeam = Team & { member_count: number; active_member_count: number; channel_count: number }

const PAGE = 20

/** A team's URL name from its display name, as the chat's "Create a team" makes it. */
const slug = (s: string) => s.toLowerCase().normalize("NFKD").replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 64)

/**
 * User management > Teams: every team (archived ones on request) with its members and channels counted
 * (GET /api/v1/admin/teams), searched by name, paged; Create team; each row opens the team's page.
 */
export default function Teams() {
  const [term, setTerm] = useState("")
  const [archived, setArchived] = useState(false)
  const [page, setPage] = useState(0)
  const [creating, setCreating] = useState(false)
  const search = useDebounced(term)
  const teams = useLoad(() => {
    const q = new URLSearchParams({ term: search.trim(), include_deleted: String(archived), page: String(page), per_page: String(PAGE) })
    return api<{ teams: Array<ConsoleTeam>; total_count: number }>("GET", `/api/v1/admin/teams?${q}`)
  }, [search, archived, page])
  const rows = teams.data?.teams ?? []
  return (
    <section aria-labelledby="teams-title">
      <div class="row page-head">
        <h2 id="teams-title">Teams</h2>
        <button type="button" onClick={() => setCreating(true)}>Create team</button>
      </div>
      <Outcome error={teams.error} />
      <div class="row filters">
        <label>Search teams<input type="search" value={term} onInput={(e) => { setTerm(e.currentTarget.value); setPage(0) }} /></label>
        <label class="check"><input type="checkbox" checked={archived} onChange={(e) => { setArchived(e.currentTarget.checked); setPage(0) }} /> Include archived teams</label>
      </div>
      {teams.data && <p class="muted">{teams.data.total_count} {teams.data.total_count === 1 ? "team" : "teams"}</p>}
      <TableWrap label="Teams">
        <table>
          <thead><tr><th scope="col">Name</th><th scope="col">URL</th><th scope="col">Privacy</th><th scope="col">Members</th><th scope="col">Channels</th><th scope="col">State</th></tr></thead>
          <tbody>
            {rows.map((t) => (
              <tr key={t.id}>
                <td><a href={consolePath(`user_management/teams/${t.id}`)} onClick={link(consolePath(`user_management/teams/${t.id}`))}>{t.display_name}</a></td>
                <td>/{t.name}</td>
                <td>{t.allow_open_invite ? "Anyone can join" : "Invite only"}</td>
                <td>{t.active_member_count}{t.member_count !== t.active_member_count ? ` (${t.member_count - t.active_member_count} deactivated)` : ""}</td>
                <td>{t.channel_count}</td>
                <td>{t.delete_at ? "Archived" : "Active"}</td>
              </tr>
            ))}
            {teams.data && rows.length === 0 && <tr><td colSpan={6}>No teams match.</td></tr>}
          </tbody>
        </table>
      </TableWrap>
      <Pager label="Teams" page={page} hasNext={(page + 1) * PAGE < (teams.data?.total_count ?? 0)} onPage={setPage} />
      {creating && <CreateTeam onClose={() => setCreating(false)} onCreated={(id) => { setCreating(false); navigate(consolePath(`user_management/teams/${id}`)) }} />}
    </section>
  )
}

const CreateTeam = ({ onClose, onCreated }: { onClose: () => void; onCreated: (id: string) => void }) => {
  const [name, setName] = useState("")
  const [url, setUrl] = useState("")
  const { error, submit } = useFormSubmit(async (_, d) => {
    const team = await api<Team>("POST", "/api/v4/teams", {
      display_name: name.trim(), name: url || slug(name), type: d.get("open") === "on" ? "O" : "I"
    })
    notice.value = `Team ${team.display_name} created`
    onCreated(team.id)
  })
  return (
    <ConsoleDialog title="Create team" onClose={onClose}>
      <form onSubmit={submit}>
        <FormError error={error} />
        <label>Team name<input required maxLength={64} value={name} onInput={(e) => setName(e.currentTarget.value)} /></label>
        <label>Team URL<input required pattern="[a-z0-9]([a-z0-9\-]*[a-z0-9])?" minLength={2} maxLength={64} value={url || slug(name)}
          onInput={(e) => setUrl(e.currentTarget.value)} aria-describedby="team-url-help" /></label>
        <p id="team-url-help" class="help muted">2 to 64 lowercase letters, digits and dashes: {location.origin}/{url || slug(name) || "…"}</p>
        <label class="check"><input type="checkbox" name="open" /> Anyone with an account on this server can join</label>
        <div class="row dialog-actions"><button type="submit">Create team</button><button type="button" class="secondary" onClick={onClose}>Cancel</button></div>
      </form>
    </ConsoleDialog>
  )
}

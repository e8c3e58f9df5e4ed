import type { Team, TeamMembership } from "@mattermost/types/teams"
import { useEffect, useState } from "preact/hooks"
import { link } from "../app/router.ts"
import { client, errorMessage } from "../app/api.ts"
import { navigate } from "../app/router.ts"
import { config, me, put, teams } from "../app/state.ts"
import { Avatar } from "./Avatar.tsx"
import { closeModal, type ModalState } from "../shell/modal.ts"
import { MenuButton } from "../ui/Menu.tsx"
import { Modal } from "../ui/Modal.tsx"
import { users } from "./state.ts"
import { isTeamAdmin, loadMyTeams } from "./teams.ts"
import { PersonName } from "./PersonName.tsx"
import { fullName, UserPicker } from "./UserPicker.tsx"

const inviteLink = (team: Team) => `${location.origin}/signup_user_complete/?id=${team.invite_id}`

/** Invite people: the team's link (copy; regenerate for team admins), email invitations when the server sends mail, and adding people who already have an account. */
const Invite = ({ team }: { team: Team }) => {
  const [full, setFull] = useState<Team | null>(null)
  const [status, setStatus] = useState("")
  const [error, setError] = useState("")
  const [emails, setEmails] = useState("")
  const [added, setAdded] = useState<Array<string>>([])
  const [results, setResults] = useState<Array<{ email: string; problem: string }>>([])
  const admin = isTeamAdmin(team.id)
  const mail = config.value.EnableEmailInvitations === "true"
  useEffect(() => { client.getTeam(team.id).then(setFull, (e) => setError(errorMessage(e))) }, [team.id])
  const copy = async () => {
    if (!full) return
    try {
      await navigator.clipboard.writeText(inviteLink(full))
      setStatus("Link copied")
    } catch {
      // Without clipboard access the link is selected for the person to copy themselves.
      const field = document.getElementById("invite-link") as HTMLInputElement | null
      field?.select()
      setStatus("Press Ctrl+C to copy the selected link")
    }
  }
  const regenerate = async () => {
    try {
      setFull(await client.regenerateTeamInviteId(team.id))
      setStatus("A new link was made: the old one no longer works")
    } catch (e) {
      setError(errorMessage(e))
    }
  }
  // Sent gracefully: the server answers for each address (sent, or why not), shown in a list under the form.
  const send = async (e: Event) => {
    e.preventDefault()
    const list = [...new Set(emails.split(/[\s,;]+/).map((s) => s.trim()).filter(Boolean))]
    if (list.length === 0) return setError("Enter at least one email address")
    if (list.length > 20) return setError("At most 20 addresses at a time")
    try {
      const answers = await client.sendEmailInvitesToTeamGracefully(team.id, list)
      const sent = answers.filter((a) => !a.error).length
      setResults(answers.map((a) => ({ email: a.email, problem: a.error?.message ?? "" })))
      setEmails(sent === answers.length ? "" : answers.filter((a) => a.error).map((a) => a.email).join(", "))
      setError("")
      setStatus(`Invitations sent: ${sent} of ${answers.length}`)
    } catch (err) {
      setError(errorMessage(err))
    }
  }
  const add = async (userId: string, username: string) => {
    try {
      await client.addToTeam(team.id, userId)
      setAdded([...added, userId])
      setStatus(`${username} was added to ${team.display_name}`)
    } catch (e) {
      setError(errorMessage(e))
    }
  }
  return (
    <Modal title={`Invite people to ${team.display_name}`} class="wide">
      <div class="dialog-body">
        <p role="status" class="notice">{status}</p>
        {error && <p class="alert" role="alert">{error}</p>}
        <h3>Invite link</h3>
        <p class="muted">Anyone with this link can create an account and join the team.</p>
        <div class="row nowrap">
          <input id="invite-link" readOnly aria-label="Invite link" value={full ? inviteLink(full) : "…"} onFocus={(e) => e.currentTarget.select()} />
          <button type="button" onClick={() => void copy()} disabled={!full}>Copy link</button>
        </div>
        {admin && <button type="button" class="link" onClick={() => void regenerate()}>Regenerate link</button>}
        <h3>Invite by email</h3>
        {mail ? (
          <form onSubmit={send}>
            <label>Email addresses<textarea rows={2} value={emails} placeholder="ann@example.com, bob@example.com" onInput={(e) => setEmails(e.currentTarget.value)} /></label>
            <button type="submit">Send invitations</button>
            {results.length > 0 && (
              <ul class="list invite-results" aria-label="Invitation results">
                {results.map((r) => (
                  <li key={r.email}><span>{r.email}</span> {r.problem ? <span class="alert">Not sent: {r.problem}</span> : <span class="tag">Sent</span>}</li>
                ))}
              </ul>
            )}
          </form>
        ) : <p class="muted">Email invitations are off: this server has no email set up. Share the link instead.</p>}
        <h3>Add people who have an account</h3>
        <UserPicker label="Find people to add" exclude={added}
          find={(t) => (t ? client.searchUsers(t, { not_in_team_id: team.id, limit: 30 }) : client.getProfilesNotInTeam(team.id, false, 0, 30))}
          action={{ verb: "Add", run: (u) => void add(u.id, u.username) }} />
      </div>
    </Modal>
  )
}

const isAdminMember = (m: TeamMembership) => (m.roles ?? "").split(" ").includes("team_admin") || !!m.scheme_admin

const Members = ({ team }: { team: Team }) => {
  const [list, setList] = useState<Array<TeamMembership> | null>(null)
  const [term, setTerm] = useState("")
  const [status, setStatus] = useState("")
  const [error, setError] = useState("")
  const admin = isTeamAdmin(team.id)
  const load = async () => {
    const [memberships, profiles] = await Promise.all([client.getTeamMembers(team.id, 0, 200), client.getProfilesInTeam(team.id, 0, 200)])
    put(users, profiles)
    setList(memberships.filter((m) => m.delete_at === 0))
  }
  useEffect(() => { load().catch((e) => setError(errorMessage(e))) }, [team.id])
  const act = async (run: () => Promise<unknown>, done: string) => {
    try {
      await run()
      await load()
      setError("")
      setStatus(done)
    } catch (e) {
      setError(errorMessage(e))
    }
  }
  const needle = term.trim().toLowerCase()
  const shown = (list ?? [])
    .map((m) => ({ m, u: users.value[m.user_id] }))
    .filter(({ u }) => !needle || (u && `${u.username} ${fullName(u)} ${u.nickname}`.toLowerCase().includes(needle)))
    .sort((a, b) => Number(isAdminMember(b.m)) - Number(isAdminMember(a.m)) || (a.u?.username ?? "").localeCompare(b.u?.username ?? ""))
  return (
    <Modal title={`Members of ${team.display_name}`} class="wide">
      <div class="dialog-body">
        <p role="status" class="notice">{status}</p>
        {error && <p class="alert" role="alert">{error}</p>}
        <label>Search members<input type="search" value={term} onInput={(e) => setTerm(e.currentTarget.value)} placeholder="Name or username" /></label>
        {list === null && !error && <p class="muted">Loading…</p>}
        <ul class="list people" aria-label="Team members">
          {shown.map(({ m, u }) => {
            const name = u?.username ?? m.user_id
            const teamAdmin = isAdminMember(m)
            const self = m.user_id === me.value?.id
            return (
              <li key={m.user_id}>
                <span class="who"><Avatar userId={m.user_id} size={24} /> <PersonName user={u} fallback={name} /></span>
                <span class="row nowrap">
                  <span class={teamAdmin ? "tag strong" : "tag"}>{teamAdmin ? "Team admin" : "Member"}</span>
                  {admin && !self && (
                    <MenuButton label={`Actions for ${name}`} placement="bottom-end" items={() => [
                      !teamAdmin && { label: "Make team admin", onSelect: () => void act(() => client.updateTeamMemberSchemeRoles(team.id, m.user_id, true, true), `${name} is now a team admin`) },
                      teamAdmin && { label: "Remove team admin", onSelect: () => void act(() => client.updateTeamMemberSchemeRoles(team.id, m.user_id, true, false), `${name} is no longer a team admin`) },
                      { label: "Remove from team", danger: true, onSelect: () => void act(() => client.removeFromTeam(team.id, m.user_id), `${name} was removed from ${team.display_name}`) }
                    ]}>
                      <span aria-hidden="true">⋯</span>
                    </MenuButton>
                  )}
                </span>
              </li>
            )
          })}
        </ul>
      </div>
    </Modal>
  )
}

const JoinTeam = () => {
  const [open, setOpen] = useState<Array<Team> | null>(null)
  const [error, setError] = useState("")
  useEffect(() => {
    client.getTeams(0, 100).then((r) => {
      const list = Array.isArray(r) ? r : r.teams
      setOpen(list.filter((t) => !teams.value.some((m) => m.id === t.id) && t.delete_at === 0))
    }, (e) => setError(errorMessage(e)))
  }, [])
  const join = async (t: Team) => {
    try {
      await client.addToTeam(t.id, me.value!.id)
      await loadMyTeams()
      closeModal()
      navigate(`/${t.name}/channels/town-square`)
    } catch (e) {
      setError(errorMessage(e))
    }
  }
  return (
    <Modal title="Join another team">
      <div class="dialog-body">
        {error && <p class="alert" role="alert">{error}</p>}
        {open === null && !error && <p class="muted">Loading…</p>}
        {open?.length === 0 && <p class="muted">There is no other team open to join. Ask a team admin for an invite link.</p>}
        <ul class="list" aria-label="Teams you can join">
          {open?.map((t) => (
            <li key={t.id}><span class="what"><strong>{t.display_name}</strong>{t.description && <span class="muted purpose">{t.description}</span>}</span>
              <button type="button" aria-label={`Join ${t.display_name}`} onClick={() => void join(t)}>Join</button></li>
          ))}
        </ul>
        {config.value.EnableTeamCreation !== "false" && <p><a href="/create_team" onClick={(e) => { closeModal(); link("/create_team")(e) }}>Create a team</a></p>}
      </div>
    </Modal>
  )
}

const LeaveTeam = ({ team }: { team: Team }) => {
  const [error, setError] = useState("")
  const leave = async () => {
    try {
      await client.removeFromTeam(team.id, me.value!.id)
      await loadMyTeams()
      closeModal()
      const next = teams.value[0]
      navigate(next ? `/${next.name}/channels/town-square` : "/create_team")
    } catch (e) {
      setError(errorMessage(e))
    }
  }
  return (
    <Modal title={`Leave ${team.display_name}?`}>
      <div class="dialog-body">
        <p>You will leave all of its channels. You can come back through an invite link{team.allow_open_invite ? " or by joining it again" : ""}.</p>
        {error && <p class="alert" role="alert">{error}</p>}
        <div class="row end"><button type="button" class="secondary" onClick={closeModal}>Cancel</button>
          <button type="button" class="danger" onClick={() => void leave()}>Leave team</button></div>
      </div>
    </Modal>
  )
}

/** The people dialogs, loaded when one is first opened. */
export default function PeopleDialogs({ m, team }: { m: ModalState; team: Team }) {
  switch (m.kind) {
    case "invite": return <Invite team={team} />
    case "team-members": return <Members team={team} />
    case "join-team": return <JoinTeam />
    case "leave-team": return <LeaveTeam team={team} />
    default: return null
  }
}

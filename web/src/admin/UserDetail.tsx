import type { Team, TeamMembership } from "@mattermost/types/teams"
import type { UserProfile } from "@mattermost/types/users"
import { useState } from "preact/hooks"
import { link } from "../app/router.ts"
import { SetPassword } from "./UserDialogs.tsx"
import { displayName, isSystemAdmin } from "./Users.tsx"
import { act, api, consolePath, formatDate, useLoad } from "./state.ts"
import { Outcome, TableWrap, useConfirm } from "./ui.tsx"

interface Session {
  id: string
  create_at: number
  last_activity_at: number
  expires_at: number
  device_id?: string
  props?: Record<string, string>
}
interface Report { id: string; last_login?: number; total_posts?: number; days_active?: number; last_post_date?: number }

const isTeamAdmin = (m: TeamMembership) => m.scheme_admin || m.roles.split(" ").includes("team_admin")

/**
 * A user's page: who they are, what an admin can do to the account (password, second factor, sessions, system
 * admin role, deactivation; each destructive one after a confirmation), their teams with their role in each, their
 * sessions, and their recent activity (the user report's last sign-in and posting over 30 days).
 */
export default function UserDetail({ id }: { id: string }) {
  const user = useLoad(() => api<UserProfile>("GET", `/api/v4/users/${id}`), [id])
  const teams = useLoad(async () => {
    const [list, members] = await Promise.all([
      api<Array<Team>>("GET", `/api/v4/users/${id}/teams`),
      api<Array<TeamMembership>>("GET", `/api/v4/users/${id}/teams/members`)
    ])
    return list.map((t) => ({ team: t, member: members.find((m) => m.team_id === t.id) }))
  }, [id])
  const sessions = useLoad(() => api<Array<Session>>("GET", `/api/v4/users/${id}/sessions`), [id])
  const activity = useLoad(async () => {
    const u = await api<UserProfile>("GET", `/api/v4/users/${id}`)
    if (u.is_bot) return null
    const q = new URLSearchParams({ search_term: u.username, date_range: "last_30_days", page_size: "100", hide_active: "false" })
    const rows = await api<Array<Report>>("GET", `/api/v4/reports/users?${q}`)
    return rows.find((r) => r.id === id) ?? null
  }, [id])
  const confirm = useConfirm(() => reloadAll())
  const [password, setPassword] = useState(false)
  const u = user.data
  const reloadAll = async () => {
    await Promise.all([user.reload(), teams.reload(), sessions.reload()])
  }
  if (!u) return <section><h2>User</h2><Outcome error={user.error} /></section>
  const admin = isSystemAdmin(u)
  const ask = confirm.ask
  const roles = (on: boolean) => api("PUT", `/api/v4/users/${id}/roles`, { roles: on ? "system_user system_admin" : "system_user" })
  const setTeamAdmin = (team: Team, on: boolean) =>
    act(() => api("PUT", `/api/v4/teams/${team.id}/members/${id}/schemeRoles`, { scheme_user: true, scheme_admin: on }),
      `${u.username} ${on ? "is now a team admin" : "is now a member"} of ${team.display_name}`, teams.reload)

  return (
    <section aria-labelledby="user-title">
      <p><a href={consolePath("user_management/users")} onClick={link(consolePath("user_management/users"))}>Users</a> ›</p>
      <h2 id="user-title">{u.username}</h2>
      <Outcome error={teams.error || sessions.error} />
      <dl class="facts">
        <dt>Name</dt><dd>{displayName(u) || "—"}</dd>
        <dt>Email</dt><dd>{u.email || "—"}</dd>
        <dt>Role</dt><dd>{u.is_bot ? "Bot" : admin ? "System admin" : "Member"}</dd>
        <dt>State</dt><dd>{u.delete_at ? `Deactivated ${formatDate(u.delete_at)}` : "Active"}</dd>
        <dt>Sign-in</dt><dd>{u.auth_service ? `Single sign-on (${u.auth_service})` : "Email and password"}{u.mfa_active ? ", second factor on" : ""}</dd>
        <dt>Created</dt><dd>{formatDate(u.create_at)}</dd>
      </dl>
      <div class="row actions-bar" role="group" aria-label="Account actions">
        {!u.auth_service && !u.is_bot && <button type="button" class="secondary" onClick={() => setPassword(true)}>Set password</button>}
        {u.mfa_active && (
          <button type="button" class="danger" onClick={() => ask({
            title: `Reset the second factor of ${u.username}`, action: "Reset second factor", done: `Second factor of ${u.username} reset`,
            text: `${u.username} will sign in with the password alone until they set up a second factor again.`,
            run: () => api("PUT", `/api/v4/users/${id}/mfa`, { activate: false })
          })}>Reset second factor</button>
        )}
        <button type="button" class="danger" onClick={() => ask({
          title: `Revoke all sessions of ${u.username}`, action: "Revoke sessions", done: `Sessions of ${u.username} revoked`,
          text: `${u.username} will be signed out on every device and app.`,
          run: () => api("POST", `/api/v4/users/${id}/sessions/revoke/all`)
        })}>Revoke all sessions</button>
        {!u.is_bot && (admin
          ? <button type="button" class="danger" onClick={() => ask({
              title: `Remove the system admin role of ${u.username}`, action: "Remove system admin", done: `${u.username} is no longer a system admin`,
              text: `${u.username} will no longer be able to open the System Console or manage the server.`, run: () => roles(false)
            })}>Remove system admin role</button>
          : <button type="button" class="secondary" onClick={() => void act(() => roles(true), `${u.username} is now a system admin`, reloadAll)}>Make system admin</button>)}
        {u.delete_at
          ? <button type="button" class="secondary" onClick={() => void act(() => api("PUT", `/api/v4/users/${id}/active`, { active: true }), `${u.username} reactivated`, reloadAll)}>Reactivate</button>
          : <button type="button" class="danger" onClick={() => ask({
              title: `Deactivate ${u.username}`, action: "Deactivate", done: `${u.username} deactivated`,
              text: `${u.username} will be signed out everywhere and cannot sign in until reactivated. Their messages stay.`,
              run: () => api("PUT", `/api/v4/users/${id}/active`, { active: false })
            })}>Deactivate</button>}
      </div>

      <h3 id="user-teams">Teams</h3>
      <TableWrap label="Teams of the user">
        <table aria-labelledby="user-teams">
          <thead><tr><th scope="col">Team</th><th scope="col">Role</th><th scope="col">Actions</th></tr></thead>
          <tbody>
            {teams.data?.map(({ team, member }) => {
              const teamAdmin = member ? isTeamAdmin(member) : false
              return (
                <tr key={team.id}>
                  <td><a href={consolePath(`user_management/teams/${team.id}`)} onClick={link(consolePath(`user_management/teams/${team.id}`))}>{team.display_name}</a></td>
                  <td>{teamAdmin ? "Team admin" : "Member"}</td>
                  <td class="row">
                    {teamAdmin
                      ? <button type="button" class="secondary" aria-label={`Make member in ${team.display_name}`} onClick={() => void setTeamAdmin(team, false)}>Make member</button>
                      : <button type="button" class="secondary" aria-label={`Make team admin in ${team.display_name}`} onClick={() => void setTeamAdmin(team, true)}>Make team admin</button>}
                    <button type="button" class="danger" aria-label={`Remove from ${team.display_name}`} onClick={() => ask({
                      title: `Remove ${u.username} from ${team.display_name}`, action: "Remove from team", done: `${u.username} removed from ${team.display_name}`,
                      text: `${u.username} will leave ${team.display_name} and its channels.`,
                      run: () => api("DELETE", `/api/v4/teams/${team.id}/members/${id}`)
                    })}>Remove</button>
                  </td>
                </tr>
              )
            })}
            {teams.data?.length === 0 && <tr><td colSpan={3}>Not in any team.</td></tr>}
          </tbody>
        </table>
      </TableWrap>

      <h3 id="user-sessions">Sessions</h3>
      <TableWrap label="Sessions of the user">
        <table aria-labelledby="user-sessions">
          <thead><tr><th scope="col">Device</th><th scope="col">Signed in</th><th scope="col">Last active</th><th scope="col">Expires</th><th scope="col">Actions</th></tr></thead>
          <tbody>
            {sessions.data?.map((s) => {
              const device = [s.props?.browser, s.props?.os, s.props?.platform].filter(Boolean).join(", ") || (s.device_id ? "Mobile app" : "Unknown device")
              return (
                <tr key={s.id}>
                  <td>{device}</td><td>{formatDate(s.create_at)}</td><td>{formatDate(s.last_activity_at)}</td><td>{formatDate(s.expires_at)}</td>
                  <td><button type="button" class="danger" aria-label={`Revoke the session on ${device} since ${formatDate(s.create_at)}`} onClick={() => ask({
                    title: "Revoke this session", action: "Revoke session", done: "Session revoked",
                    text: `${u.username} will be signed out on ${device}.`,
                    run: () => api("POST", `/api/v4/users/${id}/sessions/revoke`, { session_id: s.id })
                  })}>Revoke</button></td>
                </tr>
              )
            })}
            {sessions.data?.length === 0 && <tr><td colSpan={5}>No open sessions.</td></tr>}
          </tbody>
        </table>
      </TableWrap>

      <h3>Recent activity</h3>
      <dl class="facts">
        <dt>Last sign-in</dt><dd>{formatDate(activity.data?.last_login)}</dd>
        <dt>Last post</dt><dd>{formatDate(activity.data?.last_post_date)}</dd>
        <dt>Posts in the last 30 days</dt><dd>{activity.data?.total_posts ?? 0}</dd>
        <dt>Days active in the last 30 days</dt><dd>{activity.data?.days_active ?? 0}</dd>
      </dl>

      {confirm.dialog}
      {password && <SetPassword user={u} onClose={() => setPassword(false)} onDone={() => { setPassword(false); void sessions.reload() }} />}
    </section>
  )
}

import type { UserProfile } from "@mattermost/types/users"
import { useState } from "preact/hooks"
import { link } from "../app/router.ts"
import { act, api, consolePath, useLoad } from "./state.ts"
import { ConfirmDialog, TableWrap } from "./ui.tsx"

interface Member { user_id: string; roles: string; scheme_admin?: boolean }

/**
 * The members of a team or a channel and their roles: add by username, make admin or member (schemeRoles), remove
 * after a confirmation. `base` is /api/v4/teams/{id} or /api/v4/channels/{id}.
 */
export const Members = ({ base, scope, name, onChange }: { base: string; scope: "team" | "channel"; name: string; onChange?: () => void }) => {
  const members = useLoad(async () => {
    const list = await api<Array<Member>>("GET", `${base}/members?page=0&per_page=200`)
    const users = list.length ? await api<Array<UserProfile>>("POST", "/api/v4/users/ids", list.map((m) => m.user_id)) : []
    return list.map((m) => ({ member: m, user: users.find((u) => u.id === m.user_id) })).filter((x) => x.user)
      .sort((a, b) => a.user!.username.localeCompare(b.user!.username))
  }, [base])
  const [username, setUsername] = useState("")
  const [removing, setRemoving] = useState<UserProfile | null>(null)
  const adminRole = scope === "team" ? "team_admin" : "channel_admin"
  const label = scope === "team" ? "Team admin" : "Channel admin"
  const reload = async () => {
    await members.reload()
    onChange?.()
  }
  const add = async (e: Event) => {
    e.preventDefault()
    const wanted = username.trim().replace(/^@/, "")
    if (!wanted) return
    const ok = await act(async () => {
      const user = await api<UserProfile>("GET", `/api/v4/users/username/${encodeURIComponent(wanted)}`)
      await api("POST", `${base}/members`, scope === "team" ? { team_id: base.split("/").pop(), user_id: user.id } : { user_id: user.id })
    }, `${wanted} added to ${name}`, reload)
    if (ok) setUsername("")
  }
  const setAdmin = (u: UserProfile, on: boolean) =>
    act(() => api("PUT", `${base}/members/${u.id}/schemeRoles`, { scheme_user: true, scheme_admin: on }),
      `${u.username} is now ${on ? `a ${label.toLowerCase()}` : "a member"} of ${name}`, reload)
  return (
    <section aria-labelledby={`${scope}-members`}>
      <h3 id={`${scope}-members`}>Members</h3>
      <form class="row inline-form" onSubmit={add}>
        <label>Add a member by username<input value={username} onInput={(e) => setUsername(e.currentTarget.value)} autocomplete="off" /></label>
        <button type="submit">Add member</button>
      </form>
      {members.error && <p role="alert" class="alert">{members.error}</p>}
      <TableWrap label={`Members of ${name}`}>
        <table>
          <thead><tr><th scope="col">User</th><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Actions</th></tr></thead>
          <tbody>
            {members.data?.map(({ member, user }) => {
              const u = user!
              const admin = member.scheme_admin || member.roles.split(" ").includes(adminRole)
              return (
                <tr key={u.id}>
                  <td><a href={consolePath(`user_management/users/${u.id}`)} onClick={link(consolePath(`user_management/users/${u.id}`))}>{u.username}</a></td>
                  <td>{u.email}</td>
                  <td>{admin ? label : "Member"}</td>
                  <td class="row">
                    {admin
                      ? <button type="button" class="secondary" aria-label={`Make member: ${u.username}`} onClick={() => void setAdmin(u, false)}>Make member</button>
                      : <button type="button" class="secondary" aria-label={`Make ${label.toLowerCase()}: ${u.username}`} onClick={() => void setAdmin(u, true)}>Make {label.toLowerCase()}</button>}
                    <button type="button" class="danger" aria-label={`Remove ${u.username}`} onClick={() => setRemoving(u)}>Remove</button>
                  </td>
                </tr>
              )
            })}
            {members.data?.length === 0 && <tr><td colSpan={4}>No members.</td></tr>}
          </tbody>
        </table>
      </TableWrap>
      {removing && (
        <ConfirmDialog title={`Remove ${removing.username} from ${name}`} action="Remove member"
          text={scope === "team" ? `${removing.username} will leave ${name} and its channels.` : `${removing.username} will leave ${name}.`}
          onCancel={() => setRemoving(null)}
          onConfirm={() => { const u = removing; setRemoving(null); void act(() => api("DELETE", `${base}/members/${u.id}`), `${u.username} removed from ${name}`, reload) }} />
      )}
    </section>
  )
}

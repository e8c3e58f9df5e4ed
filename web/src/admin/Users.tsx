import type { UserProfile } from "@mattermost/types/users"
import { useState } from "preact/hooks"
import { link, navigate } from "../app/router.ts"
import { CreateUser } from "./UserDialogs.tsx"
import { act, api, consolePath, formatDate, useDebounced, useLoad } from "./state.ts"
import { ConfirmDialog, Outcome, Pager, TableWrap } from "./ui.tsx"

type Row = UserProfile & { last_login?: number }
type Column = "Username" | "Email" | "CreateAt"
type Show = "all" | "active" | "inactive" | "admins" | "bots"

const PAGE = 20
const COLUMNS: ReadonlyArray<[Column, string]> = [["Username", "Username"], ["Email", "Email"], ["CreateAt", "Created"]]
const sortValue = (u: Row, c: Column) => (c === "Username" ? u.username : c === "Email" ? u.email : String(u.create_at))

export const isSystemAdmin = (u: { roles: string }) => u.roles.split(" ").includes("system_admin")
export const displayName = (u: UserProfile) => [u.first_name, u.last_name].filter(Boolean).join(" ")

/**
 * User management > Users: the user report (GET /api/v4/reports/users, cursor-paged on the sort column) searched,
 * filtered by role and state, sorted by a column; bots from GET /api/v4/bots. Each row opens the user's page; the
 * row deactivates and reactivates, after a confirmation.
 */
export default function Users() {
  const [term, setTerm] = useState("")
  const [show, setShow] = useState<Show>("all")
  const [sort, setSort] = useState<{ column: Column; ascending: boolean }>({ column: "Username", ascending: true })
  // The cursor of each page shown so far: Next adds the last row's, Previous drops one.
  const [cursors, setCursors] = useState<Array<{ value: string; id: string }>>([])
  const [creating, setCreating] = useState(false)
  const [confirm, setConfirm] = useState<Row | null>(null)
  const search = useDebounced(term)
  const cursor = cursors[cursors.length - 1]
  const users = useLoad(async (): Promise<Array<Row>> => {
    if (show === "bots") {
      const bots = await api<Array<{ user_id: string }>>("GET", `/api/v4/bots?include_deleted=true&per_page=${PAGE}&page=${cursors.length}`)
      if (bots.length === 0) return []
      const rows = await api<Array<Row>>("POST", "/api/v4/users/ids", bots.map((b) => b.user_id))
      const t = search.trim().toLowerCase()
      return rows.filter((u) => !t || u.username.includes(t))
    }
    const q = new URLSearchParams({
      sort_column: sort.column,
      sort_direction: sort.ascending ? "asc" : "desc",
      page_size: String(PAGE),
      search_term: search.trim()
    })
    if (show === "active") q.set("hide_inactive", "true")
    if (show === "inactive") q.set("hide_active", "true")
    if (show === "admins") q.set("role_filter", "system_admin")
    if (cursor) {
      q.set("from_column_value", cursor.value)
      q.set("from_id", cursor.id)
    }
    return api<Array<Row>>("GET", `/api/v4/reports/users?${q}`)
  }, [search, show, sort.column, sort.ascending, cursors.length])
  const restart = () => setCursors([])
  const rows = users.data ?? []
  const setActive = (u: Row, active: boolean) =>
    act(() => api("PUT", `/api/v4/users/${u.id}/active`, { active }), `${u.username} ${active ? "reactivated" : "deactivated"}`, users.reload)

  return (
    <section aria-labelledby="users-title">
      <div class="row page-head">
        <h2 id="users-title">Users</h2>
        <button type="button" onClick={() => setCreating(true)}>Create user</button>
      </div>
      <Outcome error={users.error} />
      <div class="row filters">
        <label>Search users<input type="search" value={term} onInput={(e) => { setTerm(e.currentTarget.value); restart() }} /></label>
        <label>Show
          <select value={show} onChange={(e) => { setShow(e.currentTarget.value as Show); restart() }}>
            <option value="all">All users</option>
            <option value="active">Active users</option>
            <option value="inactive">Deactivated users</option>
            <option value="admins">System admins</option>
            <option value="bots">Bots</option>
          </select>
        </label>
      </div>
      <TableWrap label="Users">
        <table>
          <caption class="sr-only">Users, sorted by {COLUMNS.find(([c]) => c === sort.column)![1]} {sort.ascending ? "ascending" : "descending"}</caption>
          <thead>
            <tr>
              {COLUMNS.map(([c, label]) => (
                <th scope="col" key={c} aria-sort={show !== "bots" && sort.column === c ? (sort.ascending ? "ascending" : "descending") : undefined}>
                  {show === "bots" ? label : (
                    <button type="button" class="link" onClick={() => { setSort({ column: c, ascending: sort.column === c ? !sort.ascending : true }); restart() }}>
                      {label}{sort.column === c && <span aria-hidden="true">{sort.ascending ? " ▲" : " ▼"}</span>}
                    </button>
                  )}
                </th>
              ))}
              <th scope="col">Role</th><th scope="col">State</th><th scope="col">Last sign-in</th><th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((u) => (
              <tr key={u.id}>
                <td><a href={consolePath(`user_management/users/${u.id}`)} onClick={link(consolePath(`user_management/users/${u.id}`))}>{u.username}</a>
                  {displayName(u) && <span class="muted"> {displayName(u)}</span>}</td>
                <td>{u.email}</td>
                <td>{new Date(u.create_at).toLocaleDateString()}</td>
                <td>{u.is_bot ? "Bot" : isSystemAdmin(u) ? "System admin" : "Member"}</td>
                <td>{u.delete_at ? "Deactivated" : "Active"}</td>
                <td>{u.is_bot ? "—" : formatDate(u.last_login)}</td>
                <td>
                  {u.delete_at
                    ? <button type="button" class="secondary" aria-label={`Reactivate ${u.username}`} onClick={() => void setActive(u, true)}>Reactivate</button>
                    : <button type="button" class="danger" aria-label={`Deactivate ${u.username}`} onClick={() => setConfirm(u)}>Deactivate</button>}
                </td>
              </tr>
            ))}
            {users.data && rows.length === 0 && <tr><td colSpan={7}>No users match.</td></tr>}
          </tbody>
        </table>
      </TableWrap>
      <Pager label="Users" page={cursors.length} hasNext={rows.length === PAGE}
        onPage={(p) => {
          if (p < cursors.length) setCursors(cursors.slice(0, p))
          else if (show === "bots") setCursors([...cursors, { value: "", id: "" }])
          else setCursors([...cursors, { value: sortValue(rows[rows.length - 1], sort.column), id: rows[rows.length - 1].id }])
        }} />
      {confirm && (
        <ConfirmDialog title={`Deactivate ${confirm.username}`} action="Deactivate"
          text={`${confirm.username} will be signed out everywhere and cannot sign in until reactivated. Their messages stay.`}
          onCancel={() => setConfirm(null)} onConfirm={() => { const u = confirm; setConfirm(null); void setActive(u, false) }} />
      )}
      {creating && <CreateUser onClose={() => setCreating(false)} onCreated={(id) => { setCreating(false); navigate(consolePath(`user_management/users/${id}`)) }} />}
    </section>
  )
}

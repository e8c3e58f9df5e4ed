import type { Team } from "@mattermost/types/teams"
import type { UserProfile } from "@mattermost/types/users"
import { useEffect, useState } from "preact/hooks"
import { client, errorMessage, v1 } from "../app/api.ts"
import { link, path } from "../app/router.ts"
import { Confirm } from "../ui/Confirm.tsx"

/**
 * The system console (system admins only; loaded on demand, so its code is not part of the first load): SSO providers
 * and switches, push notifications, users, teams, server health and statistics. Everything goes through the same
 * APIs an integration would use (/api/v1/admin, /api/v1/health, /api/v4/users and /teams).
 */
interface Provider {
  id: string
  provider_key: string
  provider_type: string
  display_name: string
  issuer_url?: string
  client_id: string
  is_active: boolean
  auto_provision: boolean
  default_role?: string
  last_tested_at?: number | null
  last_test_success?: boolean | null
}

const useLoad = <T,>(load: () => Promise<T>, deps: Array<unknown> = []) => {
  const [data, setData] = useState<T | null>(null)
  const [error, setError] = useState("")
  const reload = () => load().then((d) => { setData(d); setError("") }, (e) => setError(errorMessage(e)))
  useEffect(() => void reload(), deps)
  return { data, error, reload, setError }
}

const Sso = () => {
  const providers = useLoad(() => v1<Array<Provider>>("GET", "/api/v1/admin/sso"))
  const settings = useLoad(() => v1<{ enable_sso: boolean; require_sso: boolean }>("GET", "/api/v1/admin/sso/settings"))
  const [results, setResults] = useState<Record<string, string>>({})
  const [editing, setEditing] = useState<string | null>(null)
  const [deleting, setDeleting] = useState<string | null>(null)
  const [notice, setNotice] = useState("")
  const [error, setError] = useState("")
  const act = async (f: () => Promise<unknown>) => {
    try {
      setError("")
      await f()
      await providers.reload()
      await settings.reload()
    } catch (e) {
      setError(errorMessage(e))
    }
  }
  const create = (e: Event) => {
    e.preventDefault()
    const form = e.currentTarget as HTMLFormElement
    const d = new FormData(form)
    void act(async () => {
      const saved = await v1<{ warnings?: Array<string> }>("POST", "/api/v1/admin/sso", {
        provider_key: d.get("provider_key"), provider_type: d.get("provider_type"), display_name: d.get("display_name"),
        issuer_url: d.get("issuer_url") || undefined, client_id: d.get("client_id"), client_secret: d.get("client_secret"),
        is_active: d.get("is_active") === "on", auto_provision: d.get("auto_provision") === "on", default_role: "member"
      })
      form.reset()
      // e.g. "single sign-on is switched off globally": the provider is saved but not offered yet.
      setNotice(saved?.warnings?.length ? `Saved, but: ${saved.warnings.join("; ")}` : "Provider added")
    })
  }
  const test = (p: Provider) =>
    act(async () => {
      const r = await v1<{ success: boolean; message?: string; error?: string; details?: unknown }>("POST", `/api/v1/admin/sso/${p.id}/test`)
      setResults((m) => ({ ...m, [p.id]: r.success ? "Test succeeded" : `Test failed: ${r.message ?? r.error ?? JSON.stringify(r.details ?? r)}` }))
    })
  return (
    <section aria-labelledby="sso-title">
      <h2 id="sso-title">Single sign-on</h2>
      {(error || providers.error) && <p class="alert" role="alert">{error || providers.error}</p>}
      {notice && <p role="status">{notice}</p>}
      {settings.data && (
        <fieldset>
          <legend>Global switches</legend>
          <label class="check"><input type="checkbox" checked={settings.data.enable_sso} onChange={(e) => void act(() => v1("PUT", "/api/v1/admin/sso/settings", { enable_sso: e.currentTarget.checked }))} /> Enable SSO</label>
          <label class="check"><input type="checkbox" checked={settings.data.require_sso} onChange={(e) => void act(() => v1("PUT", "/api/v1/admin/sso/settings", { require_sso: e.currentTarget.checked }))} /> Require SSO for web sign-in</label>
        </fieldset>
      )}
      <table>
        <caption>Providers</caption>
        <thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Type</th><th scope="col">Active</th><th scope="col">Last test</th><th scope="col">Actions</th></tr></thead>
        <tbody>
          {providers.data?.map((p) => (
            <tr key={p.id}>
              <td>{p.display_name}</td><td>{p.provider_key}</td><td>{p.provider_type}</td><td>{p.is_active ? "Yes" : "No"}</td>
              <td role="status">{results[p.id] ?? (p.last_tested_at ? (p.last_test_success ? "Passed" : "Failed") : "Never")}</td>
              <td class="row">
                <button type="button" aria-label={`Test ${p.display_name}`} onClick={() => void test(p)}>Test</button>
                <button type="button" class="secondary" aria-label={`${p.is_active ? "Deactivate" : "Activate"} ${p.display_name}`} onClick={() => void act(() => v1("PUT", `/api/v1/admin/sso/${p.id}`, { is_active: !p.is_active }))}>{p.is_active ? "Deactivate" : "Activate"}</button>
                <button type="button" class="secondary" aria-label={`Edit ${p.display_name}`} aria-expanded={editing === p.id} onClick={() => setEditing(editing === p.id ? null : p.id)}>Edit</button>
                <button type="button" class="danger" aria-label={`Delete ${p.display_name}`} onClick={() => setDeleting(p.id)}>Delete</button>
                {deleting === p.id && (
                  <Confirm id={p.id} title={`Delete ${p.display_name}`} text={`Delete ${p.display_name}? People can no longer sign in with it.`} action="Delete provider"
                    onConfirm={() => { setDeleting(null); void act(() => v1("DELETE", `/api/v1/admin/sso/${p.id}`)) }} onCancel={() => setDeleting(null)} />
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {editing && providers.data?.find((p) => p.id === editing) && (
        <EditProvider provider={providers.data.find((p) => p.id === editing)!} onDone={() => { setEditing(null); void providers.reload() }} onError={setError} />
      )}
      <form onSubmit={create} class="grid-form">
        <h3>Add a provider</h3>
        <label>Display name<input name="display_name" required /></label>
        <label>Key<input name="provider_key" required pattern="[a-z0-9\-]+" /></label>
        <label>Type<select name="provider_type"><option value="oidc">Generic OIDC</option><option value="webidp">Web identity provider (OIDC)</option><option value="codehost">Code host (OAuth 2.0)</option></select></label>
        <label>Issuer URL<input name="issuer_url" type="url" /></label>
        <label>Client ID<input name="client_id" required /></label>
        <label>Client secret<input name="client_secret" type="password" required autocomplete="off" /></label>
        <label class="check"><input type="checkbox" name="is_active" defaultChecked /> Active</label>
        <label class="check"><input type="checkbox" name="auto_provision" defaultChecked /> Create accounts on first sign-in</label>
        <button type="submit">Add provider</button>
      </form>
    </section>
  )
}

/** Changes a provider; the key and type are fixed, and an empty secret keeps the stored one. */
const EditProvider = ({ provider, onDone, onError }: { provider: Provider; onDone: () => void; onError: (m: string) => void }) => {
  const save = async (e: Event) => {
    e.preventDefault()
    const d = new FormData(e.currentTarget as HTMLFormElement)
    const patch: Record<string, unknown> = {
      display_name: d.get("display_name"),
      client_id: d.get("client_id"),
      auto_provision: d.get("auto_provision") === "on"
    }
    if (provider.provider_type !== "codehost") patch.issuer_url = d.get("issuer_url")
    if (d.get("client_secret")) patch.client_secret = d.get("client_secret")
    try {
      await v1("PUT", `/api/v1/admin/sso/${provider.id}`, patch)
      onDone()
    } catch (err) {
      onError(errorMessage(err))
    }
  }
  return (
    <form onSubmit={save} class="grid-form" aria-label={`Edit ${provider.display_name}`}>
      <h3>Edit {provider.display_name} ({provider.provider_key})</h3>
      <label>Display name<input name="display_name" required defaultValue={provider.display_name} /></label>
      {provider.provider_type !== "codehost" && <label>Issuer URL<input name="issuer_url" type="url" defaultValue={provider.issuer_url ?? ""} /></label>}
      <label>Client ID<input name="client_id" required defaultValue={provider.client_id} /></label>
      <label>New client secret (leave empty to keep)<input name="client_secret" type="password" autocomplete="off" /></label>
      <label class="check"><input type="checkbox" name="auto_provision" defaultChecked={provider.auto_provision} /> Create accounts on first sign-in</label>
      <button type="submit">Save changes</button>
    </form>
  )
}

/** Labels of the push settings (GET /api/v1/admin/push names them; the private ones come back only as "set"). */
const PUSH_FIELDS: Array<[string, string, boolean]> = [
  ["push_proxy_url", "Push proxy URL (Mattermost's push proxy, or a compatible one)", false],
  ["push_android_project_id", "Firebase project ID", false],
  ["push_android_access_token", "Firebase access token", true],
  ["push_android_service_account_key", "Firebase service account key (JSON)", true],
  ["push_fcm_base_url", "Firebase base URL", false],
  ["push_ios_key_id", "APNs key ID", false],
  ["push_ios_team_id", "APNs team ID", false],
  ["push_ios_bundle_id", "iOS bundle ID", false],
  ["push_ios_private_key", "APNs private key (.p8)", true],
  ["push_apns_base_url", "APNs base URL", false],
  ["push_apns_ca_cert", "APNs CA certificate (PEM)", false]
]

const Push = () => {
  const push = useLoad(() => v1<Record<string, unknown>>("GET", "/api/v1/admin/push"))
  const [message, setMessage] = useState("")
  const data = push.data ?? {}
  const fields = PUSH_FIELDS.filter(([key]) => key in data)
  // Only what was changed is sent: an untouched private field keeps its stored value, an emptied one is cleared.
  const save = async (e: Event) => {
    e.preventDefault()
    const form = new FormData(e.currentTarget as HTMLFormElement)
    const patch: Record<string, string | null> = {}
    for (const [key, , secret] of fields) {
      const value = String(form.get(key) ?? "")
      if (secret ? value !== "" : value !== String(data[key] ?? "")) patch[key] = value === "" ? null : value
    }
    try {
      setMessage("")
      await v1("PUT", "/api/v1/admin/push", patch)
      await push.reload()
      setMessage("Push configuration saved")
    } catch (err) {
      push.setError(errorMessage(err))
    }
  }
  const transports = (data.enabled_transports as Array<string> | undefined) ?? []
  const fromEnv = (data.from_environment as Array<string> | undefined) ?? []
  return (
    <section aria-labelledby="push-title">
      <h2 id="push-title">Push notifications</h2>
      {push.error && <p class="alert" role="alert">{push.error}</p>}
      <p role="status">{message}</p>
      {push.data && <p>Sending through: {transports.length ? transports.join(", ") : "nothing configured"}</p>}
      {push.data && (
        <form onSubmit={save} class="grid-form" key={JSON.stringify(data)}>
          {fields.map(([key, label, secret]) => (
            <label key={key}>{label}{fromEnv.includes(key) ? " (from the environment)" : ""}
              {secret
                ? <input name={key} type="password" autocomplete="off" placeholder={data[key] === "set" ? "Set (leave empty to keep)" : "Not set"} />
                : key.endsWith("_key") || key.endsWith("_cert")
                  ? <textarea name={key} rows={3} defaultValue={String(data[key] ?? "")} />
                  : <input name={key} defaultValue={String(data[key] ?? "")} />}
            </label>
          ))}
          <button type="submit">Save push configuration</button>
        </form>
      )}
    </section>
  )
}

const Users = () => {
  const [term, setTerm] = useState("")
  const [message, setMessage] = useState("")
  const users = useLoad(() => (term ? client.searchUsers(term, { allow_inactive: true }) : client.getProfiles(0, 100, { active: undefined } as any)), [term])
  const act = async (f: () => Promise<unknown>, done: string) => {
    try {
      setMessage("")
      await f()
      await users.reload()
      setMessage(done)
    } catch (e) {
      users.setError(errorMessage(e))
    }
  }
  return (
    <section aria-labelledby="users-title">
      <h2 id="users-title">Users</h2>
      {users.error && <p class="alert" role="alert">{users.error}</p>}
      <p role="status">{message}</p>
      <label>Search users<input type="search" value={term} onInput={(e) => setTerm(e.currentTarget.value)} /></label>
      <table>
        <thead><tr><th scope="col">Username</th><th scope="col">Email</th><th scope="col">Role</th><th scope="col">State</th><th scope="col">Actions</th></tr></thead>
        <tbody>
          {(users.data as Array<UserProfile> | null)?.map((u) => {
            const admin = u.roles.includes("system_admin")
            return (
              <tr key={u.id}>
                <td>{u.username}</td><td>{u.email}</td><td>{admin ? "System admin" : "Member"}</td><td>{u.delete_at ? "Deactivated" : "Active"}</td>
                <td class="row">
                  <button type="button" class="secondary" aria-label={`${u.delete_at ? "Activate" : "Deactivate"} ${u.username}`} onClick={() => void act(() => client.updateUserActive(u.id, u.delete_at > 0), `${u.username} ${u.delete_at ? "activated" : "deactivated"}`)}>{u.delete_at ? "Activate" : "Deactivate"}</button>
                  <button type="button" class="secondary" aria-label={`${admin ? "Demote" : "Promote"} ${u.username}`} onClick={() => void act(() => client.updateUserRoles(u.id, admin ? "system_user" : "system_user system_admin"), `${u.username} ${admin ? "is no longer" : "is now"} a system admin`)}>{admin ? "Demote" : "Promote"}</button>
                  <button type="button" class="secondary" aria-label={`Revoke sessions of ${u.username}`} onClick={() => void act(() => client.revokeAllSessionsForUser(u.id), `Sessions of ${u.username} revoked`)}>Revoke sessions</button>
                </td>
              </tr>
            )
          })}
        </tbody>
      </table>
    </section>
  )
}

const Teams = () => {
  const teams = useLoad(() => client.getTeams(0, 100) as Promise<Array<Team>>)
  return (
    <section aria-labelledby="teams-title">
      <h2 id="teams-title">Teams</h2>
      {teams.error && <p class="alert" role="alert">{teams.error}</p>}
      <table>
        <thead><tr><th scope="col">Name</th><th scope="col">URL</th><th scope="col">Type</th><th scope="col">Invite link</th></tr></thead>
        <tbody>
          {teams.data?.map((t) => (
            <tr key={t.id}><td>{t.display_name}</td><td>/{t.name}</td><td>{t.type === "O" ? "Open" : "Invite only"}</td>
              <td><code>{`${location.origin}/signup_user_complete?id=${t.invite_id}`}</code></td></tr>
          ))}
        </tbody>
      </table>
    </section>
  )
}

const Health = () => {
  const ready = useLoad(() => fetch("/api/v1/health/ready").then((r) => r.json()))
  const stats = useLoad(() => v1<Record<string, unknown>>("GET", "/api/v1/health/stats"))
  return (
    <section aria-labelledby="health-title">
      <h2 id="health-title">Server health and statistics</h2>
      {(ready.error || stats.error) && <p class="alert" role="alert">{ready.error || stats.error}</p>}
      <h3>Readiness</h3>
      <pre>{ready.data ? JSON.stringify(ready.data, null, 2) : "…"}</pre>
      <h3>Statistics</h3>
      <pre>{stats.data ? JSON.stringify(stats.data, null, 2) : "…"}</pre>
      <button type="button" class="secondary" onClick={() => { void ready.reload(); void stats.reload() }}>Refresh</button>
    </section>
  )
}

const SECTIONS = [
  ["sso", "Single sign-on", Sso],
  ["push", "Push notifications", Push],
  ["users", "Users", Users],
  ["teams", "Teams", Teams],
  ["health", "Health and statistics", Health]
] as const

export default function Admin() {
  const current = path().split("/")[2] || "sso"
  const section = SECTIONS.find(([key]) => key === current) ?? SECTIONS[0]
  const View = section[2]
  return (
    <div class="admin">
      <nav aria-label="System console">
        <h1>System console</h1>
        <ul>
          {SECTIONS.map(([key, label]) => (
            <li key={key}><a href={`/admin_console/${key}`} onClick={link(`/admin_console/${key}`)} aria-current={key === section[0] ? "page" : undefined}>{label}</a></li>
          ))}
        </ul>
        <a href="/" onClick={link("/")}>Back to chat</a>
      </nav>
      <main><View /></main>
    </div>
  )
}

import { useState } from "preact/hooks"
import { errorMessage, v1 } from "../app/api.ts"
import { Confirm } from "../ui/Confirm.tsx"
import { useLoad } from "./state.ts"

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

/**
 * Single sign-on: the service's OpenID Connect and OAuth providers (/api/v1/admin/sso) and the global switches.
 */
export default function Sso() {
  return <SsoPage />
}

const SsoPage = () => {
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


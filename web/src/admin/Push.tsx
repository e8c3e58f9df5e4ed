import { useState } from "preact/hooks"
import { errorMessage, v1 } from "../app/api.ts"
import { useLoad } from "./state.ts"

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

/** Push credentials (/api/v1/admin/push): the proxy, Firebase and APNs; private values are never shown back. */
export default function Push() {
  return <PushForm />
}

const PushForm = () => {
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
    <section aria-labelledby="push-title" class="callout">
      <h3 id="push-title">Push credentials</h3>
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


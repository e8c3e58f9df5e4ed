import { useState } from "preact/hooks"
import { lazy, Suspense } from "preact/compat"
import { act, api, clearOutcome, failure, useLoad } from "./state.ts"
import { type Setting, type SettingsPage as Page, patchOf, valueAt } from "./settings.ts"
import { Outcome } from "./ui.tsx"

const TestEmail = lazy(() => import("./TestEmail.tsx"))
const Push = lazy(() => import("./Push.tsx"))

export interface Sources {
  readonly writable: ReadonlyArray<string>
  readonly environment: Record<string, string>
}

const fieldId = (key: string) => `setting-${key.replace(".", "-")}`

/** What is wrong with a value typed in, as the server would refuse it (checked before saving). */
const problem = (s: Setting, raw: string | boolean): string => {
  if (s.kind === "bool") return ""
  const value = String(raw).trim()
  if (s.required && value === "") return `${s.label} is required.`
  if (s.kind === "number" && value !== "") {
    const n = Number(value)
    if (!Number.isInteger(n)) return `${s.label} must be a whole number.`
    if (s.min !== undefined && n < s.min) return `${s.label} must be at least ${s.min}.`
    if (s.max !== undefined && n > s.max) return `${s.label} must be at most ${s.max}.`
  }
  if (s.maxLength !== undefined && [...value].length > s.maxLength) return `${s.label} must be at most ${s.maxLength} characters.`
  if (s.kind === "url" && value !== "" && !/^https?:\/\/\S+$/.test(value)) return `${s.label} must be an http:// or https:// address.`
  return ""
}

const shown = (s: Setting, value: unknown): string | boolean => {
  if (s.kind === "bool") return value === true
  if (s.scale && typeof value === "number") return String(Math.round(value / s.scale.factor))
  return Array.isArray(value) ? value.join(", ") : String(value ?? "")
}

const stored = (s: Setting, raw: string | boolean): unknown => {
  if (s.kind === "bool") return raw === true
  if (s.kind === "number") return Number(String(raw).trim()) * (s.scale?.factor ?? 1)
  return String(raw).trim()
}

/**
 * One settings page: every setting with its help; the ones the server changes at run time are a form saved with
 * PUT /api/v4/config/patch (only what changed is sent), the others read-only with where they come from.
 */
export default function SettingsPage({ page }: { page: Page }) {
  const config = useLoad(() => api<Record<string, any>>("GET", "/api/v4/config"), [page.path])
  const sources = useLoad(() => api<Sources>("GET", "/api/v1/admin/config/sources"))
  const [draft, setDraft] = useState<Record<string, string | boolean>>({})
  const [errors, setErrors] = useState<Record<string, string>>({})
  const doc = config.data
  const src = sources.data
  const editable = (s: Setting) => !!src && src.writable.includes(s.key) && src.environment[s.key] === undefined
  const current = (s: Setting) => draft[s.key] ?? shown(s, valueAt(doc, s.key))

  const save = async (e: Event) => {
    e.preventDefault()
    const found: Record<string, string> = {}
    const changes: Record<string, unknown> = {}
    for (const s of page.settings.filter(editable)) {
      if (!(s.key in draft)) continue
      const wrong = problem(s, draft[s.key])
      if (wrong) found[s.key] = wrong
      else if (draft[s.key] !== shown(s, valueAt(doc, s.key))) changes[s.key] = stored(s, draft[s.key])
    }
    setErrors(found)
    if (Object.keys(found).length > 0) {
      clearOutcome()
      failure.value = "Some settings are not valid; nothing was saved."
      document.getElementById(fieldId(Object.keys(found)[0]))?.focus()
      return
    }
    if (Object.keys(changes).length === 0) {
      clearOutcome()
      failure.value = "Nothing to save: no setting was changed."
      return
    }
    await act(() => api("PUT", "/api/v4/config/patch", patchOf(changes)), "Settings saved", async () => {
      await config.reload()
      setDraft({})
    })
  }

  const field = (s: Setting) => {
    const id = fieldId(s.key)
    const env = src?.environment[s.key]
    const canEdit = editable(s)
    const help = `${id}-help`
    const error = errors[s.key]
    const describedBy = [help, error ? `${id}-error` : ""].filter(Boolean).join(" ")
    const set = (value: string | boolean) => {
      setDraft((d) => ({ ...d, [s.key]: value }))
      if (errors[s.key]) setErrors((x) => ({ ...x, [s.key]: problem(s, value) }))
    }
    const value = current(s)
    const origin = env ? `Set by the environment variable ${env}: change it there and restart the server.` : canEdit ? "" : "Fixed on this server."
    return (
      <div class="setting" key={s.key}>
        {s.kind === "bool"
          ? (
            <label class="check">
              <input id={id} type="checkbox" checked={value === true} disabled={!canEdit} aria-describedby={describedBy}
                onChange={(e) => set(e.currentTarget.checked)} />
              {s.label}
            </label>
          )
          : (
            <label>
              {s.label}
              {s.kind === "select"
                ? (
                  <select id={id} value={String(value)} disabled={!canEdit} aria-describedby={describedBy} onChange={(e) => set(e.currentTarget.value)}>
                    {s.options?.map(([v, label]) => <option key={v} value={v}>{label}</option>)}
                  </select>
                )
                : s.kind === "textarea"
                ? <textarea id={id} rows={3} value={String(value)} readOnly={!canEdit} aria-invalid={!!error} aria-describedby={describedBy}
                    onInput={(e) => set(e.currentTarget.value)} />
                : <input id={id} type={(s.kind === "number" ? "number" : s.kind === "url" ? "url" : "text") as "text"} value={String(value)} readOnly={!canEdit}
                    aria-invalid={!!error} aria-describedby={describedBy} onInput={(e) => set(e.currentTarget.value)} />}
            </label>
          )}
        <p id={help} class="help muted">{s.help}{origin && <> <strong class="origin">{origin}</strong></>}</p>
        {error && <p id={`${id}-error`} class="alert field-error">{error}</p>}
      </div>
    )
  }

  const anyEditable = page.settings.some(editable)
  return (
    <section aria-labelledby="page-title">
      <h2 id="page-title">{page.title}</h2>
      <p class="muted">{page.intro}</p>
      <Outcome error={config.error || sources.error} />
      {doc && src && (
        <form onSubmit={save} noValidate class="settings" aria-labelledby="page-title">
          {page.settings.map(field)}
          {anyEditable && <button type="submit">Save</button>}
        </form>
      )}
      {doc && page.extra === "email" && (
        <Suspense fallback={null}><TestEmail smtp={valueAt(doc, "EmailSettings.SendEmailNotifications") === true} /></Suspense>
      )}
      {page.extra === "push" && <Suspense fallback={null}><Push /></Suspense>}
    </section>
  )
}

import { useEffect, useState } from "preact/hooks"
import { cookie, errorMessage } from "../app/api.ts"
import { act, api, failure, formatDate, notice, useLoad } from "./state.ts"
import { Outcome, Pager, TableWrap } from "./ui.tsx"

/**
 * Environment > Import and export: a Mattermost bulk import or a Slack workspace export uploaded and followed to its
 * end (POST /api/v1/admin/import, then GET .../import/{id} while it runs), the past import jobs (GET
 * /api/v1/admin/import), and exports started here, downloaded when finished (/api/v1/admin/export).
 */
type ImportJob = {
  id: string
  status: "pending" | "converting" | "validating" | "importing" | "succeeded" | "failed"
  format: "mattermost" | "slack"
  team: string
  dry_run: boolean
  create_at: number
  update_at: number
  lines_total: number
  lines_done: number
  created: Record<string, number>
  problems: Array<{ line: number; message: string }>
  error: string
}
type ExportJob = { name: string; status: "running" | "succeeded" | "failed"; size: number; update_at: number; error: string }

const JOBS_PAGE = 10
const ended = (status: string) => status === "succeeded" || status === "failed"

const STATUS: Record<ImportJob["status"], string> = {
  pending: "Waiting",
  converting: "Reading the Slack export",
  validating: "Checking",
  importing: "Importing",
  succeeded: "Done",
  failed: "Failed"
}

const plural = (word: string, n: number) => (n === 1 ? word : word.endsWith("y") ? `${word.slice(0, -1)}ies` : `${word}s`)

const counts = (c: Record<string, number>) =>
  Object.entries(c).filter(([, n]) => n > 0).map(([kind, n]) => `${n} ${plural(kind.replace(/_/g, " "), n)}`).join(", ")

/** The file as the request body (streamed to disk by the server); fetch because the body is not JSON. */
const upload = async (query: string, file: File) => {
  const headers: Record<string, string> = { "x-requested-with": "XMLHttpRequest", "content-type": file.type && file.type !== "application/json" ? file.type : "application/octet-stream" }
  const csrf = cookie("MMCSRF")
  if (csrf) headers["x-csrf-token"] = csrf
  const response = await fetch(`/api/v1/admin/import?${query}`, { method: "POST", credentials: "same-origin", headers, body: file })
  const data = await response.json().catch(() => null)
  if (!response.ok) throw new Error(data?.error?.message ?? data?.message ?? `Request failed (${response.status})`)
  return data as ImportJob
}

const size = (bytes: number) => (bytes < 1024 * 1024 ? `${Math.ceil(bytes / 1024)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`)

/** A job while it runs: its phase and a progress bar of the lines (or, for Slack, conversations) done. */
const Progress = ({ job }: { job: ImportJob }) => {
  const label = `Import ${job.id.slice(0, 6)}: ${STATUS[job.status]}`
  return (
    <div class="job-progress">
      <p>{label}{job.lines_total > 0 ? `, ${job.lines_done} of ${job.lines_total}` : ""}</p>
      {!ended(job.status) && (
        <progress aria-label={label} max={job.lines_total || 1} value={job.lines_total ? job.lines_done : undefined} />
      )}
      {job.status === "succeeded" && <p>{job.dry_run ? "The file is valid; nothing was written (dry run)." : `Created: ${counts(job.created) || "nothing new"}.`}</p>}
      {job.status === "failed" && <p class="alert">{job.error}</p>}
      {job.problems.length > 0 && (
        <ul>{job.problems.slice(0, 20).map((p) => <li key={p.line}>Line {p.line}: {p.message}</li>)}</ul>
      )}
    </div>
  )
}

const ImportForm = ({ slack, onStarted }: { slack: boolean; onStarted: (job: ImportJob) => void }) => {
  const [file, setFile] = useState<File | null>(null)
  const [team, setTeam] = useState("")
  const [dryRun, setDryRun] = useState(false)
  const [busy, setBusy] = useState(false)
  const id = slack ? "slack" : "bulk"
  const submit = async (e: Event) => {
    e.preventDefault()
    if (!file) {
      failure.value = "Choose the file to import first."
      return
    }
    setBusy(true)
    const query = new URLSearchParams({ dry_run: String(dryRun), ...(slack ? { format: "slack", team: team.trim() } : {}) })
    await act(async () => onStarted(await upload(query.toString(), file)), slack ? "Slack import started" : "Import started")
    setBusy(false)
  }
  return (
    <form aria-labelledby={`${id}-title`} class="grid-form" onSubmit={submit}>
      <h3 id={`${id}-title`}>{slack ? "Import a Slack workspace export" : "Import a Mattermost bulk export"}</h3>
      <p class="help muted">{slack
        ? "The .zip Slack writes (Workspace settings, Import/Export Data, Export). Its channels and messages go into the team named here, created if missing."
        : "A .zip (with its files) or .jsonl in Mattermost's bulk format, as mmctl export writes it. The whole file is checked first; with a problem nothing is written."}</p>
      <label>{slack ? "Slack export file" : "Export file"}
        <input type="file" accept={slack ? ".zip" : ".zip,.jsonl"} onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} />
      </label>
      {slack && <label>Team name<input value={team} required pattern="[a-z0-9][a-z0-9\-]*" onInput={(e) => setTeam(e.currentTarget.value)} /></label>}
      <label class="check"><input type="checkbox" checked={dryRun} onChange={(e) => setDryRun(e.currentTarget.checked)} /> Only check the file (dry run)</label>
      <button type="submit" disabled={busy}>{slack ? "Start Slack import" : "Start import"}</button>
    </form>
  )
}

export default function DataPage() {
  const [page, setPage] = useState(0)
  const [current, setCurrent] = useState<ImportJob | null>(null)
  const jobs = useLoad(() => api<{ jobs: Array<ImportJob> }>("GET", `/api/v1/admin/import?page=${page}&per_page=${JOBS_PAGE}`).then((r) => r.jobs), [page])
  const exports = useLoad(() => api<{ exports: Array<ExportJob> }>("GET", "/api/v1/admin/export").then((r) => r.exports))
  const exporting = exports.data?.some((x) => x.status === "running") ?? false

  // A running job is read again each second until it ends; its end is announced and the list refreshed.
  useEffect(() => {
    if (!current || ended(current.status)) return
    const timer = setTimeout(() => {
      api<ImportJob>("GET", `/api/v1/admin/import/${current.id}`).then((job) => {
        setCurrent(job)
        if (ended(job.status)) {
          notice.value = job.status === "succeeded" ? "Import finished" : "Import failed"
          void jobs.reload()
        }
      }, (e) => (failure.value = errorMessage(e)))
    }, 1000)
    return () => clearTimeout(timer)
  }, [current])
  useEffect(() => {
    if (!exporting) return
    const timer = setTimeout(() => void exports.reload(), 1000)
    return () => clearTimeout(timer)
  }, [exports.data])

  const started = (job: ImportJob) => {
    setCurrent(job)
    void jobs.reload()
  }
  return (
    <section aria-labelledby="data-title">
      <h2 id="data-title">Import and export</h2>
      <Outcome error={jobs.error || exports.error} />
      {current && <Progress job={current} />}
      <div class="forms">
        <ImportForm slack={false} onStarted={started} />
        <ImportForm slack onStarted={started} />
      </div>
      <div class="row page-head">
        <h3>Import jobs</h3>
        <button type="button" class="secondary" onClick={() => void jobs.reload()}>Refresh jobs</button>
      </div>
      <TableWrap label="Import jobs">
        <table>
          <thead><tr><th scope="col">Started</th><th scope="col">Kind</th><th scope="col">Status</th><th scope="col">Progress</th><th scope="col">Result</th></tr></thead>
          <tbody>
            {jobs.data?.map((j) => (
              <tr key={j.id}>
                <td>{formatDate(j.create_at)}</td>
                <td>{j.format === "slack" ? `Slack into ${j.team}` : "Mattermost"}{j.dry_run ? " (dry run)" : ""}</td>
                <td>{STATUS[j.status]}</td>
                <td>{j.lines_total > 0 ? `${j.lines_done} of ${j.lines_total}` : "–"}</td>
                <td>{j.status === "failed" ? j.error : counts(j.created) || "–"}</td>
              </tr>
            ))}
            {jobs.data && jobs.data.length === 0 && <tr><td colSpan={5}>No imports yet.</td></tr>}
          </tbody>
        </table>
      </TableWrap>
      <Pager label="Import jobs" page={page} hasNext={(jobs.data?.length ?? 0) === JOBS_PAGE} onPage={setPage} />

      <div class="row page-head">
        <h3>Exports</h3>
        <button type="button" disabled={exporting}
          onClick={() => void act(() => api("POST", "/api/v1/admin/export"), "Export started", exports.reload)}>Start export</button>
      </div>
      <p class="help muted">Everything in Mattermost's bulk format, with the files, into the exports folder of the data directory (no password hashes: imported accounts sign in after a password reset).</p>
      <TableWrap label="Exports">
        <table>
          <thead><tr><th scope="col">Export</th><th scope="col">Status</th><th scope="col">Size</th><th scope="col">Updated</th></tr></thead>
          <tbody>
            {exports.data?.map((x) => (
              <tr key={x.name}>
                <td>{x.status === "succeeded" ? <a href={`/api/v1/admin/export/${x.name}`} download={x.name}>{x.name}</a> : x.name}</td>
                <td>{x.status === "running" ? "Running" : x.status === "succeeded" ? "Done" : `Failed: ${x.error}`}</td>
                <td>{size(x.size)}</td>
                <td>{formatDate(x.update_at)}</td>
              </tr>
            ))}
            {exports.data && exports.data.length === 0 && <tr><td colSpan={4}>No exports yet.</td></tr>}
          </tbody>
        </table>
      </TableWrap>
    </section>
  )
}

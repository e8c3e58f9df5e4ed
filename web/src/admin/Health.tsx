import { useState } from "preact/hooks"
import { api, formatDate, useLoad } from "./state.ts"
import { Outcome, Pager, TableWrap } from "./ui.tsx"

/**
 * Reporting > Health: this node's health for a person (GET /api/v1/admin/health): each dependency with its state
 * and probe latency, the circuit breakers, what is live, version and uptime, the Prometheus endpoint to monitor, and
 * the node's recent security events (GET /api/v1/admin/security_events), a page at a time.
 */
type Check = { name: string; state: "ok" | "failed" | "not configured"; latency_ms: number | null; detail: string }
type AdminHealth = {
  version: string
  uptime_seconds: number
  node_id: string
  draining: boolean
  checks: Array<Check>
  circuit_breakers: Record<string, string>
  websocket_connections: number
  active_users: number
  db_pool_saturation: number
  cluster: "single node" | "shared event bus"
  metrics_path: string
}
type SecurityEvent = { at: number; name: string; severity: string; details: Record<string, string | number | boolean> }

const EVENTS_PAGE = 20

const STATE_LABEL: Record<Check["state"], string> = { ok: "Working", failed: "Failing", "not configured": "Not configured" }
const BREAKER_LABEL: Record<string, string> = { closed: "Closed (calls go through)", open: "Open (calls refused)", halfopen: "Half open (trying again)" }

const ID = /^[a-z0-9]{26}$/

/** The events name people by id (the log's terms); the page shows their usernames (POST /api/v4/users/ids). */
const usernames = async (events: ReadonlyArray<SecurityEvent>) => {
  const ids = [...new Set(events.flatMap((e) => Object.values(e.details)).filter((v): v is string => typeof v === "string" && ID.test(v)))]
  if (ids.length === 0) return new Map<string, string>()
  const users = await api<Array<{ id: string; username: string }>>("POST", "/api/v4/users/ids", ids)
  return new Map(users.map((u) => [u.id, u.username]))
}

const DETAIL_LABEL: Record<string, string> = { user_id: "user", by_user_id: "by" }

const describe = (details: SecurityEvent["details"], names: Map<string, string>) =>
  Object.entries(details).map(([k, v]) => {
    const name = typeof v === "string" ? names.get(v) : undefined
    return `${DETAIL_LABEL[k] ?? k.replace(/_/g, " ")}: ${name === undefined ? v : `@${name}`}`
  }).join(", ")

export const uptime = (seconds: number) => {
  const d = Math.floor(seconds / 86_400)
  const h = Math.floor((seconds % 86_400) / 3600)
  const m = Math.floor((seconds % 3600) / 60)
  return d > 0 ? `${d} d ${h} h ${m} min` : h > 0 ? `${h} h ${m} min` : `${m} min ${seconds % 60} s`
}

export default function Health() {
  const [page, setPage] = useState(0)
  const health = useLoad(() => api<AdminHealth>("GET", "/api/v1/admin/health"))
  const events = useLoad(() => api<{ events: Array<SecurityEvent>; total: number }>("GET", `/api/v1/admin/security_events?page=${page}&per_page=${EVENTS_PAGE}`)
    .then(async (found) => ({ ...found, names: await usernames(found.events) })), [page])
  const h = health.data
  const metricsUrl = h ? new URL(h.metrics_path, location.origin).href : ""
  return (
    <section aria-labelledby="health-title">
      <div class="row page-head">
        <h2 id="health-title">Health</h2>
        <button type="button" class="secondary" onClick={() => { void health.reload(); void events.reload() }}>Refresh</button>
      </div>
      <Outcome error={health.error || events.error} />
      {h && (
        <>
          <dl class="facts">
            <dt>Version</dt><dd>{h.version}</dd>
            <dt>Up for</dt><dd>{uptime(h.uptime_seconds)}</dd>
            <dt>Node</dt><dd><code>{h.node_id}</code>{h.draining ? " (shutting down)" : ""}</dd>
            <dt>Cluster</dt><dd>{h.cluster === "single node" ? "Single node (events stay on this node)" : "Nodes share the event bus (Redis)"}</dd>
            <dt>Connected sockets</dt><dd>{h.websocket_connections} ({h.active_users} {h.active_users === 1 ? "person" : "people"})</dd>
            <dt>Database pool in use</dt><dd>{Math.round(h.db_pool_saturation * 100)} %</dd>
            <dt>Monitoring</dt><dd>Prometheus metrics at <a href={h.metrics_path}>{metricsUrl}</a></dd>
          </dl>
          <TableWrap label="Dependencies">
            <table>
              <caption>Dependencies</caption>
              <thead><tr><th scope="col">Dependency</th><th scope="col">State</th><th scope="col">Latency</th><th scope="col">Detail</th></tr></thead>
              <tbody>
                {h.checks.map((c) => (
                  <tr key={c.name}>
                    <th scope="row">{c.name}</th>
                    <td><span class={`state state-${c.state.replace(" ", "-")}`}>{STATE_LABEL[c.state]}</span></td>
                    <td>{c.latency_ms === null ? "–" : `${c.latency_ms} ms`}</td>
                    <td>{c.detail}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
          <TableWrap label="Circuit breakers">
            <table>
              <caption>Circuit breakers</caption>
              <thead><tr><th scope="col">Breaker</th><th scope="col">State</th></tr></thead>
              <tbody>
                {Object.entries(h.circuit_breakers).map(([name, state]) => (
                  <tr key={name}><th scope="row"><code>{name}</code></th><td>{BREAKER_LABEL[state] ?? state}</td></tr>
                ))}
                {Object.keys(h.circuit_breakers).length === 0 && <tr><td colSpan={2}>No breaker has been used yet.</td></tr>}
              </tbody>
            </table>
          </TableWrap>
        </>
      )}
      <h3 id="events-title">Recent security events</h3>
      <p class="muted">Failed and refused sign-ins, rate limits, revoked sessions and the like on this node since it started (its newest 1000).</p>
      <TableWrap label="Security events">
        <table>
          <thead><tr><th scope="col">When</th><th scope="col">Event</th><th scope="col">Severity</th><th scope="col">Details</th></tr></thead>
          <tbody>
            {events.data?.events.map((e, i) => (
              <tr key={`${e.at}-${i}`}>
                <td>{formatDate(e.at)}</td>
                <td>{e.name}</td>
                <td>{e.severity}</td>
                <td>{describe(e.details, events.data!.names)}</td>
              </tr>
            ))}
            {events.data && events.data.events.length === 0 && <tr><td colSpan={4}>No security events.</td></tr>}
          </tbody>
        </table>
      </TableWrap>
      <Pager label="Security events" page={page} hasNext={(page + 1) * EVENTS_PAGE < (events.data?.total ?? 0)} onPage={setPage} />
    </section>
  )
}

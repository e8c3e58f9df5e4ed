import { v1 } from "../app/api.ts"
import { useLoad } from "./state.ts"

/** Server health and statistics as the server reports them (readiness and this node's figures). */
export default function Health() {
  return <HealthPage />
}

const HealthPage = () => {
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

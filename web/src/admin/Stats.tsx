import { api, useLoad } from "./state.ts"
import { DayChart, fillDays } from "./DayChart.tsx"
import { Outcome, TableWrap } from "./ui.tsx"

/**
 * Reporting > Site statistics (Mattermost's /admin_console/reporting/system_analytics): the counts of
 * GET /api/v4/analytics/old (standard), posts and posting people per day over 30 days, and the busiest channels and
 * teams of those days (GET /api/v1/admin/analytics/top).
 */
type Row = { name: string; value: number }
type TopActivity = {
  days: number
  channels: Array<{ id: string; name: string; display_name: string; type: string; team_display_name: string; post_count: number }>
  teams: Array<{ id: string; name: string; display_name: string; post_count: number; active_member_count: number }>
}

const analytics = (name: string) => api<Array<Row>>("GET", `/api/v4/analytics/old?name=${name}`)

const FIGURES: ReadonlyArray<[string, string]> = [
  ["unique_user_count", "Active accounts"],
  ["inactive_user_count", "Deactivated accounts"],
  ["daily_active_users", "Daily active users"],
  ["monthly_active_users", "Monthly active users"],
  ["team_count", "Teams"],
  ["channel_open_count", "Public channels"],
  ["channel_private_count", "Private channels"],
  ["post_count", "Posts"],
  ["total_websocket_connections", "Connected sockets"]
]

export default function Stats() {
  const load = useLoad(() => Promise.all([
    analytics("standard"),
    analytics("post_counts_day"),
    analytics("user_counts_with_posts_day"),
    api<TopActivity>("GET", "/api/v1/admin/analytics/top?days=30&limit=10")
  ]).then(([standard, posts, people, top]) => ({ standard, posts, people, top, now: Date.now() })))
  const data = load.data
  const figure = (name: string) => data?.standard.find((r) => r.name === name)?.value
  return (
    <section aria-labelledby="stats-title">
      <div class="row page-head">
        <h2 id="stats-title">Site statistics</h2>
        <button type="button" class="secondary" onClick={() => void load.reload()}>Refresh</button>
      </div>
      <Outcome error={load.error} />
      {!data && !load.error && <p class="muted">Loading…</p>}
      {data && (
        <>
          <dl class="stat-cards">
            {FIGURES.map(([name, label]) => (
              <div key={name} class="stat-card"><dt>{label}</dt><dd>{figure(name) ?? "–"}</dd></div>
            ))}
          </dl>
          <div class="charts">
            <DayChart id="posts-per-day" title="Posts per day" unit="posts" days={fillDays(data.posts, data.now)} />
            <DayChart id="people-per-day" title="Active users per day" unit="people posting" days={fillDays(data.people, data.now)} />
          </div>
          <h3>Busiest over the last {data.top.days} days</h3>
          <TableWrap label="Top channels">
            <table>
              <caption>Top channels</caption>
              <thead><tr><th scope="col">Channel</th><th scope="col">Team</th><th scope="col">Privacy</th><th scope="col">Posts</th></tr></thead>
              <tbody>
                {data.top.channels.map((c) => (
                  <tr key={c.id}><td>{c.display_name}</td><td>{c.team_display_name}</td><td>{c.type === "P" ? "Private" : "Public"}</td><td>{c.post_count}</td></tr>
                ))}
                {data.top.channels.length === 0 && <tr><td colSpan={4}>No posts in these days.</td></tr>}
              </tbody>
            </table>
          </TableWrap>
          <TableWrap label="Top teams">
            <table>
              <caption>Top teams</caption>
              <thead><tr><th scope="col">Team</th><th scope="col">Posts</th><th scope="col">Active members</th></tr></thead>
              <tbody>
                {data.top.teams.map((t) => <tr key={t.id}><td>{t.display_name}</td><td>{t.post_count}</td><td>{t.active_member_count}</td></tr>)}
                {data.top.teams.length === 0 && <tr><td colSpan={3}>No posts in these days.</td></tr>}
              </tbody>
            </table>
          </TableWrap>
        </>
      )}
    </section>
  )
}

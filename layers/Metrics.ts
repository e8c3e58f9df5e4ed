import { Effect, Metric, MetricBoundaries, MetricKeyType, MetricState, Option } from "effect"

/**
 * The service's metrics, as Effect metrics. Effect 3 ships no Prometheus exporter (Effect 4 does), so
 * `renderPrometheus` turns a snapshot into the text exposition format itself.
 */
type FamilyType = "counter" | "gauge" | "histogram"

/** The service's own metric families: exposed with HELP and TYPE even before their first sample. */
const declared: Array<{ readonly name: string; readonly type: FamilyType; readonly help: string }> = []
const declare = (name: string, type: FamilyType, help: string) => {
  declared.push({ name, type, help })
  return { name, help }
}

const requests = declare("service_http_requests_total", "counter", "HTTP requests served, by status code")
export const httpRequestsTotal = Metric.counter(requests.name, { description: requests.help, incremental: true })

const duration = declare("service_http_request_duration_seconds", "histogram", "HTTP request latency in seconds")
export const httpRequestDuration = Metric.histogram(
  duration.name,
  MetricBoundaries.fromIterable([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]),
  duration.help
)

const saturation = declare("service_db_pool_saturation_ratio", "gauge", "Share of the database pool's connections in use (0 to 1)")
export const dbPoolSaturation = Metric.gauge(saturation.name, { description: saturation.help })

const sockets = declare("service_websocket_active_connections", "gauge", "WebSocket connections open on this node")
export const websocketActiveConnections = Metric.gauge(sockets.name, { description: sockets.help })

const inFlight = declare("service_http_requests_in_flight", "gauge", "HTTP requests received and not yet answered on this node, the scrape included")
export const httpRequestsInFlight = Metric.gauge(inFlight.name, { description: inFlight.help })
let requestsInFlight = 0

/**
 * Counts a request from its arrival (headers read) until its response ends or its connection goes: requests still
 * being read, processed or written, such as those a stopping node waits for. A plain number per request, read into
 * the gauge when the metrics are rendered.
 */
export const trackInFlight = (response: { on: (event: "close", listener: () => void) => unknown }) => {
  requestsInFlight++
  // One shared listener ("close" comes once per response): no closure or once-wrapper made per request.
  response.on("close", requestEnded)
}
const requestEnded = () => {
  requestsInFlight--
}

const pageCache = declare(
  "service_page_cache_requests_total",
  "counter",
  "Channel pages that could be cached, by whether this node's page cache answered them (hit) or they were read (miss)"
)
const pageCacheRequests = Metric.gauge(pageCache.name, { description: pageCache.help })
const pageCacheMiss = declare(
  "service_page_cache_misses_total",
  "counter",
  "Channel pages read rather than answered by this node's page cache, by reason: none kept (absent), kept past its lifetime (expired), or its channel changed since it was read (changed)"
)
const pageCacheMisses = Metric.gauge(pageCacheMiss.name, { description: pageCacheMiss.help })
const pageCacheAccess = declare(
  "service_page_cache_access_total",
  "counter",
  "Channel pages answered by this node's page cache, by how access was decided: from the reader's kept access row (kept) or by the access check in the database (checked)"
)
const pageCacheAccesses = Metric.gauge(pageCacheAccess.name, { description: pageCacheAccess.help })
/**
 * Plain numbers per request (src/posts/ListRoutes.ts, src/posts/PageCache.ts), read into the families when the
 * metrics are rendered; absent + expired + changed = miss, kept + checked = the hits without collapsed threads.
 */
export const pageCacheCounts = { hit: 0, miss: 0, absent: 0, expired: 0, changed: 0, kept: 0, checked: 0 }

const groupedRequest = declare(
  "service_grouped_requests_total",
  "counter",
  "Requests that share statements under load (layers/Grouped.ts), by kind: the requests answered (requests) and the statements that answered them (statements)"
)
const groupedRequests = Metric.gauge(groupedRequest.name, { description: groupedRequest.help })
/** Plain numbers per statement (src/teams/TeamUnreads.ts, src/channels/ChannelViews.ts), read when rendered. */
export const groupedCounts = { teamUnreadsRequests: 0, teamUnreadsStatements: 0, channelViewsRequests: 0, channelViewsStatements: 0 }
const grouped = (kind: string, unit: string, value: number) =>
  Metric.set(Metric.tagged(Metric.tagged(groupedRequests, "kind", kind), "unit", unit), value)

const breakerChanges = declare(
  "service_circuit_breaker_state_changes_total",
  "counter",
  "Circuit breaker state transitions, by breaker and new state"
)
export const circuitBreakerStateChanges = Metric.counter(breakerChanges.name, { description: breakerChanges.help, incremental: true })

/**
 * Effect registers a metric only when it is first touched; reading the untagged ones registers them, so that the
 * latency histogram and the gauges report zeros rather than nothing on a fresh node.
 */
const registerUntagged = Effect.all([
  Metric.value(httpRequestDuration),
  Metric.value(dbPoolSaturation),
  Metric.value(websocketActiveConnections),
  Effect.suspend(() => Metric.set(httpRequestsInFlight, requestsInFlight)),
  Effect.suspend(() => Metric.set(Metric.tagged(pageCacheRequests, "outcome", "hit"), pageCacheCounts.hit)),
  Effect.suspend(() => Metric.set(Metric.tagged(pageCacheRequests, "outcome", "miss"), pageCacheCounts.miss)),
  Effect.suspend(() => Metric.set(Metric.tagged(pageCacheMisses, "reason", "absent"), pageCacheCounts.absent)),
  Effect.suspend(() => Metric.set(Metric.tagged(pageCacheMisses, "reason", "expired"), pageCacheCounts.expired)),
  Effect.suspend(() => Metric.set(Metric.tagged(pageCacheMisses, "reason", "changed"), pageCacheCounts.changed)),
  Effect.suspend(() => Metric.set(Metric.tagged(pageCacheAccesses, "by", "kept"), pageCacheCounts.kept)),
  Effect.suspend(() => Metric.set(Metric.tagged(pageCacheAccesses, "by", "checked"), pageCacheCounts.checked)),
  Effect.suspend(() => grouped("team_unreads", "requests", groupedCounts.teamUnreadsRequests)),
  Effect.suspend(() => grouped("team_unreads", "statements", groupedCounts.teamUnreadsStatements)),
  Effect.suspend(() => grouped("channel_views", "requests", groupedCounts.channelViewsRequests)),
  Effect.suspend(() => grouped("channel_views", "statements", groupedCounts.channelViewsStatements))
], { discard: true })

const escapeLabel = (v: string) => v.replace(/\\/g, "\\\\").replace(/"/g, "\\\"").replace(/\n/g, "\\n")

const labels = (tags: ReadonlyArray<{ key: string; value: string }>, extra: ReadonlyArray<[string, string]> = []) => {
  const all = [...tags.map((t) => [t.key, t.value] as const), ...extra]
  return all.length === 0 ? "" : `{${all.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(",")}}`
}

const formatNumber = (n: number | bigint) =>
  typeof n === "bigint" ? n.toString() : Number.isFinite(n) ? String(n) : n > 0 ? "+Inf" : n < 0 ? "-Inf" : "NaN"

/** Renders every registered metric in Prometheus text exposition format (version 0.0.4). */
export const renderPrometheus: Effect.Effect<string> = Effect.map(Effect.zipRight(registerUntagged, Metric.snapshot), (pairs) => {
  const byName = new Map<string, { type: string; help: string; lines: Array<string> }>(
    declared.map((d) => [d.name, { type: d.type, help: d.help, lines: [] }])
  )
  const family = (name: string, type: string, help: Option.Option<string>) => {
    let entry = byName.get(name)
    if (entry === undefined) {
      entry = { type, help: Option.getOrElse(help, () => name), lines: [] }
      byName.set(name, entry)
    }
    return entry.lines
  }
  for (const pair of pairs) {
    const key = pair.metricKey
    const name = key.name
    const tags = key.tags
    const state = pair.metricState
    if (MetricState.isCounterState(state)) {
      family(name, "counter", key.description).push(`${name}${labels(tags)} ${formatNumber(state.count)}`)
    } else if (MetricState.isGaugeState(state)) {
      family(name, "gauge", key.description).push(`${name}${labels(tags)} ${formatNumber(state.value)}`)
    } else if (MetricState.isHistogramState(state)) {
      const lines = family(name, "histogram", key.description)
      for (const [bound, count] of state.buckets) {
        lines.push(`${name}_bucket${labels(tags, [["le", formatNumber(bound)]])} ${count}`)
      }
      if (!state.buckets.some(([bound]) => bound === Number.POSITIVE_INFINITY)) {
        lines.push(`${name}_bucket${labels(tags, [["le", "+Inf"]])} ${state.count}`)
      }
      lines.push(`${name}_sum${labels(tags)} ${formatNumber(state.sum)}`)
      lines.push(`${name}_count${labels(tags)} ${state.count}`)
    } else if (MetricKeyType.isFrequencyKey(key.keyType) && MetricState.isFrequencyState(state)) {
      const lines = family(name, "counter", key.description)
      for (const [value, count] of state.occurrences) lines.push(`${name}${labels(tags, [["value", value]])} ${count}`)
    }
  }
  const out: Array<string> = []
  for (const [name, entry] of [...byName.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    out.push(`# HELP ${name} ${entry.help}`, `# TYPE ${name} ${entry.type}`, ...entry.lines)
  }
  return out.join("\n") + "\n"
})

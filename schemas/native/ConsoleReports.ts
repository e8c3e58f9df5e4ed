import { Schema } from "effect"
import { ImportJob } from "./Import.ts"

/**
 * What the System Console's Reporting pages read from /api/v1/admin (docs/api-v1.md "System Console reads"): the
 * busiest channels and teams, the node's health for people, its recent security events, and the past import jobs.
 */

const PageNumber = Schema.optionalWith(Schema.NumberFromString.pipe(Schema.int(), Schema.between(0, 100_000)), { default: () => 0 })
const perPage = (max: number, fallback: number) =>
  Schema.optionalWith(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, max)), { default: () => fallback })

export const TopActivityQuery = Schema.Struct({
  days: Schema.optionalWith(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 365)), { default: () => 30 }),
  limit: perPage(50, 10)
})

export const TopChannel = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  display_name: Schema.String,
  type: Schema.String.annotations({ description: "O (public) or P (private)" }),
  team_id: Schema.String,
  team_display_name: Schema.String,
  post_count: Schema.Number
})

export const TopTeam = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  display_name: Schema.String,
  post_count: Schema.Number,
  active_member_count: Schema.Number
})

export const TopActivity = Schema.Struct({
  days: Schema.Number,
  channels: Schema.Array(TopChannel).annotations({ description: "open and private channels with the most posts over the last `days` days, people's own posts (bots' and system posts aside)" }),
  teams: Schema.Array(TopTeam).annotations({ description: "teams with the most posts over the last `days` days, people's own posts (bots' and system posts aside)" })
}).annotations({ identifier: "TopActivity" })

export const DependencyCheck = Schema.Struct({
  name: Schema.String,
  state: Schema.Literal("ok", "failed", "not configured"),
  latency_ms: Schema.NullOr(Schema.Number).annotations({ description: "how long the probe took; null when nothing was probed" }),
  detail: Schema.String
})

export const AdminHealth = Schema.Struct({
  version: Schema.String,
  uptime_seconds: Schema.Int,
  node_id: Schema.String,
  draining: Schema.Boolean,
  checks: Schema.Array(DependencyCheck),
  circuit_breakers: Schema.Record({ key: Schema.String, value: Schema.String.annotations({ description: "closed, open or halfopen" }) }),
  websocket_connections: Schema.Int,
  active_users: Schema.Int,
  db_pool_saturation: Schema.Number.annotations({ description: "0 to 1" }),
  cluster: Schema.Literal("single node", "shared event bus").annotations({ description: "whether events reach other nodes (Redis) or this node only (in memory)" }),
  metrics_path: Schema.String.annotations({ description: "the Prometheus endpoint" })
}).annotations({ identifier: "AdminHealth" })

export const SecurityEventsQuery = Schema.Struct({ page: PageNumber, per_page: perPage(200, 50) })

export const SecurityEventRow = Schema.Struct({
  at: Schema.Number,
  name: Schema.String,
  severity: Schema.String.annotations({ description: "Info, Warning or Critical" }),
  details: Schema.Record({ key: Schema.String, value: Schema.Union(Schema.String, Schema.Number, Schema.Boolean) })
})

export const SecurityEvents = Schema.Struct({
  events: Schema.Array(SecurityEventRow),
  total: Schema.Number.annotations({ description: "how many this node holds (its newest 1000 since it started)" })
}).annotations({ identifier: "SecurityEvents" })

export const ImportJobsQuery = Schema.Struct({ page: PageNumber, per_page: perPage(100, 20) })

export const ImportJobs = Schema.Struct({ jobs: Schema.Array(ImportJob) }).annotations({ identifier: "ImportJobs" })

export const ExportJob = Schema.Struct({
  name: Schema.String.annotations({ description: "the file in SERVICE_DATA_DIR/exports; GET /api/v1/admin/export/{name} downloads it" }),
  status: Schema.Literal("running", "succeeded", "failed"),
  size: Schema.Number.annotations({ description: "bytes written so far" }),
  update_at: Schema.Number,
  error: Schema.String
}).annotations({ identifier: "ExportJob" })

export const ExportJobs = Schema.Struct({ exports: Schema.Array(ExportJob).annotations({ description: "the newest 100, newest first" }) })
  .annotations({ identifier: "ExportJobs" })

/** The names the console's exports are written under (src/imports/ExportJobs.ts): a download may name no other file. */
export const EXPORT_NAME = /^export-\d{8}-\d{6}-[a-z0-9]{6}\.zip$/

export const ExportNameParams = Schema.Struct({
  name: Schema.String.pipe(Schema.pattern(EXPORT_NAME, { message: () => "expected the name of an export (export-YYYYMMDD-HHMMSS-xxxxxx.zip)" }))
})

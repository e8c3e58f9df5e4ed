import { Schema } from "effect"

/** /api/v1/health: liveness, readiness and live figures (docs/api-v1.md "Health"). */

export const HealthLive = Schema.Struct({
  status: Schema.Literal("ok"),
  version: Schema.String,
  uptime_seconds: Schema.Int
}).annotations({ identifier: "HealthLive" })

const Checks = Schema.Struct({
  database: Schema.String.annotations({ description: "\"ok\" or \"failed: <reason>\"" }),
  cache: Schema.String.annotations({ description: "\"ok\" or \"failed: <reason>\"" }),
  shutdown: Schema.optional(Schema.String.annotations({ description: "present while the node drains before stopping: \"failed: draining\"" }))
})

export const HealthReady = Schema.Struct({
  status: Schema.Literal("ready"),
  checks: Checks
}).annotations({ identifier: "HealthReady" })

export const HealthUnavailable = Schema.Struct({
  status: Schema.Literal("unavailable"),
  failed_checks: Schema.Array(Schema.String).annotations({ description: "the names of the checks that failed" }),
  checks: Checks
}).annotations({ identifier: "HealthUnavailable" })

export const HealthStats = Schema.Struct({
  websocket_connections: Schema.Int,
  active_users: Schema.Int,
  db_pool_saturation: Schema.Number.annotations({ description: "0 to 1" }),
  circuit_breakers: Schema.Record({ key: Schema.String, value: Schema.String.annotations({ description: "closed, open or halfopen" }) })
}).annotations({ identifier: "HealthStats" })

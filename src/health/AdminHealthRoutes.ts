import { HttpRouter } from "@effect/platform"
import { Clock, Effect } from "effect"
import { Cache } from "../../layers/Cache.ts"
import { Db } from "../../layers/Db.ts"
import { PubSub } from "../../layers/PubSub.ts"
import { breakerStates } from "../../layers/Resilience.ts"
import { AdminHealth, type DependencyCheck } from "../../schemas/native/ConsoleReports.ts"
import { authed } from "../auth/Guards.ts"
import { respondWith } from "../http/Respond.ts"
import { PushSettings } from "../push/PushSettings.ts"
import { Hub } from "../realtime/Hub.ts"
import { SERVICE_VERSION } from "../system/Version.ts"
import { Draining } from "./Draining.ts"
import { LiveStats } from "./LiveStats.ts"

/**
 * GET /api/v1/admin/health (system admins): the node's health for a person, the System Console's Health page. The
 * public probes (/api/v1/health/*) answer balancers and Prometheus in their terms; this one names each dependency
 * with its state and how long its probe took, and what is live on the node.
 */

/** A probe timed: ok with its latency, or failed with the reason (bounded, so a hung dependency is a failure). */
const timed = <E>(name: string, probe: Effect.Effect<void, E>) =>
  Effect.gen(function*() {
    const started = yield* Clock.currentTimeMillis
    const outcome = yield* probe.pipe(
      Effect.timeout("2 seconds"),
      Effect.as(""),
      Effect.catchAll((e) => Effect.succeed((e as { message?: string })?.message || String(e) || "failed"))
    )
    const latency = (yield* Clock.currentTimeMillis) - started
    const check: typeof DependencyCheck.Type = outcome === ""
      ? { name, state: "ok", latency_ms: latency, detail: "" }
      : { name, state: "failed", latency_ms: latency, detail: outcome }
    return check
  })

/** The event bus carries nothing on this topic: a publish is the probe. */
const PROBE_TOPIC = "health-probe"

const push = Effect.gen(function*() {
  const view = yield* (yield* PushSettings).view
  const check: typeof DependencyCheck.Type = view.enabled_transports.length === 0
    ? { name: "Push notifications", state: "not configured", latency_ms: null, detail: "no transport has complete credentials" }
    : { name: "Push notifications", state: "ok", latency_ms: null, detail: `transports: ${view.enabled_transports.join(", ")}` }
  return check
}).pipe(Effect.catchAll((e) => Effect.succeed<typeof DependencyCheck.Type>({ name: "Push notifications", state: "failed", latency_ms: null, detail: e.message })))

const health = Effect.gen(function*() {
  const db = yield* Db
  const cache = yield* Cache
  const bus = yield* PubSub
  const live = yield* LiveStats
  const checks = yield* Effect.all([
    timed("Database", db.ping),
    timed("Cache", cache.ping),
    timed("Event bus", bus.publish(PROBE_TOPIC, "")),
    push
  ], { concurrency: "unbounded" })
  return yield* respondWith(AdminHealth, {
    version: SERVICE_VERSION,
    uptime_seconds: Math.floor(process.uptime()),
    node_id: (yield* Hub).nodeId,
    draining: (yield* Draining).active(),
    checks,
    circuit_breakers: yield* breakerStates,
    websocket_connections: yield* live.websocketConnections,
    active_users: yield* live.activeUsers,
    db_pool_saturation: yield* db.saturation,
    cluster: bus.reachesOtherNodes ? "shared event bus" : "single node",
    metrics_path: "/api/v1/health/metrics"
  })
})

export const routes = HttpRouter.empty.pipe(HttpRouter.get("/api/v1/admin/health", authed.admin(health)))

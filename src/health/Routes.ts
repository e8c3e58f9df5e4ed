import { HttpRouter, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { Cache } from "../../layers/Cache.ts"
import { Db } from "../../layers/Db.ts"
import { renderPrometheus } from "../../layers/Metrics.ts"
import { breakerStates } from "../../layers/Resilience.ts"
import { HealthLive, HealthReady, HealthStats, HealthUnavailable } from "../../schemas/native/Health.ts"
import { publicRoute } from "../auth/Guards.ts"
import { SERVICE_VERSION } from "../system/Version.ts"
import { Draining } from "./Draining.ts"
import { LiveStats } from "./LiveStats.ts"
import { respondWith } from "../http/Respond.ts"

/** Uptime is the process's own, whatever clock the service runs on. */
const live = Effect.suspend(() => respondWith(HealthLive, { status: "ok" as const, version: SERVICE_VERSION, uptime_seconds: Math.floor(process.uptime()) }))

const check = <E>(probe: Effect.Effect<void, E>) =>
  probe.pipe(
    Effect.timeout("2 seconds"),
    Effect.as("ok"),
    Effect.catchAll((e) => Effect.succeed(`failed: ${(e as { message?: string })?.message ?? String(e)}`))
  )

/** A draining node (SIGTERM received) is not ready, whatever its dependencies say: balancers must move away. */
const ready = Effect.gen(function*() {
  const db = yield* Db
  const cache = yield* Cache
  const draining = (yield* Draining).active()
  const [database, cacheStatus] = yield* Effect.all([check(db.ping), check(cache.ping)], { concurrency: 2 })
  const checks = draining ? { database, cache: cacheStatus, shutdown: "failed: draining" } : { database, cache: cacheStatus }
  const failed = Object.entries(checks).filter(([, v]) => v !== "ok").map(([k]) => k)
  return yield* failed.length === 0
    ? respondWith(HealthReady, { status: "ready" as const, checks })
    : respondWith(HealthUnavailable, { status: "unavailable" as const, failed_checks: failed, checks }, 503)
})

const metrics = Effect.gen(function*() {
  const db = yield* Db
  yield* db.saturation
  const text = yield* renderPrometheus
  return HttpServerResponse.text(text, { contentType: "text/plain; version=0.0.4; charset=utf-8" })
})

const stats = Effect.gen(function*() {
  const db = yield* Db
  const live = yield* LiveStats
  return yield* respondWith(HealthStats, {
    websocket_connections: yield* live.websocketConnections,
    active_users: yield* live.activeUsers,
    db_pool_saturation: yield* db.saturation,
    circuit_breakers: yield* breakerStates
  })
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v1/health/live", publicRoute(live)),
  HttpRouter.get("/api/v1/health/ready", publicRoute(ready)),
  HttpRouter.get("/api/v1/health/metrics", publicRoute(metrics)),
  HttpRouter.get("/api/v1/health/stats", publicRoute(stats))
)

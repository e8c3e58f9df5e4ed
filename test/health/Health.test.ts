import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Cache, CacheError, makeMemory } from "../../layers/Cache.ts"
import { newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { send } from "../http/Fetch.ts"

/** The in-memory cache, whose ping the tests can make fail as an unreachable Redis would. */
let cacheDown = false
const switchableCache = Layer.effect(
  Cache,
  Effect.map(makeMemory, (cache) => ({
    ...cache,
    ping: Effect.suspend(() => cacheDown ? Effect.fail(new CacheError({ op: "ping", cause: "connection refused" })) : cache.ping)
  }))
)

let server: TestServer

beforeAll(async () => {
  server = await startServer({ overrides: { cache: switchableCache } })
})
afterAll(() => server?.close())

const health = (path: string) => send(`${server.url}/api/v1/health/${path}`)

describe("health", () => {
  it("live answers status, version and uptime", async () => {
    const response = await health("live")
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("application/json")
    expect(response.body).toEqual({ status: "ok", version: expect.stringMatching(/^\d+\.\d+\.\d+/), uptime_seconds: expect.any(Number) })
    expect(Number.isInteger(response.body.uptime_seconds)).toBe(true)
    expect(response.body.uptime_seconds).toBeGreaterThanOrEqual(0)
  })

  it("ready answers 200 when the database and the cache answer, and 503 naming the failed check otherwise", async () => {
    const ok = await health("ready")
    expect(ok.status).toBe(200)
    expect(ok.body).toEqual({ status: "ready", checks: { database: "ok", cache: "ok" } })
    cacheDown = true
    try {
      const down = await health("ready")
      expect(down.status).toBe(503)
      expect(down.body.status).toBe("unavailable")
      expect(down.body.failed_checks).toEqual(["cache"])
      expect(down.body.checks.database).toBe("ok")
      expect(down.body.checks.cache).toMatch(/^failed: .*connection refused/)
    } finally {
      cacheDown = false
    }
    expect((await health("ready")).status).toBe(200)
  })

  it("metrics exposes the service metrics in Prometheus text", async () => {
    await newUser(server.url, "metrics")
    await health("live")
    const response = await health("metrics")
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/)
    const text = response.text
    expect(text).toMatch(/^service_http_requests_total\{status="200"\} [1-9]\d*$/m)
    expect(text).toMatch(/^service_http_requests_total\{status="201"\} [1-9]\d*$/m)
    expect(text).toMatch(/^service_http_request_duration_seconds_bucket\{le="0\.005"\} \d+$/m)
    expect(text).toMatch(/^service_http_request_duration_seconds_bucket\{le="\+Inf"\} [1-9]\d*$/m)
    expect(text).toMatch(/^service_http_request_duration_seconds_count [1-9]\d*$/m)
    expect(text).toMatch(/^service_db_pool_saturation_ratio (0|0?\.\d+|1)$/m)
    expect(text).toMatch(/^service_websocket_active_connections \d+$/m)
    // The scrape itself is in flight while the figures are read.
    expect(text).toMatch(/^service_http_requests_in_flight [1-9]\d*$/m)
    expect(text).toContain("# TYPE service_circuit_breaker_state_changes_total counter")
    expect(text).toContain("# TYPE service_http_request_duration_seconds histogram")
    expect(text).toContain("# TYPE service_db_pool_saturation_ratio gauge")
  })

  it("stats answers live figures with the specified fields", async () => {
    const response = await health("stats")
    expect(response.status).toBe(200)
    expect(Object.keys(response.body).sort()).toEqual(["active_users", "circuit_breakers", "db_pool_saturation", "websocket_connections"])
    expect(Number.isInteger(response.body.websocket_connections)).toBe(true)
    expect(Number.isInteger(response.body.active_users)).toBe(true)
    expect(response.body.db_pool_saturation).toBeGreaterThanOrEqual(0)
    expect(response.body.db_pool_saturation).toBeLessThanOrEqual(1)
    expect(response.body.circuit_breakers).toMatchObject({ postgres: "closed" })
  })
})

import { Clock, Effect } from "effect"
import { AppConfig } from "../Config.ts"
import { ApiError } from "../http/ApiError.ts"
import { Cache } from "../../layers/Cache.ts"
import { logSecurityEvent, SecurityEvent } from "../security/SecurityEvents.ts"
import { clientIp, limitKey } from "./ClientIp.ts"

/**
 * Fixed one-minute windows per client IP, counted in Cache so that every node shares the count. Over the limit the
 * request fails with 429, the rate-limit headers and the specification's body.
 */

const WINDOW_MS = 60_000

/**
 * Per-node counters for when the shared cache fails: the limit still holds on each node (a client spread over N
 * nodes gets at most N times the limit) rather than failing open. One window at a time; a new window starts empty.
 */
const fallback = { window: -1, counts: new Map<string, number>() }
const countLocally = (key: string, window: number) => {
  if (fallback.window !== window) {
    fallback.window = window
    fallback.counts = new Map()
  }
  const count = (fallback.counts.get(key) ?? 0) + 1
  fallback.counts.set(key, count)
  return count
}

export const enforce = (bucket: "auth" | "ws") =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    if (!config.rateLimitEnabled) return
    const limit = bucket === "auth" ? config.rateLimitAuthPerMinute : config.rateLimitWsPerMinute
    const ip = yield* clientIp
    const cache = yield* Cache
    const now = yield* Clock.currentTimeMillis
    const window = Math.floor(now / WINDOW_MS)
    const key = `ratelimit:${bucket}:${limitKey(ip)}:${window}`
    const count = yield* cache.incr(key, WINDOW_MS).pipe(
      Effect.map((c) => c.count),
      Effect.orElse(() => Effect.sync(() => countLocally(key, window)))
    )
    const resetAt = (window + 1) * WINDOW_MS
    const retryAfter = Math.max(1, Math.ceil((resetAt - now) / 1000))
    if (count <= limit) return
    yield* logSecurityEvent(SecurityEvent.RateLimitExceeded, { bucket, client_ip: ip, limit })
    return yield* new ApiError({
      status: 429,
      id: "RATE_LIMIT_EXCEEDED",
      message: `Too many requests: the limit is ${limit} per minute. Retry in ${retryAfter} seconds.`,
      headers: {
        "x-ratelimit-limit": String(limit),
        "x-ratelimit-remaining": "0",
        "x-ratelimit-reset": String(Math.floor(resetAt / 1000)),
        "retry-after": String(retryAfter)
      }
    })
  })

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
const fallbacks = new Map<number, { window: number; counts: Map<string, number> }>()
const countLocally = (key: string, windowMs: number, window: number) => {
  let fallback = fallbacks.get(windowMs)
  if (fallback === undefined || fallback.window !== window) fallbacks.set(windowMs, fallback = { window, counts: new Map() })
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
    yield* count(bucket, limitKey(ip), limit, WINDOW_MS, { client_ip: ip })
  })

/**
 * Channel and team creation per user (issue 25: one account made 1,000 channels in 17 s): a burst of
 * `rateLimitCreateBurst`, then `rateLimitCreatePerMinute` on average. Counted as the other limits, in fixed windows
 * (of burst / per-minute minutes, so the burst is the window's allowance), shared by the nodes through the cache and
 * per node when it fails; the same 429 with its headers and body.
 */
export const enforceCreation = (userId: string) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    if (!config.rateLimitEnabled) return
    const windowMs = Math.max(WINDOW_MS, Math.round((config.rateLimitCreateBurst / config.rateLimitCreatePerMinute) * WINDOW_MS))
    yield* count("create", userId, config.rateLimitCreateBurst, windowMs, { user_id: userId })
  })

const count = (bucket: string, who: string, limit: number, windowMs: number, details: Record<string, string>) =>
  Effect.gen(function*() {
    const cache = yield* Cache
    const now = yield* Clock.currentTimeMillis
    const window = Math.floor(now / windowMs)
    const key = `ratelimit:${bucket}:${who}:${window}`
    const counted = yield* cache.incr(key, windowMs).pipe(
      Effect.map((c) => c.count),
      Effect.orElse(() => Effect.sync(() => countLocally(key, windowMs, window)))
    )
    const resetAt = (window + 1) * windowMs
    const retryAfter = Math.max(1, Math.ceil((resetAt - now) / 1000))
    if (counted <= limit) return
    yield* logSecurityEvent(SecurityEvent.RateLimitExceeded, { bucket, ...details, limit })
    const per = windowMs === WINDOW_MS ? "per minute" : `per ${Math.round(windowMs / 60_000)} minutes`
    return yield* new ApiError({
      status: 429,
      id: "RATE_LIMIT_EXCEEDED",
      message: `Too many requests: the limit is ${limit} ${per}. Retry in ${retryAfter} seconds.`,
      headers: {
        "x-ratelimit-limit": String(limit),
        "x-ratelimit-remaining": "0",
        "x-ratelimit-reset": String(Math.floor(resetAt / 1000)),
        "retry-after": String(retryAfter)
      }
    })
  })

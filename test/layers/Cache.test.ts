import { describe, it } from "@effect/vitest"
import { Duration, Effect, Redacted, TestClock } from "effect"
import * as Cache from "../../layers/Cache.ts"
import { hasRedis, redisKeyPrefix, redisUrl } from "../support/Databases.ts"
import { cacheContract } from "./CacheContract.ts"

const prefix = redisKeyPrefix()

describe("Cache in memory (TestClock)", () => {
  for (const [name, body] of cacheContract) {
    it.scoped(name, () =>
      body({
        make: Cache.makeMemory,
        advance: (d) => TestClock.adjust(d),
        ttl: Duration.seconds(10),
        key: (k) => k
      }))
  }
})

const redisTitle = hasRedis() ? "Cache on Redis (real time)" : "Cache on Redis: NOT RUN, Redis is not reachable"

// Each case has its own keys and connection, so the real-time waits overlap.
describe.concurrent(redisTitle, () => {
  for (const [index, [name, body]] of cacheContract.entries()) {
    it.scopedLive.skipIf(!hasRedis())(name, () =>
      body({
        make: Cache.makeRedis(Redacted.make(redisUrl())),
        advance: (d) => Effect.sleep(d),
        ttl: Duration.millis(400),
        key: (k) => `${prefix}cache:${index}:${k}`
      }))
  }
})

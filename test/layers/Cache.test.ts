import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Option, Redacted, TestClock } from "effect"
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

describe("Cache on Redis: whose failure an error reply is", () => {
  it.scopedLive.skipIf(!hasRedis())("an error reply fails that command alone and never opens the breaker (issue 25)", () =>
    Effect.gen(function*() {
      const cache = yield* Cache.makeRedis(Redacted.make(redisUrl()))
      const key = `${prefix}cache:reply-error`
      yield* cache.set(key, "not a number", Duration.seconds(30))
      // INCR on a string Redis cannot count answers an error reply (ERR value is not an integer): far more of them
      // than the three failures that open the breaker.
      for (let i = 0; i < 6; i++) {
        const failure = yield* Effect.flip(cache.incr(key, Duration.seconds(30)))
        expect(failure._tag).toBe("CacheError")
      }
      expect(yield* cache.get(key)).toEqual(Option.some("not a number"))
      yield* cache.del(key)
    }))
})

import { expect } from "@effect/vitest"
import { Duration, Effect, Option, type Scope } from "effect"
import type { CacheService } from "../../layers/Cache.ts"

/**
 * The behaviour every Cache implementation owes its callers, written once and run against memory (TestClock) and
 * Redis (real time). `ttl` is the unit of time: each check waits a multiple of it, so Redis runs with a unit long
 * enough to be robust on a busy machine.
 */
export interface CacheHarness {
  readonly make: Effect.Effect<CacheService, unknown, Scope.Scope>
  /** Lets time pass: TestClock.adjust for memory, a real sleep for Redis. */
  readonly advance: (d: Duration.Duration) => Effect.Effect<void>
  readonly ttl: Duration.Duration
  /** A key no other run shares. */
  readonly key: (name: string) => string
}

type Case = readonly [name: string, body: (h: CacheHarness) => Effect.Effect<void, unknown, Scope.Scope>]

const times = (d: Duration.Duration, factor: number) => Duration.millis(Duration.toMillis(d) * factor)

export const cacheContract: ReadonlyArray<Case> = [
  ["get returns what set stored, and nothing after the ttl", (h) =>
    Effect.gen(function*() {
      const cache = yield* h.make
      const forever = h.key("forever")
      const brief = h.key("brief")
      expect(yield* cache.get(h.key("missing"))).toEqual(Option.none())
      yield* cache.set(forever, "kept")
      yield* cache.set(brief, "gone soon", h.ttl)
      expect(yield* cache.get(brief)).toEqual(Option.some("gone soon"))
      yield* h.advance(times(h.ttl, 1.5))
      expect(yield* cache.get(brief)).toEqual(Option.none())
      expect(yield* cache.get(forever)).toEqual(Option.some("kept"))
      yield* cache.del(forever)
      expect(yield* cache.get(forever)).toEqual(Option.none())
    })],

  ["setVersioned never goes back to a lower version, and a value of another kind does not block it", (h) =>
    Effect.gen(function*() {
      const cache = yield* h.make
      const key = h.key("versioned")
      yield* cache.set(key, "plain text")
      expect(yield* cache.setVersioned(key, 5, "five", h.ttl)).toBe(true)
      expect(yield* cache.get(key)).toEqual(Option.some("5|five"))
      // A writer that read before version 7 was written cannot put its value back over it.
      expect(yield* cache.setVersioned(key, 7, "", h.ttl)).toBe(true)
      expect(yield* cache.setVersioned(key, 6, "six", h.ttl)).toBe(false)
      expect(yield* cache.get(key)).toEqual(Option.some("7|"))
      // The same or a higher version replaces it.
      expect(yield* cache.setVersioned(key, 7, "seven", h.ttl)).toBe(true)
      expect(yield* cache.setVersioned(key, 12, "twelve", h.ttl)).toBe(true)
      expect(yield* cache.get(key)).toEqual(Option.some("12|twelve"))
      yield* h.advance(times(h.ttl, 1.5))
      expect(yield* cache.get(key)).toEqual(Option.none())
      expect(yield* cache.setVersioned(key, 1, "one", h.ttl)).toBe(true)
    })],

  ["setIfAbsent sets only once until the first value expires", (h) =>
    Effect.gen(function*() {
      const cache = yield* h.make
      const key = h.key("lock")
      expect(yield* cache.setIfAbsent(key, "first", h.ttl)).toBe(true)
      expect(yield* cache.setIfAbsent(key, "second", h.ttl)).toBe(false)
      expect(yield* cache.get(key)).toEqual(Option.some("first"))
      yield* h.advance(times(h.ttl, 1.5))
      expect(yield* cache.setIfAbsent(key, "third", h.ttl)).toBe(true)
      expect(yield* cache.get(key)).toEqual(Option.some("third"))
    })],

  ["take returns a value once and removes it", (h) =>
    Effect.gen(function*() {
      const cache = yield* h.make
      const key = h.key("code")
      yield* cache.set(key, "single-use", times(h.ttl, 10))
      expect(yield* cache.take(key)).toEqual(Option.some("single-use"))
      expect(yield* cache.take(key)).toEqual(Option.none())
      expect(yield* cache.get(key)).toEqual(Option.none())
      const racers = yield* Effect.all([cache.take(h.key("raced")), cache.take(h.key("raced"))], { concurrency: 2 })
      expect(racers.filter(Option.isSome)).toHaveLength(0)
      yield* cache.set(h.key("raced"), "once", times(h.ttl, 10))
      const winners = yield* Effect.all([cache.take(h.key("raced")), cache.take(h.key("raced"))], { concurrency: 2 })
      expect(winners.filter(Option.isSome)).toEqual([Option.some("once")])
    })],

  ["incr counts within a window that starts at the first increment", (h) =>
    Effect.gen(function*() {
      const cache = yield* h.make
      const key = h.key("counter")
      const window = times(h.ttl, 2)
      const first = yield* cache.incr(key, window)
      expect(first.count).toBe(1)
      expect(first.ttlMs).toBeGreaterThan(0)
      expect(first.ttlMs).toBeLessThanOrEqual(Duration.toMillis(window))
      yield* h.advance(h.ttl)
      const second = yield* cache.incr(key, window)
      expect(second.count).toBe(2)
      // Later increments do not extend the window.
      expect(second.ttlMs).toBeLessThanOrEqual(Duration.toMillis(h.ttl))
      yield* h.advance(times(h.ttl, 1.5))
      expect((yield* cache.incr(key, window)).count).toBe(1)
    })],

  ["listPush keeps the newest entries up to the cap and expires ttl after the last append", (h) =>
    Effect.gen(function*() {
      const cache = yield* h.make
      const key = h.key("list")
      const ttl = times(h.ttl, 2)
      for (const value of ["a", "b", "c", "d", "e"]) yield* cache.listPush(key, value, 3, ttl)
      expect(yield* cache.listRange(key)).toEqual(["c", "d", "e"])
      yield* h.advance(times(h.ttl, 1.5))
      yield* cache.listPush(key, "f", 3, ttl)
      yield* h.advance(times(h.ttl, 1.5))
      expect(yield* cache.listRange(key)).toEqual(["d", "e", "f"])
      yield* h.advance(h.ttl)
      expect(yield* cache.listRange(key)).toEqual([])
    })],

  ["expiring sets count live members and heal when members are not renewed", (h) =>
    Effect.gen(function*() {
      const cache = yield* h.make
      const key = h.key("set")
      yield* cache.expiringSetAdd(key, "long", times(h.ttl, 4))
      yield* cache.expiringSetAdd(key, "short", h.ttl)
      yield* cache.expiringSetAdd(key, "renewed", h.ttl)
      expect(yield* cache.expiringSetCount(key)).toBe(3)
      yield* h.advance(times(h.ttl, 0.6))
      yield* cache.expiringSetAdd(key, "renewed", h.ttl)
      yield* h.advance(times(h.ttl, 0.6))
      // "short" healed away on its own.
      expect(yield* cache.expiringSetCount(key)).toBe(2)
      yield* h.advance(h.ttl)
      // "renewed" was not renewed again; the short-lived members did not cut the long one's life short.
      expect(yield* cache.expiringSetCount(key)).toBe(1)
      yield* cache.expiringSetRemove(key, "long")
      expect(yield* cache.expiringSetCount(key)).toBe(0)
      expect(yield* cache.expiringSetCount(h.key("never-used"))).toBe(0)
    })],

  ["ping answers", (h) => Effect.flatMap(h.make, (cache) => cache.ping)]
]

import { Clock, Effect, Layer } from "effect"
import { Cache, type CacheService, makeMemory } from "../../../layers/Cache.ts"

/**
 * The in-memory Cache on a clock the test can move forward, so that TTLs (OAuth state, exchange codes) expire
 * without waiting, while the rest of the service keeps real time.
 */
export interface ShiftedCache {
  readonly layer: Layer.Layer<Cache>
  readonly advance: (ms: number) => void
}

export const shiftedCache = (): ShiftedCache => {
  let offset = 0
  const clock: Clock.Clock = {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: () => Date.now() + offset,
    currentTimeMillis: Effect.sync(() => Date.now() + offset),
    unsafeCurrentTimeNanos: () => BigInt(Date.now() + offset) * 1_000_000n,
    currentTimeNanos: Effect.sync(() => BigInt(Date.now() + offset) * 1_000_000n),
    sleep: (duration) => Effect.sleep(duration)
  }
  const layer = Layer.effect(
    Cache,
    Effect.map(makeMemory, (cache) => {
      const shifted: Record<string, unknown> = {}
      for (const [name, member] of Object.entries(cache)) {
        // `peek` answers synchronously on the real clock: left out, so the service asks `get` on the shifted one.
        if (name === "peek") continue
        shifted[name] = typeof member === "function"
          ? (...args: Array<unknown>) => Effect.withClock((member as (...a: Array<unknown>) => Effect.Effect<unknown, unknown>)(...args), clock)
          : Effect.isEffect(member)
          ? Effect.withClock(member as Effect.Effect<unknown, unknown>, clock)
          : member
      }
      return shifted as unknown as CacheService
    })
  )
  return { layer, advance: (ms) => (offset += ms) }
}

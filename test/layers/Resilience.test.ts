import { describe, expect, it } from "@effect/vitest"
import { Chunk, Deferred, Duration, Effect, Exit, Fiber, Ref, Schedule, TestClock } from "effect"
import { renderPrometheus } from "../../layers/Metrics.ts"
import { backoff, CircuitOpenError, makeCircuitBreaker, Policies } from "../../layers/Resilience.ts"

const transitions = (breaker: string, state: string) =>
  Effect.map(renderPrometheus, (text) => {
    const line = text.split("\n").find((l) =>
      l.startsWith(`service_circuit_breaker_state_changes_total{breaker="${breaker}",state="${state}"} `))
    return line === undefined ? 0 : Number(line.split(" ")[1])
  })

/** A call that counts how often it really ran and fails or succeeds as told. */
const probe = Effect.gen(function*() {
  const calls = yield* Ref.make(0)
  const fail = Ref.update(calls, (n) => n + 1).pipe(Effect.zipRight(Effect.fail("boom" as const)))
  const succeed = Ref.update(calls, (n) => n + 1).pipe(Effect.as("ok" as const))
  return { calls: Ref.get(calls), fail, succeed }
})

describe("circuit breaker (TestClock)", () => {
  it.effect("opens after N consecutive failures, fails fast, half-opens after resetAfter and closes on success", () =>
    Effect.gen(function*() {
      const breaker = yield* makeCircuitBreaker({ name: "cycle", maxFailures: 3, resetAfter: "10 seconds" })
      const call = yield* probe
      for (let i = 0; i < 3; i++) expect(yield* Effect.flip(breaker.protect(call.fail))).toBe("boom")
      expect((yield* breaker.state)._tag).toBe("Open")
      expect(yield* transitions("cycle", "open")).toBe(1)

      const refused = yield* Effect.flip(breaker.protect(call.succeed))
      expect(refused).toBeInstanceOf(CircuitOpenError)
      expect((refused as CircuitOpenError).retryAfterMs).toBe(10_000)
      expect(yield* call.calls).toBe(3)

      yield* TestClock.adjust("9 seconds")
      expect(yield* Effect.flip(breaker.protect(call.succeed))).toBeInstanceOf(CircuitOpenError)
      yield* TestClock.adjust("1 second")
      expect(yield* breaker.protect(call.succeed)).toBe("ok")
      expect(yield* call.calls).toBe(4)
      expect((yield* breaker.state)._tag).toBe("Closed")
      expect(yield* transitions("cycle", "halfopen")).toBe(1)
      expect(yield* transitions("cycle", "closed")).toBe(1)
    }))

  it.effect("a failed trial re-opens the breaker for another resetAfter", () =>
    Effect.gen(function*() {
      const breaker = yield* makeCircuitBreaker({ name: "retrial", maxFailures: 1, resetAfter: "5 seconds" })
      const call = yield* probe
      yield* Effect.flip(breaker.protect(call.fail))
      yield* TestClock.adjust("5 seconds")
      expect(yield* Effect.flip(breaker.protect(call.fail))).toBe("boom")
      expect((yield* breaker.state)._tag).toBe("Open")
      expect(yield* transitions("retrial", "open")).toBe(2)
      expect(yield* Effect.flip(breaker.protect(call.succeed))).toBeInstanceOf(CircuitOpenError)
      yield* TestClock.adjust("5 seconds")
      expect(yield* breaker.protect(call.succeed)).toBe("ok")
      expect(yield* call.calls).toBe(3)
    }))

  it.effect("lets a single trial through while half-open", () =>
    Effect.gen(function*() {
      const breaker = yield* makeCircuitBreaker({ name: "single-trial", maxFailures: 1, resetAfter: "1 second" })
      yield* Effect.flip(breaker.protect(Effect.fail("down")))
      yield* TestClock.adjust("1 second")
      const release = yield* Deferred.make<void>()
      const trial = yield* Effect.fork(breaker.protect(Effect.as(Deferred.await(release), "trial")))
      yield* Effect.yieldNow()
      expect((yield* breaker.state)._tag).toBe("HalfOpen")
      expect(yield* Effect.flip(breaker.protect(Effect.succeed("second")))).toBeInstanceOf(CircuitOpenError)
      yield* Deferred.succeed(release, undefined)
      expect(yield* Fiber.join(trial)).toBe("trial")
      expect(yield* breaker.protect(Effect.succeed("after"))).toBe("after")
    }))

  it.effect("a success resets the count of consecutive failures; ignored failures do not count", () =>
    Effect.gen(function*() {
      const breaker = yield* makeCircuitBreaker({
        name: "selective",
        maxFailures: 2,
        isFailure: (e) => e !== "not-found"
      })
      yield* Effect.flip(breaker.protect(Effect.fail("down")))
      yield* breaker.protect(Effect.succeed(1))
      yield* Effect.flip(breaker.protect(Effect.fail("down")))
      for (let i = 0; i < 5; i++) yield* Effect.flip(breaker.protect(Effect.fail("not-found")))
      expect((yield* breaker.state)._tag).toBe("Closed")
      yield* Effect.flip(breaker.protect(Effect.fail("down")))
      yield* Effect.flip(breaker.protect(Effect.fail("down")))
      expect((yield* breaker.state)._tag).toBe("Open")
    }))

  it.effect("an interrupted trial does not wedge the breaker half-open", () =>
    Effect.gen(function*() {
      const breaker = yield* makeCircuitBreaker({ name: "interrupted", maxFailures: 1, resetAfter: "1 second" })
      yield* Effect.flip(breaker.protect(Effect.fail("down")))
      yield* TestClock.adjust("1 second")
      const trial = yield* Effect.fork(breaker.protect(Effect.never))
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(trial)
      expect(yield* breaker.protect(Effect.succeed("next"))).toBe("next")
    }))
})

describe("retry schedules (TestClock)", () => {
  it.effect("backoff retries a bounded number of times and then fails", () =>
    Effect.gen(function*() {
      const call = yield* probe
      const fiber = yield* Effect.fork(Effect.exit(Effect.retry(call.fail, backoff({ times: 3 }))))
      yield* TestClock.adjust("1 minute")
      const exit = yield* Fiber.join(fiber)
      expect(Exit.isFailure(exit)).toBe(true)
      expect(yield* call.calls).toBe(4)
    }))

  it.effect("backoff delays grow, are jittered around the exponential and capped by maxDelay", () =>
    Effect.gen(function*() {
      const delays = yield* Schedule.run(
        Schedule.delays(backoff({ base: "100 millis", maxDelay: "1 second", times: 6 })),
        0,
        [1, 2, 3, 4, 5, 6, 7, 8]
      )
      // The last output is the zero delay of the step that ends the schedule.
      const ms = Chunk.toReadonlyArray(delays).map(Duration.toMillis).filter((d) => d > 0)
      expect(ms).toHaveLength(6)
      const nominal = [100, 200, 400, 800, 1000, 1000]
      ms.forEach((d, i) => {
        expect(d).toBeGreaterThanOrEqual(nominal[i] * 0.8)
        expect(d).toBeLessThanOrEqual(nominal[i] * 1.2)
      })
    }))

  it.effect("the idempotent-store policy gives up after two retries within a second", () =>
    Effect.gen(function*() {
      const call = yield* probe
      const fiber = yield* Effect.fork(Effect.exit(Effect.retry(call.fail, Policies.idempotentStore)))
      yield* TestClock.adjust("1 second")
      expect(Exit.isFailure(yield* Fiber.join(fiber))).toBe(true)
      expect(yield* call.calls).toBe(3)
    }))
})

import { Cause, Clock, Data, Duration, Effect, Exit, Metric, Option, Schedule } from "effect"
import { circuitBreakerStateChanges } from "./Metrics.ts"

/**
 * Timeouts, retries and circuit breakers for every call that leaves the process.
 * Effect 3 has no circuit breaker (Effect-TS/effect#2843 is open), hence the small one below; time comes from
 * Clock so that TestClock drives it.
 */

export class CircuitOpenError extends Data.TaggedError("CircuitOpenError")<{
  readonly breaker: string
  readonly retryAfterMs: number
}> {
  override get message() {
    return `circuit breaker "${this.breaker}" is open; retry in ${this.retryAfterMs} ms`
  }
}

export type BreakerState =
  | { readonly _tag: "Closed"; readonly failures: number }
  | { readonly _tag: "Open"; readonly until: number }
  | { readonly _tag: "HalfOpen" }

export interface CircuitBreaker {
  readonly name: string
  readonly state: Effect.Effect<BreakerState>
  /** Runs the call if the breaker lets it through and records the outcome. */
  readonly protect: <A, E, R>(call: Effect.Effect<A, E, R>) => Effect.Effect<A, E | CircuitOpenError, R>
}

export interface BreakerOptions {
  readonly name: string
  /** Consecutive failures that open the breaker. */
  readonly maxFailures?: number
  /** How long the breaker stays open before a single trial call is let through. */
  readonly resetAfter?: Duration.DurationInput
  /** Which failures count against the breaker; by default all of them. */
  readonly isFailure?: (error: unknown) => boolean
}

/** Every breaker created in this process, for /stats. */
const registry = new Map<string, CircuitBreaker>()
const CLOSED: BreakerState = { _tag: "Closed", failures: 0 }

export const breakerStates: Effect.Effect<Record<string, string>> = Effect.gen(function*() {
  const out: Record<string, string> = {}
  for (const [name, breaker] of registry) out[name] = (yield* breaker.state)._tag.toLowerCase()
  return out
})

const recordTransition = (name: string, to: BreakerState["_tag"]) =>
  Metric.increment(Metric.tagged(Metric.tagged(circuitBreakerStateChanges, "breaker", name), "state", to.toLowerCase())).pipe(
    Effect.zipRight(Effect.logInfo("circuit breaker state change").pipe(Effect.annotateLogs({ breaker: name, state: to })))
  )

export const makeCircuitBreaker = (options: BreakerOptions): Effect.Effect<CircuitBreaker> =>
  Effect.gen(function*() {
    const maxFailures = options.maxFailures ?? 5
    const resetAfterMs = Duration.toMillis(options.resetAfter ?? "10 seconds")
    const isFailure = options.isFailure ?? (() => true)
    // Plain mutable state: every read and change happens inside one synchronous step of a fiber, so each is atomic
    // on the single JavaScript thread, and the closed breaker's path (nearly every call) allocates nothing.
    let current: BreakerState = CLOSED
    let trialInFlight = false

    const transition = (next: BreakerState): Effect.Effect<void> => {
      const changed = current._tag !== next._tag
      current = next
      return changed ? recordTransition(options.name, next._tag) : Effect.void
    }

    const acquire = Effect.suspend(() => {
      if (current._tag === "Closed") return Effect.void
      return Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const state = current
        if (state._tag === "Open" && now < state.until) {
          return Effect.fail(new CircuitOpenError({ breaker: options.name, retryAfterMs: state.until - now }))
        }
        // Open past its wait, or half-open: one trial call at a time goes through.
        if (trialInFlight) return Effect.fail(new CircuitOpenError({ breaker: options.name, retryAfterMs: resetAfterMs }))
        trialInFlight = true
        return transition({ _tag: "HalfOpen" })
      })
    })

    const onSuccess = Effect.suspend(() => {
      trialInFlight = false
      return current === CLOSED ? Effect.void : transition(CLOSED)
    })
    const onFailure = Effect.flatMap(Clock.currentTimeMillis, (now) => {
      trialInFlight = false
      const state = current
      if (state._tag === "HalfOpen") return transition({ _tag: "Open", until: now + resetAfterMs })
      if (state._tag === "Closed") {
        const failures = state.failures + 1
        return transition(failures >= maxFailures ? { _tag: "Open", until: now + resetAfterMs } : { _tag: "Closed", failures })
      }
      return Effect.void
    })

    const breaker: CircuitBreaker = {
      name: options.name,
      state: Effect.sync(() => current),
      // Uninterruptible between the permit and the outcome handler, so that an interrupted trial always frees its
      // permit (catch handlers do not run on interruption; onExit does).
      protect: (call) => Effect.suspend(() =>
        // Closed without failures (nearly every call): no permit to take or free, so no mask and no outcome handler
        // on success; only a failure that counts is recorded (issue 10: fewer steps around every statement). A
        // failure counted by another call meanwhile is then reset by the next call that starts after it.
        current === CLOSED
          ? Effect.tapErrorCause(call, (cause) => {
            if (Cause.isInterruptedOnly(cause)) return Effect.void
            const failure = Cause.failureOption(cause)
            return Option.isNone(failure) || isFailure(failure.value) ? onFailure : Effect.void
          })
          : Effect.uninterruptibleMask((restore) =>
          Effect.zipRight(
            acquire,
            restore(call).pipe(
              Effect.onExit((exit) => {
                if (Exit.isSuccess(exit)) return onSuccess
                if (Cause.isInterruptedOnly(exit.cause)) return Effect.sync(() => void (trialInFlight = false))
                const failure = Cause.failureOption(exit.cause)
                return Option.isNone(failure) || isFailure(failure.value) ? onFailure : onSuccess
              })
            )
          )
        ))
    }
    registry.set(options.name, breaker)
    return breaker
  })

/** Exponential backoff with jitter, capped, bounded in count: only for idempotent calls. */
export const backoff = (options: {
  readonly base?: Duration.DurationInput
  readonly maxDelay?: Duration.DurationInput
  readonly times?: number
} = {}) =>
  Schedule.exponential(options.base ?? "50 millis", 2).pipe(
    Schedule.union(Schedule.spaced(options.maxDelay ?? "2 seconds")),
    Schedule.jittered,
    Schedule.intersect(Schedule.recurs(options.times ?? 3))
  )

/** Named retry policies, so that every caller with the same needs shares one. */
export const Policies = {
  /** Reads against PostgreSQL or Redis that may hit a dropped connection. */
  idempotentStore: backoff({ base: "25 millis", maxDelay: "500 millis", times: 2 }),
  /** Calls to identity and push providers. */
  outbound: backoff({ base: "200 millis", maxDelay: "5 seconds", times: 3 })
} as const

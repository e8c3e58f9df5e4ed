import { Clock, Duration, Effect, Option, RateLimiter } from "effect"
import { makeCircuitBreaker } from "../Resilience.ts"
import { PushSendError, type Transport } from "./Model.ts"

/**
 * What every push attempt passes through, per transport: a throttle at the provider's quota, a circuit breaker that
 * counts only failures worth retrying (an unreachable or overloaded provider, not a refused token), and a timeout.
 */
export interface GuardOptions {
  readonly transport: Transport
  /** The provider's quota; attempts beyond it wait for their turn. */
  readonly perSecond: number
  readonly timeout: Duration.DurationInput
}

export const makeGuard = (options: GuardOptions) =>
  Effect.gen(function*() {
    const throttle = yield* RateLimiter.make({ limit: options.perSecond, interval: "1 second", algorithm: "token-bucket" })
    const breaker = yield* makeCircuitBreaker({
      name: `push-${options.transport}`,
      maxFailures: 5,
      resetAfter: "30 seconds",
      isFailure: (e) => e instanceof PushSendError && e.retryable
    })
    return <A>(attempt: Effect.Effect<A, PushSendError>): Effect.Effect<A, PushSendError> =>
      throttle(breaker.protect(
        attempt.pipe(Effect.timeoutFail({ duration: options.timeout, onTimeout: () => failure(options.transport, "timeout", true) }))
      )).pipe(
        Effect.catchTag("CircuitOpenError", (open) =>
          Effect.fail(new PushSendError({
            transport: options.transport,
            reason: open.message,
            retryable: true,
            retryAfterMs: Option.some(open.retryAfterMs)
          })))
      )
  })

export const failure = (transport: Transport, reason: string, retryable: boolean, retryAfterMs: Option.Option<number> = Option.none()) =>
  new PushSendError({ transport, reason, retryable, retryAfterMs })

/** Retry-After in seconds or as an HTTP date, in milliseconds from now. */
export const retryAfter = (header: string | null | undefined): Effect.Effect<Option.Option<number>> =>
  Effect.map(Clock.currentTimeMillis, (now) => {
    if (header === null || header === undefined || header.trim() === "") return Option.none()
    const seconds = Number(header)
    if (Number.isFinite(seconds)) return Option.some(Math.max(0, seconds * 1000))
    const at = Date.parse(header)
    return Number.isNaN(at) ? Option.none() : Option.some(Math.max(0, at - now))
  })

/** 429 and 5xx are the provider asking us to come back later. */
export const isRetryableStatus = (status: number) => status === 429 || status >= 500

export interface HttpAnswer {
  readonly status: number
  readonly headers: Headers
  readonly body: unknown
}

/** One HTTP request; the fetch is aborted when the attempt is interrupted (timeout). Network errors are retryable. */
export const request = (transport: Transport, url: string, init: RequestInit): Effect.Effect<HttpAnswer, PushSendError> =>
  Effect.tryPromise({
    try: async (signal) => {
      const response = await fetch(url, { ...init, signal })
      const text = await response.text()
      let body: unknown = text
      try {
        body = text === "" ? null : JSON.parse(text)
      } catch {
        body = text
      }
      return { status: response.status, headers: response.headers, body }
    },
    catch: (cause) => failure(transport, `network: ${cause instanceof Error ? cause.message : String(cause)}`, true)
  })

/** Fails with a retryable error (honouring Retry-After) on 429/5xx, a permanent one on other non-2xx answers. */
export const refuse = (transport: Transport, answer: HttpAnswer, reason: string) =>
  Effect.flatMap(retryAfter(answer.headers.get("retry-after")), (after) =>
    Effect.fail(failure(transport, `${answer.status} ${reason}`, isRetryableStatus(answer.status), after)))

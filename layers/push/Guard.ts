import { Clock, Duration, Effect, Option, RateLimiter } from "effect"
import type { OutboundHttpService } from "../OutboundHttp.ts"
import { makeCircuitBreaker } from "../Resilience.ts"
import { PushSendError, type Transport } from "./Model.ts"

/**
 * What every push attempt passes through, per transport: a throttle at the provider's quota, a circuit breaker that
 * counts only failures worth retrying (an unreachable or overloaded provider, not a refused token: 429 and 5xx
 * count here), and a timeout. It is the only breaker on a push: PushSender's OutboundHttp keeps none per destination.
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

export interface PushRequest {
  readonly method: "POST"
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

/**
 * One HTTP request through OutboundHttp (its timeout and size cap; the request is dropped when the attempt is
 * interrupted). Every failure to get an answer is retryable; a timeout reads as the guard's.
 */
export const request = (
  http: OutboundHttpService,
  transport: Transport,
  url: string,
  init: PushRequest,
  timeout: Duration.DurationInput
): Effect.Effect<HttpAnswer, PushSendError> =>
  http.request({ url, method: init.method, headers: init.headers, body: init.body, timeout }).pipe(
    Effect.map((answer) => {
      let body: unknown = answer.body
      try {
        body = answer.body === "" ? null : JSON.parse(answer.body)
      } catch {
        body = answer.body
      }
      return { status: answer.status, headers: new Headers(answer.headers), body }
    }),
    Effect.mapError((e) =>
      e._tag === "OutboundTimeout"
        ? failure(transport, "timeout", true)
        : e._tag === "CircuitOpenError"
        ? failure(transport, e.message, true, Option.some(e.retryAfterMs))
        : failure(transport, `network: ${e.message}`, true)
    )
  )

/** Fails with a retryable error (honouring Retry-After) on 429/5xx, a permanent one on other non-2xx answers. */
export const refuse = (transport: Transport, answer: HttpAnswer, reason: string) =>
  Effect.flatMap(retryAfter(answer.headers.get("retry-after")), (after) =>
    Effect.fail(failure(transport, `${answer.status} ${reason}`, isRetryableStatus(answer.status), after)))

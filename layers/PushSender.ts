import { Context, type Duration, Effect, Layer, Metric } from "effect"
import { makeOperator } from "./OutboundHttp.ts"
import * as Apns from "./push/Apns.ts"
import * as Fcm from "./push/Fcm.ts"
import type { Credentials, PushNotification, PushSendError, SendOutcome } from "./push/Model.ts"
import * as PushProxy from "./push/PushProxy.ts"

/**
 * Push delivery to phones: the Mattermost push-proxy protocol, Firebase Cloud Messaging HTTP v1 (Android) and APNs
 * over HTTP/2 (iOS), plus an in-memory transport for tests. One `send` is one attempt at one device: the caller
 * (the push queue) owns retries, so that a retry waits without holding a worker. Each transport has its own circuit
 * breaker, throttle and per-attempt timeout; credentials travel with every call because an administrator may change
 * them at any time. The proxy and FCM requests go through OutboundHttp with the operator's address policy (the
 * destinations are an administrator's settings, not a user's); APNs needs HTTP/2 and keeps its own (push/Apns.ts).
 * The breaker per transport (push/Guard.ts) is the one that decides, for all three alike (docs/push.md: it counts
 * 429 and 5xx, and its state is in /api/v1/health/stats), so OutboundHttp's breaker per destination is off here:
 * stacked beneath, it would open on its own count and fail the transport's calls outside the documented rule.
 */

export * from "./push/Model.ts"

export interface PushSenderService {
  readonly send: (credentials: Credentials, push: PushNotification) => Effect.Effect<SendOutcome, PushSendError>
}

export class PushSender extends Context.Tag("service/PushSender")<PushSender, PushSenderService>() {}

export const pushesSent = Metric.counter("service_push_sent_total", {
  description: "Pushes accepted by a provider, by transport and kind",
  incremental: true
})

export const pushesFailed = Metric.counter("service_push_failed_total", {
  description: "Pushes given up on after their retries, or refused by the provider, by transport and reason",
  incremental: true
})

export const pushesDropped = Metric.counter("service_push_dropped_total", {
  description: "Pushes never attempted: the per-node queue was full, or the transport lost its credentials",
  incremental: true
})

export interface LiveOptions {
  /** How long one attempt may take before it counts as a (retryable) failure; 5 seconds by default. */
  readonly timeout?: Duration.DurationInput
}

/** The live transports; they hold provider connections, cached access tokens and provider JWTs. */
export const makeLive = (options: LiveOptions = {}) => Effect.gen(function*() {
  const timeout = options.timeout ?? "5 seconds"
  const http = yield* makeOperator({ breakerPerDestination: false })
  const proxy = yield* PushProxy.make(timeout, http)
  const fcm = yield* Fcm.make(timeout, http)
  const apns = yield* Apns.make(timeout)
  const service: PushSenderService = {
    send: (credentials, push) => {
      switch (credentials.transport) {
        case "proxy":
          return proxy.send(credentials, push)
        case "fcm":
          return fcm.send(credentials, push)
        case "apns":
          return apns.send(credentials, push)
      }
    }
  }
  return service
})

export const layer: Layer.Layer<PushSender> = Layer.scoped(PushSender, makeLive())

export interface RecordedPush {
  readonly credentials: Credentials
  readonly push: PushNotification
}

/**
 * An in-memory transport: records every push and answers with `respond` (Sent by default), so that tests can
 * script invalid tokens and provider failures.
 */
export const makeMemory = () => {
  const sent: Array<RecordedPush> = []
  let respond: (recorded: RecordedPush) => Effect.Effect<SendOutcome, PushSendError> = () => Effect.succeed({ _tag: "Sent" })
  const service: PushSenderService = {
    send: (credentials, push) =>
      Effect.suspend(() => {
        const recorded = { credentials, push }
        sent.push(recorded)
        return respond(recorded)
      })
  }
  return {
    sent,
    respondWith: (f: typeof respond) => {
      respond = f
    },
    layer: Layer.succeed(PushSender, service)
  }
}

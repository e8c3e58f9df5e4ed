import { Context, Duration, Effect, Layer, Metric, Option, Queue } from "effect"
import { newId } from "../../layers/Crypto.ts"
import {
  type Credentials,
  PushSender,
  type PushKind,
  type PushNotification,
  pushesDropped,
  pushesFailed,
  pushesSent,
  type Transport
} from "../../layers/PushSender.ts"
import { Sessions } from "../auth/Sessions.ts"
import type { PushDevice } from "../devices/DeviceRepo.ts"
import { DeviceRepo } from "../devices/DeviceRepo.ts"
import { DiagnosticId } from "../system/DiagnosticId.ts"
import { SigningKey } from "../system/SigningKey.ts"
import { type ActiveCredentials, PushSettings } from "./PushSettings.ts"
import type { PushTemplate } from "./PushTemplate.ts"

/**
 * Delivery: a bounded queue per node drained by a few workers, so that no push is ever sent on a request's path. A
 * full queue drops (and counts) rather than blocking whoever offered. A retryable failure is re-queued after a
 * backoff that honours Retry-After, without holding a worker while it waits. A dead token is removed from the
 * registry (and from the session that carried it).
 */
export interface PushJob {
  readonly device: PushDevice
  readonly template: PushTemplate
}

export interface PushQueueService {
  /** Never blocks and never fails: what does not fit is dropped and counted. */
  readonly offer: (jobs: ReadonlyArray<PushJob>) => Effect.Effect<void>
}

export class PushQueue extends Context.Tag("service/PushQueue")<PushQueue, PushQueueService>() {}

export const QUEUE_CAPACITY = 10_000
const WORKERS = 8
const MAX_ATTEMPTS = 4
const MAX_RETRY_DELAY_MS = 60_000

interface Attempt extends PushJob {
  readonly attempt: number
}

export interface Route {
  readonly credentials: Credentials
  readonly token: string
  readonly proxyPlatform: string
  readonly voip: boolean
}

/**
 * The transport for a device: the push proxy when one is configured (the Mattermost apps), otherwise FCM for
 * Android and APNs for iOS when their credentials are complete. Calls go to an iOS device's PushKit token when it
 * registered one.
 */
export const route = (active: ActiveCredentials, device: PushDevice, template: PushTemplate): Option.Option<Route> => {
  const voip = template.kind === "call" ? device.voip : Option.none()
  const target = Option.match(voip, {
    onNone: () => ({ token: device.token, proxyPlatform: device.proxyPlatform, voip: false }),
    onSome: (v) => ({ token: v.token, proxyPlatform: v.proxyPlatform, voip: true })
  })
  const credentials: Option.Option<Credentials> = Option.orElse(
    active.proxy as Option.Option<Credentials>,
    () => (device.platform === "android" ? active.fcm : active.apns) as Option.Option<Credentials>
  )
  return Option.map(credentials, (c) => ({ credentials: c, ...target }))
}

/** Exponential from one second, or the provider's Retry-After when it asks for longer; capped at a minute. */
export const retryDelayMs = (attempt: number, retryAfterMs: Option.Option<number>) =>
  Math.min(MAX_RETRY_DELAY_MS, Math.max(1000 * 2 ** (attempt - 1), Option.getOrElse(retryAfterMs, () => 0)))

const count = (metric: typeof pushesSent, tags: Record<string, string>, by = 1) =>
  Metric.incrementBy(Object.entries(tags).reduce((m, [k, v]) => Metric.tagged(m, k, v), metric), by)

export const make = Effect.gen(function*() {
  const sender = yield* PushSender
  const settings = yield* PushSettings
  const devices = yield* DeviceRepo
  const sessions = yield* Sessions
  const signing = yield* SigningKey
  const serverId = (yield* DiagnosticId).value
  const queue = yield* Effect.acquireRelease(Queue.dropping<Attempt>(QUEUE_CAPACITY), Queue.shutdown)
  const scope = yield* Effect.scope

  // Counters start at zero so that dashboards see them before the first push.
  for (const transport of ["proxy", "fcm", "apns"] satisfies Array<Transport>) {
    for (const kind of ["message", "clear", "call"] satisfies Array<PushKind>) yield* count(pushesSent, { transport, kind }, 0)
  }
  yield* count(pushesDropped, { reason: "queue_full" }, 0)

  const enqueue = (attempts: ReadonlyArray<Attempt>) =>
    Effect.gen(function*() {
      if (attempts.length === 0) return
      const accepted = yield* Effect.forEach(attempts, (attempt) => Queue.offer(queue, attempt))
      const dropped = accepted.filter((ok) => !ok).length
      if (dropped > 0) {
        yield* count(pushesDropped, { reason: "queue_full" }, dropped)
        yield* Effect.logWarning("push queue full; pushes dropped").pipe(Effect.annotateLogs({ dropped }))
      }
    })

  /** The device's token is dead: forget it, and clear it from the session that carried it. */
  const forget = (job: Attempt, route: Route) =>
    Effect.gen(function*() {
      yield* devices.removeToken(route.token)
      if (Option.isSome(job.device.sessionId)) {
        const props: Record<string, string> = route.voip ? { voip_device_id: "" } : {}
        const sessionId = job.device.sessionId.value
        const current = yield* sessions.get(sessionId)
        if (Option.isSome(current)) yield* sessions.updateDevice(sessionId, route.voip ? current.value.device_id : "", props)
      }
    })

  const deliver = (job: Attempt) =>
    Effect.gen(function*() {
      const active = yield* settings.current
      const chosen = route(active, job.device, job.template)
      if (Option.isNone(chosen)) {
        return yield* count(pushesDropped, { reason: "no_credentials" })
      }
      const r = chosen.value
      const transport = r.credentials.transport
      const ackId = newId()
      const signature = yield* signing.sign({ ack_id: ackId, device_id: r.token })
      const push: PushNotification = {
        kind: job.template.kind,
        token: r.token,
        platform: job.device.platform,
        proxyPlatform: r.proxyPlatform,
        voip: r.voip,
        title: job.template.title,
        body: job.template.body,
        priority: job.template.priority,
        androidChannel: job.template.androidChannel,
        sound: job.template.sound,
        badge: job.template.badge,
        threadId: job.template.threadId,
        data: { ...job.template.data, ack_id: ackId, server_id: serverId, signature }
      }
      const outcome = yield* sender.send(r.credentials, push).pipe(Effect.either)
      if (outcome._tag === "Right") {
        if (outcome.right._tag === "Sent") {
          return yield* count(pushesSent, { transport, kind: job.template.kind })
        }
        yield* count(pushesFailed, { transport, reason: "invalid_token" })
        yield* Effect.logInfo("push token rejected; device forgotten").pipe(
          Effect.annotateLogs({ transport, reason: outcome.right.reason, user_id: job.device.userId })
        )
        return yield* forget(job, r)
      }
      const error = outcome.left
      if (error.retryable && job.attempt < MAX_ATTEMPTS) {
        const delay = retryDelayMs(job.attempt, error.retryAfterMs)
        yield* Effect.logDebug("push failed; will retry").pipe(Effect.annotateLogs({ transport, reason: error.reason, delay_ms: delay }))
        return yield* Effect.forkIn(
          Effect.delay(enqueue([{ ...job, attempt: job.attempt + 1 }]), Duration.millis(delay)),
          scope
        )
      }
      yield* count(pushesFailed, { transport, reason: error.retryable ? "retries_exhausted" : "refused" })
      yield* Effect.logWarning("push failed").pipe(Effect.annotateLogs({ transport, reason: error.reason, attempts: job.attempt }))
    }).pipe(
      // A worker survives anything one push does.
      Effect.catchAllCause((cause) => Effect.logError("push delivery failed unexpectedly", cause))
    )

  yield* Effect.forkIn(
    Effect.forever(Effect.flatMap(Queue.take(queue), deliver)).pipe(Effect.replicateEffect(WORKERS, { concurrency: WORKERS, discard: true })),
    scope
  )

  const service: PushQueueService = {
    offer: (jobs) => enqueue(jobs.map((job) => ({ ...job, attempt: 1 })))
  }
  return service
})

export const layer = Layer.scoped(PushQueue, make)

import { Clock, Effect, Layer, Schedule } from "effect"
import { DeviceRepo } from "./DeviceRepo.ts"

/**
 * Expires registrations whose app has not checked in for 60 days (clients re-register at every start and
 * periodically) and push acknowledgements older than a week. Every node runs it; the deletes are idempotent.
 */
export const STALE_AFTER_MS = 60 * 24 * 60 * 60 * 1000
const ACKS_KEPT_MS = 7 * 24 * 60 * 60 * 1000

export const sweepOnce = Effect.gen(function*() {
  const devices = yield* DeviceRepo
  const now = yield* Clock.currentTimeMillis
  const removed = yield* devices.sweep(now - STALE_AFTER_MS, now - ACKS_KEPT_MS)
  if (removed > 0) yield* Effect.logInfo("stale device registrations expired").pipe(Effect.annotateLogs({ removed }))
})

export const layer = Layer.scopedDiscard(
  Effect.forkScoped(
    sweepOnce.pipe(
      Effect.catchAllCause((cause) => Effect.logWarning("device sweep failed", cause)),
      Effect.repeat(Schedule.spaced("1 hour"))
    )
  )
)

import { Effect, Layer, Schedule } from "effect"
import { Presence } from "./Presence.ts"
import { Statuses } from "./Statuses.ts"

/**
 * Time-driven status changes, on every node (each change is a locked row update, so nodes running the same sweep do
 * not double-announce): idle users become away, timed DND ends, and users whose sockets vanished with a dead node
 * become offline once their presence entries expire.
 */
export const SWEEP_EVERY = "1 minute"

export const sweepOnce = Effect.gen(function*() {
  const statuses = yield* Statuses
  const presence = yield* Presence
  // When the cache cannot say, assume connected: a wrong "offline" is worse than a late one.
  const isConnected = (userId: string) => presence.count(userId).pipe(Effect.map((n) => n > 0), Effect.orElseSucceed(() => true))
  yield* statuses.awayIdle
  yield* statuses.endExpiredDnd(isConnected)
  yield* statuses.healOffline(isConnected)
})

export const layer = Layer.scopedDiscard(
  sweepOnce.pipe(
    Effect.catchAllCause((cause) => Effect.logWarning("status sweep failed", cause)),
    Effect.repeat(Schedule.spaced(SWEEP_EVERY)),
    Effect.delay(SWEEP_EVERY),
    Effect.forkScoped
  )
)

import { Clock, Effect, Layer, Schedule } from "effect"
import { UserTokenRepo } from "./UserTokenRepo.ts"

/**
 * Password-reset and verification links that were never followed stay in user_tokens after they expire (a followed
 * one is deleted as it is used). This job deletes the expired ones on every node; a link expires after an hour at
 * most, so an hourly sweep keeps the table to about the links of the last two hours.
 */
export const SWEEP_EVERY = "1 hour"

export const sweepExpiredTokens = Effect.gen(function*() {
  const now = yield* Clock.currentTimeMillis
  return yield* (yield* UserTokenRepo).deleteExpired(now)
})

export const layer = Layer.scopedDiscard(
  Effect.forkScoped(
    sweepExpiredTokens.pipe(
      Effect.catchAllCause((cause) => Effect.logWarning("expired token sweep failed", cause)),
      Effect.repeat(Schedule.spaced(SWEEP_EVERY))
    )
  )
)

import { Clock, Effect, type Scope } from "effect"
import { quietly } from "./HubState.ts"

/**
 * A user's typing events for one channel are published at most this often, whatever thread they name and however
 * many sockets they open: keyed by the thread or the socket too, one client could multiply what every member of
 * the channel receives.
 */
export const TYPING_THROTTLE_MS = 1000

/**
 * Sends a typing event of this user in this channel through `publish`, at most one per TYPING_THROTTLE_MS per user
 * and channel on this node. One that comes sooner is not dropped but held to the end of the interval, only the
 * newest of those kept: a user who reloads or switches tabs while typing (a new socket, whose client throttles
 * afresh) is still shown typing. Held events run in `scope` (the hub's).
 */
export const makeTyping = (scope: Scope.Scope) => {
  /** Last typing event sent, by user and channel, and the newest one held for the end of its interval. */
  const lastTyping = new Map<string, number>()
  const heldTyping = new Map<string, Effect.Effect<void>>()
  return (userId: string, channelId: string, publish: Effect.Effect<void>): Effect.Effect<void> =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const key = `${userId}:${channelId}`
      const wait = (lastTyping.get(key) ?? 0) + TYPING_THROTTLE_MS - now
      if (wait <= 0 && !heldTyping.has(key)) {
        lastTyping.set(key, now)
        if (lastTyping.size > 10_000) {
          for (const [k, at] of lastTyping) if (now - at >= TYPING_THROTTLE_MS && !heldTyping.has(k)) lastTyping.delete(k)
        }
        return publish
      }
      const alreadyHeld = heldTyping.has(key)
      heldTyping.set(key, publish)
      if (alreadyHeld) return Effect.void
      const release = Effect.gen(function*() {
        const held = heldTyping.get(key)
        heldTyping.delete(key)
        lastTyping.set(key, yield* Clock.currentTimeMillis)
        if (held !== undefined) yield* held
      })
      return Effect.asVoid(Effect.forkIn(quietly(Effect.delay(release, Math.max(wait, 0))), scope))
    })
}

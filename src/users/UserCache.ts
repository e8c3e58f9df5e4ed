import { Effect, Option, Stream } from "effect"
import type { DbError } from "../../layers/Db.ts"
import { PubSub } from "../../layers/PubSub.ts"
import type { UserRow } from "./UserRow.ts"

/**
 * A per-node cache of user rows for the hottest read there is, the caller's own record (GET /users/me on every app
 * start, focus and reconnect): without it each such request was a database round trip (issue 10).
 *
 * Correctness rests on invalidation, not on expiry: every committed write to a user's row calls `changed`, which
 * drops the entry here and publishes the id on the cluster bus, so every node drops it at once (revocation,
 * deactivation, a profile edit or a role change on another node is seen by the next request). Two gaps remain and
 * are closed separately:
 * - a read that started before an invalidation and finishes after it would store the old row: every invalidation
 *   bumps a generation, and a read stores its row only if no invalidation happened while it ran;
 * - messages lost while this node's bus connection was down: the bus reports such gaps and the whole cache is
 *   dropped; entries also expire after TTL_MS, a bound on staleness should a message be lost unnoticed.
 */
export const USER_CHANGED_TOPIC = "service:user-changed"
const TTL_MS = 30_000
const MAX_ENTRIES = 10_000

export const makeUserCache = Effect.gen(function*() {
  const pubsub = yield* PubSub
  const clock = yield* Effect.clock
  const entries = new Map<string, { readonly row: UserRow; readonly at: number }>()
  let generation = 0
  const drop = (id: string) => {
    generation++
    entries.delete(id)
  }
  const clear = () => {
    generation++
    entries.clear()
  }

  yield* pubsub.subscribe(USER_CHANGED_TOPIC).pipe(Stream.runForEach((id) => Effect.sync(() => drop(id))), Effect.forkScoped)
  yield* pubsub.gaps.pipe(Stream.runForEach(() => Effect.sync(clear)), Effect.forkScoped)

  /** The row while its entry is fresh; undefined when `get` would load it. */
  const peek = (id: string, now = clock.unsafeCurrentTimeMillis()) => {
    const hit = entries.get(id)
    return hit !== undefined && now - hit.at < TTL_MS ? hit.row : undefined
  }

  const get = (id: string, load: Effect.Effect<Option.Option<UserRow>, DbError>) =>
    Effect.suspend(() => {
      const now = clock.unsafeCurrentTimeMillis()
      const hit = peek(id, now)
      if (hit !== undefined) return Effect.succeed(Option.some(hit))
      const started = generation
      return Effect.tap(load, (row) =>
        Effect.sync(() => {
          if (generation !== started || Option.isNone(row)) return
          if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!)
          entries.delete(id)
          entries.set(id, { row: row.value, at: now })
        }))
    })

  /** A bus failure does not fail the write: it is logged, and the other nodes' entries expire within TTL_MS. */
  const changed = (id: string) =>
    Effect.suspend(() => {
      drop(id)
      return pubsub.publish(USER_CHANGED_TOPIC, id).pipe(
        Effect.catchAll((error) => Effect.logWarning("user cache invalidation not published", error))
      )
    })

  return { get, peek: (id: string) => peek(id), changed }
})

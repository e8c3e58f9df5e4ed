import { Clock, Context, Effect, Layer, Stream } from "effect"
import { PubSub } from "../../layers/PubSub.ts"
import type { OutgoingRow } from "./OutgoingRepo.ts"

/**
 * Each node keeps its teams' outgoing hooks in memory: every post in a public channel needs them, and nearly always
 * finds none, so a query per post would be spent for nothing. A change is applied at once on the node that made it
 * and announced on TOPIC to the others; a node whose subscription broke (and may have missed announcements) forgets
 * everything. Entries also expire after TTL_MS, in case an announcement is lost on the way.
 */
export const TOPIC = "service:outgoing-hooks"
const TTL_MS = 60_000
const MAX_TEAMS = 10_000

export interface OutgoingHookCacheService {
  /** The team's hooks, from memory or from `load`. */
  readonly teamHooks: <E, R>(teamId: string, load: Effect.Effect<ReadonlyArray<OutgoingRow>, E, R>) => Effect.Effect<ReadonlyArray<OutgoingRow>, E, R>
  /**
   * The team's hooks when memory holds them (and they have not expired), else undefined; outside any effect, for a
   * listener of EventBus.onLocal that skips the posts no hook can take.
   */
  readonly cachedNow: (teamId: string) => ReadonlyArray<OutgoingRow> | undefined
  /** After a team's hooks changed (created, updated, token regenerated, deleted). */
  readonly changed: (teamId: string) => Effect.Effect<void>
}

export class OutgoingHookCache extends Context.Tag("service/OutgoingHookCache")<OutgoingHookCache, OutgoingHookCacheService>() {}

export const layer = Layer.scoped(
  OutgoingHookCache,
  Effect.gen(function*() {
    const pubsub = yield* PubSub
    const clock = yield* Effect.clock
    const entries = new Map<string, { readonly rows: ReadonlyArray<OutgoingRow>; readonly until: number }>()
    // A load that began before a change must not store what it read: each change bumps the team's version.
    const versions = new Map<string, number>()
    let epoch = 0
    const forget = (teamId: string) => {
      versions.set(teamId, (versions.get(teamId) ?? 0) + 1)
      entries.delete(teamId)
    }
    yield* Effect.forkScoped(Stream.runForEach(pubsub.subscribe(TOPIC), (teamId) => Effect.sync(() => forget(teamId))))
    yield* Effect.forkScoped(Stream.runForEach(pubsub.gaps, () =>
      Effect.sync(() => {
        epoch += 1
        entries.clear()
      })))

    const service: OutgoingHookCacheService = {
      teamHooks: (teamId, load) =>
        Effect.gen(function*() {
          const now = yield* Clock.currentTimeMillis
          const hit = entries.get(teamId)
          if (hit !== undefined && hit.until > now) return hit.rows
          const version = versions.get(teamId) ?? 0
          const at = epoch
          const rows = yield* load
          if ((versions.get(teamId) ?? 0) === version && epoch === at) {
            entries.delete(teamId)
            entries.set(teamId, { rows, until: now + TTL_MS })
            if (entries.size > MAX_TEAMS) entries.delete(entries.keys().next().value!)
          }
          return rows
        }),
      cachedNow: (teamId) => {
        const hit = entries.get(teamId)
        return hit !== undefined && hit.until > clock.unsafeCurrentTimeMillis() ? hit.rows : undefined
      },
      changed: (teamId) =>
        Effect.sync(() => forget(teamId)).pipe(
          Effect.zipRight(pubsub.publish(TOPIC, teamId)),
          Effect.catchAll((e) => Effect.logWarning("outgoing webhooks: other nodes not told of a change; they see it within a minute", e))
        )
    }
    return service
  })
)

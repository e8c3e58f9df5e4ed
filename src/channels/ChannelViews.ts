import { Context, Effect, Layer } from "effect"
import { Db, type DbError } from "../../layers/Db.ts"
import { sqlStateOf } from "../../layers/DbFailures.ts"
import { grouped } from "../../layers/Grouped.ts"
import { groupedCounts } from "../../layers/Metrics.ts"
import * as ChannelMemberRepo from "./ChannelMemberRepo.ts"

/**
 * Channel views (POST /channels/members/me/view: every channel switch of every client, a quarter of the load
 * simulation's requests) written for several users at once under load (layers/Grouped.ts): views that arrive while
 * one statement runs go together in the next, at most one membership per channel in each (ChannelMemberRepo
 * `markViewedTogether` says why), so a view whose channel is already taken waits for the statement after. Each view
 * is still written when it is made: the answer comes after its statement committed, as before.
 */
export interface ChannelViewsService {
  /** Marks the user's memberships of these channels (distinct, one or two) read at `now`; their last_viewed_at. */
  readonly markViewed: (userId: string, channelIds: ReadonlyArray<string>, now: number) => Effect.Effect<ReadonlyArray<Viewed>, DbError>
}

/** A membership's last_viewed_at as PostgreSQL gives an int8 (text), as ChannelMemberRepo `markViewed` returns it. */
export interface Viewed {
  readonly channel_id: string
  readonly last_viewed_at: string
}

export class ChannelViews extends Context.Tag("service/ChannelViews")<ChannelViews, ChannelViewsService>() {}

interface View {
  readonly userId: string
  readonly channelIds: ReadonlyArray<string>
  readonly now: number
}

/**
 * One statement at a time per node, up to 100 views (200 memberships): a view arriving while one runs waits for it
 * (a millisecond or two under load) and goes in the next.
 */
const MAX_BATCH = 100
const MAX_IN_FLIGHT = 1
/** Deadlock detected (SQLSTATE 40P01): a writer of several channels' memberships crossed the statement; it is run again. */
const DEADLOCK = "40P01"

const NONE: ReadonlyArray<Viewed> = []

export const make = Effect.gen(function*() {
  const db = yield* Db
  const write = (views: ReadonlyArray<View>) =>
    ChannelMemberRepo.markViewedTogether(views.flatMap((v) => v.channelIds.map((channelId) => ({ userId: v.userId, channelId, now: v.now })))).pipe(
      Effect.provideService(Db, db)
    )
  const together = yield* grouped<View, ReadonlyArray<Viewed>, DbError>({
    maxBatch: MAX_BATCH,
    maxInFlight: MAX_IN_FLIGHT,
    fits: (view, taken) => !taken.some((other) => other.channelIds.some((id) => view.channelIds.includes(id))),
    onBatch: (requests) => {
      groupedCounts.channelViewsStatements++
      groupedCounts.channelViewsRequests += requests
    },
    run: (views) =>
      write(views).pipe(
        Effect.catchIf((e) => sqlStateOf(e.cause) === DEADLOCK, () => write(views)),
        Effect.map((rows) => {
          // One membership per channel in the statement: a channel's row is the view's that named it.
          const byChannel = new Map(rows.map((r) => [r.channel_id, r]))
          return (view: View) => {
            const found: Array<Viewed> = []
            for (const id of view.channelIds) {
              const row = byChannel.get(id)
              if (row !== undefined && row.user_id === view.userId) found.push({ channel_id: id, last_viewed_at: row.last_viewed_at })
            }
            return found.length === 0 ? NONE : found
          }
        })
      )
  })
  return {
    markViewed: (userId, channelIds, now) => channelIds.length === 0 ? Effect.succeed(NONE) : together({ userId, channelIds, now })
  } satisfies ChannelViewsService
})

export const layer = Layer.effect(ChannelViews, make)

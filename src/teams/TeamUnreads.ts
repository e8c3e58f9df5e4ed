import { Context, Effect, Layer } from "effect"
import { Db, type DbError } from "../../layers/Db.ts"
import { grouped } from "../../layers/Grouped.ts"
import { groupedCounts } from "../../layers/Metrics.ts"
import * as TeamMemberRepo from "./TeamMemberRepo.ts"
import type { TeamUnreadRow } from "./TeamWire.ts"

/**
 * Each user's unread totals per live team (GET /users/me/teams/unread, which the apps poll for their badges: a
 * quarter of the load simulation's requests), read for several users at once under load (layers/Grouped.ts).
 * Nothing is kept: every request gets totals read after it arrived.
 */
export interface TeamUnreadsService {
  /** The user's unread totals in each of their live teams, ordered by team. */
  readonly ofUser: (userId: string) => Effect.Effect<ReadonlyArray<TeamUnreadRow>, DbError>
}

export class TeamUnreads extends Context.Tag("service/TeamUnreads")<TeamUnreads, TeamUnreadsService>() {}

/**
 * One statement at a time per node, up to 200 users each: a request arriving while one runs waits for it (a
 * millisecond or two) and goes in the next. At the load simulation's 10,000 users about 200 such requests a second
 * arrive, so most statements carry a few users; 200 users of a handful of teams each are a few hundred small rows.
 */
const MAX_BATCH = 200
const MAX_IN_FLIGHT = 1

const NONE: ReadonlyArray<TeamUnreadRow> = []

export const make = Effect.gen(function*() {
  const db = yield* Db
  const ofUser = yield* grouped<string, ReadonlyArray<TeamUnreadRow>, DbError>({
    maxBatch: MAX_BATCH,
    maxInFlight: MAX_IN_FLIGHT,
    onBatch: (requests) => {
      groupedCounts.teamUnreadsStatements++
      groupedCounts.teamUnreadsRequests += requests
    },
    run: (userIds) =>
      TeamMemberRepo.unreadsOfUsers(userIds).pipe(
        Effect.provideService(Db, db),
        Effect.map((rows) => {
          const byUser = new Map<string, Array<TeamUnreadRow>>()
          for (const { user_id, ...row } of rows) {
            const list = byUser.get(user_id)
            if (list === undefined) byUser.set(user_id, [row])
            else list.push(row)
          }
          return (userId: string) => byUser.get(userId) ?? NONE
        })
      )
  })
  return { ofUser } satisfies TeamUnreadsService
})

export const layer = Layer.effect(TeamUnreads, make)

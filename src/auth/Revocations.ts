import { Clock, Effect, Schedule, Schema, type Scope } from "effect"
import type { SqlError } from "@effect/sql/SqlError"
import type { DbError, DbService } from "../../layers/Db.ts"
import { Int8, rows, StringList } from "../../layers/Rows.ts"

/**
 * This node's view of the session invalidation log (migration 0160): which cached copies of sessions it may still
 * honour. A copy in a cache (Redis, shared by the nodes, or this process's memory) carries the log's head at the
 * moment it was read from the database (its stamp) and that moment; it is honoured only while
 *
 * - this node read the log less than FRESH_FOR_MS ago (a node that cannot reach PostgreSQL cannot know what changed,
 *   and reads the database instead, which then answers 503 rather than a revoked session),
 * - no change of that session (or of every session) has a seq above the stamp: the change came after the read,
 * - it was read less than CACHED_FOR_MS ago (then it is read again: the activity write cannot keep an old copy alive).
 *
 * So a logout, revocation, password change, deactivation or demotion holds on every node within one poll, even when
 * the cache could not be told (a node cut from Redis), and a stale copy written back by a request that raced the
 * change is refused too. The node that makes a change applies it at once, without waiting for its poll.
 */

/** How often each node reads the rows past the last one it saw: one indexed statement, whatever the traffic. */
const POLL_EVERY = "500 millis"
/** Cached sessions are honoured only while the last successful read of the log started at most this long ago. */
export const FRESH_FOR_MS = 5_000
/** A cached copy is honoured this long after it was read from the database; then it is read again. */
export const CACHED_FOR_MS = 10 * 60 * 1000
/** Past any copy read before the change (CACHED_FOR_MS), with room for clocks that differ between nodes. */
const REMEMBER_MS = 2 * CACHED_FOR_MS
const PRUNE_AFTER_MS = 60 * 60 * 1000
const PRUNE_EVERY = "5 minutes"
/** The advisory lock every change takes, so that rows become visible in seq order (a reader seeing N saw all below). */
const LOG_LOCK = 7_316_016_001

/** The log's head in the snapshot of the statement it is part of: a session's stamp. */
export const STAMP = "(SELECT coalesce(max(seq), 0) FROM session_invalidations)"

const LogRows = rows("Revocations log", Schema.Struct({ seq: Int8, session_ids: StringList, every: Schema.Boolean }))
const SeqRows = rows("Revocations seq", Schema.Struct({ seq: Int8 }))

export interface Revocations {
  /** Whether a cached copy of the session, read at `readAt` when the log's head was `stamp`, may be honoured at `now`. */
  readonly honours: (sessionId: string, stamp: number, readAt: number, now: number) => boolean
  /**
   * Runs `change` (statements that delete or alter sessions and answer their ids) in one transaction with its row in
   * the log, and applies it on this node at once. `every`: the change ends every session there was. Answers the ids
   * and the change's seq (0 when it touched nothing).
   */
  /**
   * Sessions another node deleted, as its bus event says: no copy of them is honoured here from now on, without
   * waiting for this node's next read of the log (whose row for the same change then adds nothing). A deleted session
   * never comes back, so its copies are refused whatever their stamp.
   */
  readonly endedElsewhere: (sessionIds: ReadonlyArray<string>, now: number) => void
  readonly record: <E, R>(
    change: Effect.Effect<ReadonlyArray<string>, E | SqlError, R>,
    every?: boolean
  ) => Effect.Effect<{ readonly ids: ReadonlyArray<string>; readonly seq: number }, Exclude<E, SqlError> | DbError, R>
}

export const makeRevocations = (db: DbService): Effect.Effect<Revocations, never, Scope.Scope> =>
  Effect.gen(function*() {
    const sql = db.sql
    const clock = yield* Effect.clock
    let last = 0
    /** When the last successful read of the log started; until the first one, nothing cached is honoured. */
    let polledAt = Number.NEGATIVE_INFINITY
    /** Copies stamped below this are refused: every session there was before it ended. */
    let everyBelow = 0
    const changed = new Map<string, { seq: number; until: number }>()

    const apply = (seq: number, ids: ReadonlyArray<string>, every: boolean, now: number) => {
      if (every) everyBelow = Math.max(everyBelow, seq)
      for (const id of ids) {
        const known = changed.get(id)
        if (known === undefined || known.seq < seq) changed.set(id, { seq, until: now + REMEMBER_MS })
      }
    }

    const poll = Effect.gen(function*() {
      const started = clock.unsafeCurrentTimeMillis()
      // Rows older than any copy still honoured do not matter (a node back from a long cut skips them).
      const found = yield* db.read(sql`/* background */ SELECT seq, session_ids, every FROM session_invalidations
        WHERE seq > ${last} AND at > ${started - REMEMBER_MS} ORDER BY seq`.pipe(LogRows))
      for (const row of found) apply(row.seq, row.session_ids, row.every, started)
      if (found.length > 0) last = found[found.length - 1].seq
      polledAt = started
      for (const [id, entry] of changed) if (entry.until < started) changed.delete(id)
    })
    yield* poll.pipe(Effect.ignore)
    yield* poll.pipe(Effect.ignore, Effect.repeat(Schedule.spaced(POLL_EVERY)), Effect.forkScoped)
    const prune = Effect.flatMap(Clock.currentTimeMillis, (now) =>
      db.execute(sql`/* background */ DELETE FROM session_invalidations WHERE at < ${now - PRUNE_AFTER_MS}`))
    yield* prune.pipe(Effect.ignore, Effect.repeat(Schedule.spaced(PRUNE_EVERY)), Effect.delay(PRUNE_EVERY), Effect.forkScoped)

    return {
      honours: (sessionId, stamp, readAt, now) => {
        if (now - polledAt > FRESH_FOR_MS || now - readAt >= CACHED_FOR_MS || stamp < everyBelow) return false
        const entry = changed.get(sessionId)
        return entry === undefined || entry.seq <= stamp
      },
      endedElsewhere: (sessionIds, now) => apply(Number.MAX_SAFE_INTEGER, sessionIds, false, now),
      record: <E, R>(change: Effect.Effect<ReadonlyArray<string>, E | SqlError, R>, every = false) =>
        Effect.gen(function*() {
          const now = yield* Clock.currentTimeMillis
          const done = yield* db.transaction(Effect.gen(function*() {
            yield* sql`SELECT pg_advisory_xact_lock(${LOG_LOCK})`
            const ids = yield* change
            if (ids.length === 0 && !every) return { ids, seq: 0 }
            const [row] = yield* sql`INSERT INTO session_invalidations (session_ids, every, at)
              VALUES (${every ? [] : ids}::text[], ${every}, ${now}) RETURNING seq`.pipe(SeqRows)
            return { ids, seq: row.seq }
          }))
          if (done.seq > 0) apply(done.seq, every ? [] : done.ids, every, now)
          return done
        })
    }
  })

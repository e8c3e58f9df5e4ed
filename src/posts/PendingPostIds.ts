import { Clock, Effect, Layer, Option, Schedule, Schema } from "effect"
import { Db } from "../../layers/Db.ts"
import { rows } from "../../layers/Rows.ts"

/**
 * POST /posts is idempotent per author and `pending_post_id` (issue 25), as Mattermost's CreatePost deduplicates with
 * its short-lived cache of pending post ids: every app sends one with a post and sends the same again when it
 * retries after a network error. The id is claimed in `post_pending_ids` by the statement (or transaction) that
 * writes the post, so that of two requests racing on any nodes one writes and the other waits for its commit and
 * answers the post it wrote; a claim lasts WINDOW_MS, after which the same id writes a new post. Unlike Mattermost,
 * whose second request answers 500 while the first is still writing, the second request answers the first post.
 */
export const WINDOW_MS = 5 * 60_000
const SWEEP_EVERY = "1 minute"

/**
 * Claims (author, pending id) for `postId` inside the caller's transaction: a row when claimed (new, or the old claim
 * had expired), none when a live claim holds it. Waits for a concurrent claim's transaction to end.
 */
export const claim = (userId: string, pendingPostId: string, postId: string, now: number) =>
  Effect.flatMap(Db, (db) =>
    Effect.map(
      db.sql`
        INSERT INTO post_pending_ids (user_id, pending_post_id, post_id, create_at)
        VALUES (${userId}, ${pendingPostId}, ${postId}, ${now})
        ON CONFLICT (user_id, pending_post_id) DO UPDATE SET post_id = EXCLUDED.post_id, create_at = EXCLUDED.create_at
          WHERE post_pending_ids.create_at < ${now - WINDOW_MS}
        RETURNING post_id`,
      (claimed) => claimed.length > 0
    ))

const Claimed = rows("PendingPostIds post", Schema.Struct({ post_id: Schema.String }))

/** The post a live claim names. */
export const postOf = (userId: string, pendingPostId: string) =>
  Effect.flatMap(Db, (db) =>
    Effect.map(
      db.read(db.sql`
        SELECT post_id FROM post_pending_ids WHERE user_id = ${userId} AND pending_post_id = ${pendingPostId}`.pipe(Claimed)),
      (found) => Option.map(Option.fromNullable(found[0]), (row) => row.post_id)
    ))

/** Deletes expired claims; every node runs it (a DELETE of nothing costs little). */
export const sweep = Effect.gen(function*() {
  const db = yield* Db
  const now = yield* Clock.currentTimeMillis
  yield* db.execute(db.sql`DELETE FROM post_pending_ids WHERE create_at < ${now - WINDOW_MS}`)
})

export const sweepLayer = Layer.scopedDiscard(
  Effect.forkScoped(
    sweep.pipe(
      Effect.catchAllCause((cause) => Effect.logWarning("pending post id sweep failed", cause)),
      Effect.repeat(Schedule.spaced(SWEEP_EVERY))
    )
  )
)

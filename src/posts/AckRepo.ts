import { Effect, Schema } from "effect"
import { Db } from "../../layers/Db.ts"
import { Int8Text, rows } from "../../layers/Rows.ts"
import { Forbidden, NotFound } from "../../schemas/Errors.ts"

/**
 * Post acknowledgements' SQL. Each change moves the post's update_at and keeps its has_acknowledgements (post lists
 * read acknowledgements only where it is set: migrations/0310) in the same transaction. An acknowledgement may only
 * be taken back within five minutes, as Mattermost allows.
 */
const REMOVE_DEADLINE_MS = 5 * 60 * 1000

/** acknowledged_at stays the driver's text: AckRoutes converts it for the wire. */
export const AckRow = Schema.Struct({
  user_id: Schema.String,
  post_id: Schema.String,
  acknowledged_at: Int8Text
})
export type AckRow = typeof AckRow.Type
const Acks = rows("AckRepo acknowledgements", AckRow)

/** Acknowledging again moves acknowledged_at to now (Mattermost's upsert), which restarts the removal window. */
export const acknowledge = (postId: string, userId: string, now: number) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    return yield* db.transaction(Effect.gen(function*() {
      const [saved] = yield* sql`
        INSERT INTO post_acknowledgements (post_id, user_id, acknowledged_at)
        VALUES (${postId}, ${userId}, ${now})
        ON CONFLICT (post_id, user_id) DO UPDATE SET acknowledged_at = EXCLUDED.acknowledged_at
        RETURNING post_id, user_id, acknowledged_at`.pipe(Acks)
      yield* sql`UPDATE posts SET update_at = ${now}, has_acknowledgements = true WHERE id = ${postId}`
      return saved
    }))
  })

/** Removes the acknowledgement made within the last five minutes; returns it. */
export const unacknowledge = (postId: string, userId: string, now: number) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    return yield* db.transaction(Effect.gen(function*() {
      const [existing] = yield* sql`
        SELECT post_id, user_id, acknowledged_at FROM post_acknowledgements
        WHERE post_id = ${postId} AND user_id = ${userId} FOR UPDATE`.pipe(Acks)
      if (existing === undefined) {
        return yield* new NotFound({ id: "app.acknowledgement.get.app_error", message: "Unable to get the acknowledgement." })
      }
      if (now - Number(existing.acknowledged_at) > REMOVE_DEADLINE_MS) {
        return yield* new Forbidden({ id: "api.acknowledgement.delete.deadline.app_error", message: "You cannot remove an acknowledgement after 5 minutes." })
      }
      yield* sql`DELETE FROM post_acknowledgements WHERE post_id = ${postId} AND user_id = ${userId}`
      yield* sql`
        UPDATE posts SET update_at = ${now},
          has_acknowledgements = EXISTS (SELECT 1 FROM post_acknowledgements WHERE post_id = ${postId})
        WHERE id = ${postId}`
      return existing
    }))
  })

import { Effect, Schema } from "effect"
import { Db } from "../../layers/Db.ts"
import { rows } from "../../layers/Rows.ts"
import { ThreadRepo } from "../threads/ThreadRepo.ts"
import { hashtags } from "./MessageText.ts"
import { PostHistoryRepo } from "./PostHistoryRepo.ts"

/**
 * The statements behind editing, deleting and pinning a single post (PostRoutes.ts). Each is one transaction where
 * it writes several rows; the caller publishes the events once it has committed.
 */

const Deleted = rows("PostWriteRepo deletePost", Schema.Struct({ id: Schema.String, root_id: Schema.String }))

export interface PostChanges {
  readonly message?: string
  readonly props?: Record<string, unknown>
  readonly is_pinned?: boolean
}

/** Applies the changes to an undeleted post; a changed message sets edit_at and keeps the previous version. */
export const editPost = (postId: string, changes: PostChanges, now: number) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    const history = yield* PostHistoryRepo
    const message = changes.message
    // The previous version is kept in the same transaction as the edit: the history never misses nor invents one.
    yield* db.transaction(Effect.gen(function*() {
      if (message !== undefined) yield* history.keepPrevious(sql, postId, message, now)
      yield* sql`
      UPDATE posts SET
        update_at = ${now},
        edit_at = ${message === undefined ? sql`edit_at` : sql`CASE WHEN message <> ${message} THEN ${now}::bigint ELSE edit_at END`},
        message = ${message === undefined ? sql`message` : sql`${message}`},
        hashtags = ${message === undefined ? sql`hashtags` : sql`${hashtags(message)}`},
        props = ${changes.props === undefined ? sql`props` : sql`${JSON.stringify(changes.props)}::jsonb`},
        is_pinned = ${changes.is_pinned === undefined ? sql`is_pinned` : sql`${changes.is_pinned}`}
      WHERE id = ${postId} AND delete_at = 0`
    }))
  })

/**
 * Soft-deletes a post and, when it is a root, its replies (as Mattermost does); their files and saved-post
 * preferences go with them, and the thread of a deleted reply is recounted.
 */
export const deletePost = (postId: string, now: number) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    const threads = yield* ThreadRepo
    yield* db.transaction(Effect.gen(function*() {
      const deleted = yield* sql`
        UPDATE posts SET delete_at = ${now}, update_at = ${now}
        WHERE (id = ${postId} OR (root_id = ${postId} AND root_id <> '')) AND delete_at = 0
        RETURNING id, root_id`.pipe(Deleted)
      const ids = deleted.map((d) => d.id)
      const own = deleted.find((d) => d.id === postId)
      if (own !== undefined && own.root_id !== "") {
        yield* threads.recordReplyDeleted(own.root_id, 1)
        yield* sql`UPDATE posts SET update_at = ${now} WHERE id = ${own.root_id}`
      }
      yield* sql`UPDATE threads SET delete_at = ${now} WHERE post_id = ${postId}`
      yield* sql`UPDATE file_infos SET delete_at = ${now}, update_at = ${now} WHERE post_id = ANY(${ids}) AND post_id <> '' AND delete_at = 0`
      yield* sql`DELETE FROM preferences WHERE category = 'flagged_post' AND name = ANY(${ids})`
    }))
  })

/** Pins or unpins a post; edit_at is left alone. */
export const pinPost = (postId: string, pinned: boolean, now: number) =>
  Effect.gen(function*() {
    const db = yield* Db
    yield* db.execute(db.sql`UPDATE posts SET is_pinned = ${pinned}, update_at = ${now} WHERE id = ${postId}`)
  })

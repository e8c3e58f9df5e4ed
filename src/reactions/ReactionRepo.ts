import { Effect, Option, Schema } from "effect"
import { Db } from "../../layers/Db.ts"
import { Int8Text, rows } from "../../layers/Rows.ts"

/**
 * Reactions' SQL. Adding or removing one keeps posts.has_reactions and moves the post's update_at in the same
 * transaction, so clients syncing with `since` see it.
 */

export const ReactionRow = Schema.Struct({
  user_id: Schema.String,
  post_id: Schema.String,
  emoji_name: Schema.String,
  channel_id: Schema.String,
  create_at: Int8Text,
  update_at: Int8Text,
  delete_at: Int8Text
})
export type ReactionRow = typeof ReactionRow.Type
const Reactions = rows("ReactionRepo reactions", ReactionRow)

export interface ReactionKey {
  readonly postId: string
  readonly userId: string
  readonly emojiName: string
}

/** Saves the reaction (reviving a removed one) and marks the post as having reactions. */
export const add = (key: ReactionKey, channelId: string, now: number) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    return yield* db.transaction(Effect.gen(function*() {
      const [saved] = yield* sql`
        INSERT INTO reactions (post_id, user_id, emoji_name, channel_id, create_at, update_at, delete_at)
        VALUES (${key.postId}, ${key.userId}, ${key.emojiName}, ${channelId}, ${now}, ${now}, 0)
        ON CONFLICT (post_id, user_id, emoji_name) DO UPDATE SET
          update_at = EXCLUDED.update_at,
          create_at = CASE WHEN reactions.delete_at > 0 THEN EXCLUDED.create_at ELSE reactions.create_at END,
          delete_at = 0
        RETURNING user_id, post_id, emoji_name, channel_id, create_at, update_at, delete_at`.pipe(Reactions)
      yield* sql`UPDATE posts SET has_reactions = true, update_at = ${now} WHERE id = ${key.postId}`
      return saved
    }))
  })

/** Deletes the reaction; None when there was none. */
export const remove = (key: ReactionKey, now: number) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    const rows = yield* db.transaction(Effect.gen(function*() {
      const rows = yield* sql`
        DELETE FROM reactions WHERE post_id = ${key.postId} AND user_id = ${key.userId} AND emoji_name = ${key.emojiName}
        RETURNING user_id, post_id, emoji_name, channel_id, create_at, update_at, delete_at`.pipe(Reactions)
      if (rows.length > 0) {
        yield* sql`
          UPDATE posts SET update_at = ${now},
            has_reactions = EXISTS (SELECT 1 FROM reactions WHERE post_id = ${key.postId} AND delete_at = 0)
          WHERE id = ${key.postId}`
      }
      return rows
    }))
    return Option.fromNullable(rows[0])
  })

/** The live reactions of the posts, oldest first. */
export const ofPosts = (postIds: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const db = yield* Db
    return yield* db.read(db.sql`
      SELECT user_id, post_id, emoji_name, channel_id, create_at, update_at, delete_at FROM reactions
      WHERE post_id = ANY(${[...postIds]}) AND delete_at = 0 ORDER BY create_at, user_id, emoji_name`.pipe(Reactions))
  })

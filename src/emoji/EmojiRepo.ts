import { Effect, Option, Schema } from "effect"
import { Db } from "../../layers/Db.ts"
import { Int8, rows } from "../../layers/Rows.ts"
import type { EmojiRow } from "./EmojiWire.ts"
import { anyText } from "../../layers/SqlArrays.ts"

/** An emoji row (EmojiWire.ts's EmojiRow, decoded). */
const EmojiRowSchema = Schema.Struct({
  id: Schema.String,
  create_at: Int8,
  update_at: Int8,
  delete_at: Int8,
  creator_id: Schema.String,
  name: Schema.String
})
const Emojis = rows("EmojiRepo emoji", EmojiRowSchema)
const Names = rows("EmojiRepo names", Schema.Struct({ name: Schema.String }))

/**
 * SQL over the emoji table; live emoji only (delete_at = 0), each query served by an index of 0001 or 0040 (and the
 * reactions of a deleted emoji by reactions_emoji_name_idx of 0081).
 */

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`)

export const insert = (row: EmojiRow) =>
  Effect.flatMap(Db, (db) =>
    Effect.map(
      db.execute(db.sql`
        INSERT INTO emoji (id, create_at, update_at, delete_at, creator_id, name)
        VALUES (${row.id}, ${row.create_at}, ${row.update_at}, 0, ${row.creator_id}, ${row.name})
        ON CONFLICT (name) WHERE delete_at = 0 DO NOTHING
        RETURNING *`.pipe(Emojis)),
      (rows) => Option.fromNullable(rows[0])
    ))

export const findById = (id: string) =>
  Effect.flatMap(Db, (db) =>
    Effect.map(db.read(db.sql`SELECT * FROM emoji WHERE id = ${id} AND delete_at = 0`.pipe(Emojis)), (rows) => Option.fromNullable(rows[0])))

export const findByName = (name: string) =>
  Effect.flatMap(Db, (db) =>
    Effect.map(db.read(db.sql`SELECT * FROM emoji WHERE name = ${name} AND delete_at = 0`.pipe(Emojis)), (rows) => Option.fromNullable(rows[0])))

export const findByNames = (names: ReadonlyArray<string>) =>
  Effect.flatMap(Db, (db) =>
    names.length === 0
      ? Effect.succeed([] as ReadonlyArray<EmojiRow>)
      : db.read(db.sql`SELECT * FROM emoji WHERE name = ${anyText(db.sql, names)} AND delete_at = 0 ORDER BY name`.pipe(Emojis)))

export const list = (offset: number, limit: number, byName: boolean) =>
  Effect.flatMap(Db, (db) =>
    db.read(db.sql`
      SELECT * FROM emoji WHERE delete_at = 0
      ORDER BY ${byName ? db.sql`name` : db.sql`create_at, id`}
      LIMIT ${limit} OFFSET ${offset}`.pipe(Emojis)))

/** Names starting with the term (emoji_name_pattern_idx), or containing it; alphabetical. */
export const search = (term: string, prefixOnly: boolean, limit: number) =>
  Effect.flatMap(Db, (db) => {
    const pattern = prefixOnly ? `${escapeLike(term)}%` : `%${escapeLike(term)}%`
    return db.read(db.sql`
      SELECT * FROM emoji WHERE name LIKE ${pattern} AND delete_at = 0
      ORDER BY name LIMIT ${limit}`.pipe(Emojis))
  })

/** A reaction removed with its emoji (bigint columns arrive as strings). */
export const RemovedReactionRow = Schema.Struct({
  user_id: Schema.String,
  post_id: Schema.String,
  emoji_name: Schema.String,
  channel_id: Schema.String,
  create_at: Int8,
  update_at: Int8
})
export type RemovedReactionRow = typeof RemovedReactionRow.Type
const RemovedReactions = rows("EmojiRepo removed reactions", RemovedReactionRow)

/**
 * Soft-deletes the emoji and, in the same transaction, removes every reaction that uses its name (as Mattermost
 * does), keeping has_reactions and update_at of the touched posts right. None when the emoji was already gone.
 */
export const softDelete = (id: string, now: number) =>
  Effect.flatMap(Db, (db) => {
    const sql = db.sql
    return db.transaction(Effect.gen(function*() {
      const [emoji] = yield* sql`
        UPDATE emoji SET delete_at = ${now}, update_at = ${now} WHERE id = ${id} AND delete_at = 0 RETURNING name`.pipe(Names)
      if (emoji === undefined) return Option.none<ReadonlyArray<RemovedReactionRow>>()
      const removed = yield* sql`
        DELETE FROM reactions WHERE emoji_name = ${emoji.name} AND delete_at = 0
        RETURNING user_id, post_id, emoji_name, channel_id, create_at, update_at`.pipe(RemovedReactions)
      const postIds = [...new Set(removed.map((r) => r.post_id))]
      if (postIds.length > 0) {
        yield* sql`
          UPDATE posts p SET update_at = ${now},
            has_reactions = EXISTS (SELECT 1 FROM reactions r WHERE r.post_id = p.id AND r.delete_at = 0)
          WHERE p.id = ANY(${postIds})`
      }
      return Option.some<ReadonlyArray<RemovedReactionRow>>(removed)
    }))
  })

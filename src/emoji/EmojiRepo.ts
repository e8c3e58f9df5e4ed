import { Effect, Option } from "effect"
import { Db } from "../../layers/Db.ts"
import type { EmojiRow } from "./EmojiWire.ts"

/**
 * SQL over the emoji table; live emoji only (delete_at = 0), each query served by an index of 0001 or 0040 (and the
 * reactions of a deleted emoji by reactions_emoji_name_idx of 0081).
 */

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`)

export const insert = (row: EmojiRow) =>
  Effect.flatMap(Db, (db) =>
    Effect.map(
      db.execute(db.sql<EmojiRow>`
        INSERT INTO emoji (id, create_at, update_at, delete_at, creator_id, name)
        VALUES (${row.id}, ${row.create_at}, ${row.update_at}, 0, ${row.creator_id}, ${row.name})
        ON CONFLICT (name) WHERE delete_at = 0 DO NOTHING
        RETURNING *`),
      (rows) => Option.fromNullable(rows[0])
    ))

export const findById = (id: string) =>
  Effect.flatMap(Db, (db) =>
    Effect.map(db.read(db.sql<EmojiRow>`SELECT * FROM emoji WHERE id = ${id} AND delete_at = 0`), (rows) => Option.fromNullable(rows[0])))

export const findByName = (name: string) =>
  Effect.flatMap(Db, (db) =>
    Effect.map(db.read(db.sql<EmojiRow>`SELECT * FROM emoji WHERE name = ${name} AND delete_at = 0`), (rows) => Option.fromNullable(rows[0])))

export const findByNames = (names: ReadonlyArray<string>) =>
  Effect.flatMap(Db, (db) =>
    names.length === 0
      ? Effect.succeed([] as ReadonlyArray<EmojiRow>)
      : db.read(db.sql<EmojiRow>`SELECT * FROM emoji WHERE name IN ${db.sql.in(names)} AND delete_at = 0 ORDER BY name`))

export const list = (offset: number, limit: number, byName: boolean) =>
  Effect.flatMap(Db, (db) =>
    db.read(db.sql<EmojiRow>`
      SELECT * FROM emoji WHERE delete_at = 0
      ORDER BY ${byName ? db.sql`name` : db.sql`create_at, id`}
      LIMIT ${limit} OFFSET ${offset}`))

/** Names starting with the term (emoji_name_pattern_idx), or containing it; alphabetical. */
export const search = (term: string, prefixOnly: boolean, limit: number) =>
  Effect.flatMap(Db, (db) => {
    const pattern = prefixOnly ? `${escapeLike(term)}%` : `%${escapeLike(term)}%`
    return db.read(db.sql<EmojiRow>`
      SELECT * FROM emoji WHERE name LIKE ${pattern} AND delete_at = 0
      ORDER BY name LIMIT ${limit}`)
  })

/** A reaction removed with its emoji (bigint columns arrive as strings). */
export interface RemovedReactionRow {
  readonly user_id: string
  readonly post_id: string
  readonly emoji_name: string
  readonly channel_id: string
  readonly create_at: string | number
  readonly update_at: string | number
}

/**
 * Soft-deletes the emoji and, in the same transaction, removes every reaction that uses its name (as Mattermost
 * does), keeping has_reactions and update_at of the touched posts right. None when the emoji was already gone.
 */
export const softDelete = (id: string, now: number) =>
  Effect.flatMap(Db, (db) => {
    const sql = db.sql
    return db.transaction(Effect.gen(function*() {
      const [emoji] = yield* sql<{ name: string }>`
        UPDATE emoji SET delete_at = ${now}, update_at = ${now} WHERE id = ${id} AND delete_at = 0 RETURNING name`
      if (emoji === undefined) return Option.none<ReadonlyArray<RemovedReactionRow>>()
      const removed = yield* sql<RemovedReactionRow>`
        DELETE FROM reactions WHERE emoji_name = ${emoji.name} AND delete_at = 0
        RETURNING user_id, post_id, emoji_name, channel_id, create_at, update_at`
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

import { Effect, Option } from "effect"
import { Db } from "../../layers/Db.ts"
import type { EmojiRow } from "./EmojiWire.ts"

/** SQL over the emoji table; live emoji only (delete_at = 0), each query served by an index of 0001 or 0040. */

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

export const softDelete = (id: string, now: number) =>
  Effect.flatMap(Db, (db) =>
    Effect.map(
      db.execute(db.sql<{ id: string }>`
        UPDATE emoji SET delete_at = ${now}, update_at = ${now} WHERE id = ${id} AND delete_at = 0 RETURNING id`),
      (rows) => rows.length > 0
    ))

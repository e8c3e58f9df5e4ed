import { Clock, Effect, Schema } from "effect"
import { Db, type DbError } from "../../layers/Db.ts"
import { JsonObject, rows } from "../../layers/Rows.ts"

/** The section as stored: an object, of the shape its writer gave it. */
const Sections = rows("StoredOnce section", Schema.Struct({ value: JsonObject }))

/**
 * A server_config section written once and then only read: the first node to start inserts its candidate, every
 * other node (racing or later) keeps the stored one, so all nodes agree without a lock.
 */
export const storeOnce = <A extends object>(section: string, candidate: Effect.Effect<A>): Effect.Effect<A, DbError, Db> =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    const existing = yield* db.read(sql`SELECT value FROM server_config WHERE section = ${section}`.pipe(Sections))
    if (existing.length > 0) return existing[0].value as A
    const value = yield* candidate
    const now = yield* Clock.currentTimeMillis
    yield* db.execute(sql`
      INSERT INTO server_config (section, value, update_at)
      VALUES (${section}, ${JSON.stringify(value)}::jsonb, ${now})
      ON CONFLICT (section) DO NOTHING`)
    const stored = yield* db.read(sql`SELECT value FROM server_config WHERE section = ${section}`.pipe(Sections))
    return stored[0].value as A
  })

/**
 * Replaces a section that still holds `previous` (compare-and-swap on the stored value), so that when several
 * nodes find the same unusable value exactly one replacement wins and all read it back.
 */
export const replaceOnce = <A extends object>(section: string, previous: A, candidate: Effect.Effect<A>): Effect.Effect<A, DbError, Db> =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    const value = yield* candidate
    const now = yield* Clock.currentTimeMillis
    yield* db.execute(sql`
      UPDATE server_config SET value = ${JSON.stringify(value)}::jsonb, update_at = ${now}
      WHERE section = ${section} AND value = ${JSON.stringify(previous)}::jsonb`)
    const stored = yield* db.read(sql`SELECT value FROM server_config WHERE section = ${section}`.pipe(Sections))
    return stored[0].value as A
  })

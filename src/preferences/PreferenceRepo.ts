import { Context, Effect, Layer, Schema } from "effect"
import { Db, type DbError } from "../../layers/Db.ts"
import { rows } from "../../layers/Rows.ts"
import type { Preference } from "../../schemas/wire/Preference.ts"

/** A user's preferences: the PreferenceType of @mattermost/types (schemas/wire/Preference.ts). */
export type { Preference }

const Preferences = rows("PreferenceRepo list", Schema.Struct({
  user_id: Schema.String,
  category: Schema.String,
  name: Schema.String,
  value: Schema.String
}))

export interface PreferenceRepoService {
  readonly list: (userId: string, category?: string, name?: string) => Effect.Effect<ReadonlyArray<Preference>, DbError>
  /** Inserts or replaces every preference in one transaction. */
  readonly upsert: (preferences: ReadonlyArray<Preference>) => Effect.Effect<void, DbError>
  /** Removes the named preferences of one user in one statement. */
  readonly remove: (userId: string, keys: ReadonlyArray<Pick<Preference, "category" | "name">>) => Effect.Effect<void, DbError>
}

export class PreferenceRepo extends Context.Tag("service/PreferenceRepo")<PreferenceRepo, PreferenceRepoService>() {}

export const make = Effect.gen(function*() {
  const db = yield* Db
  const sql = db.sql
  const service: PreferenceRepoService = {
    list: (userId, category, name) =>
      db.read(sql`
        SELECT user_id, category, name, value FROM preferences
        WHERE user_id = ${userId}
        ${category !== undefined ? sql`AND category = ${category}` : sql``}
        ${name !== undefined ? sql`AND name = ${name}` : sql``}
        ORDER BY category, name`.pipe(Preferences)),
    upsert: (preferences) =>
      preferences.length === 0 ? Effect.void : db.transaction(Effect.asVoid(sql`
        INSERT INTO preferences ${sql.insert(preferences.map((p) => ({ user_id: p.user_id, category: p.category, name: p.name, value: p.value })))}
        ON CONFLICT (user_id, category, name) DO UPDATE SET value = EXCLUDED.value`)),
    remove: (userId, keys) =>
      keys.length === 0 ? Effect.void : Effect.asVoid(db.execute(sql`
        DELETE FROM preferences WHERE user_id = ${userId}
        AND ${sql.or(keys.map((k) => sql`(category = ${k.category} AND name = ${k.name})`))}`))
  }
  return service
})

export const layer = Layer.effect(PreferenceRepo, make)

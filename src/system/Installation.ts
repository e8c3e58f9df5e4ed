import { Clock, Context, Effect, Layer, Schema } from "effect"
import { Db } from "../../layers/Db.ts"
import { rows } from "../../layers/Rows.ts"
import { storeOnce } from "./StoredOnce.ts"

/**
 * When this installation began and which schema it runs, for client config's InstallationDate and SchemaVersion
 * (Mattermost's ClientConfigWithComputed). The web app compares InstallationDate with 16 June 2018 to decide whether
 * an administrator predates APIv4 ("Notice from Mattermost"), so it must be a real, fixed time: stored once, as the
 * diagnostic id is, and taken from the first migration's time on a database that was installed before it was stored.
 */
export interface InstallationInfo {
  /** Milliseconds since the epoch. */
  readonly installedAt: number
  /** The highest migration applied: this service's database schema version. */
  readonly schemaVersion: number
}

export class Installation extends Context.Tag("service/Installation")<Installation, InstallationInfo>() {}

export const SECTION = "installation"

const Migrations = rows("Installation migrations", Schema.Struct({ first_at: Schema.NullOr(Schema.Number), version: Schema.NullOr(Schema.Number) }))

// The migrator's own table (@effect/sql Migrator): one row per applied migration, with the time it was applied.
const migrations = Effect.flatMap(Db, (db) =>
  Effect.map(
    db.read(db.sql`
      SELECT (extract(epoch FROM min(created_at)) * 1000)::float8 AS first_at, max(migration_id)::float8 AS version
      FROM effect_sql_migrations`.pipe(Migrations)),
    (found) => found[0] ?? { first_at: null, version: null }
  ))

export const layer = Layer.effect(
  Installation,
  Effect.gen(function*() {
    const applied = yield* migrations
    const candidate = Effect.map(Clock.currentTimeMillis, (now) => ({ installed_at: Math.floor(applied.first_at ?? now) }))
    const stored = yield* storeOnce(SECTION, candidate)
    return { installedAt: stored.installed_at, schemaVersion: applied.version ?? 0 }
  })
)

const Applied = rows("Installation applied migrations", Schema.Struct({ version: Schema.Number, name: Schema.String }))

/** GET /system/schema/version: every migration applied to the database, oldest first. */
export const appliedMigrations = Effect.flatMap(Db, (db) =>
  db.read(db.sql`SELECT migration_id::float8 AS version, name FROM effect_sql_migrations ORDER BY migration_id`.pipe(Applied)))

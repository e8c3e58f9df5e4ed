import { Migrator, SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { readdir, readFile } from "node:fs/promises"
import { MIGRATIONS_DIR } from "../src/Resources.ts"

/** Where the plain SQL migrations live, whatever the working directory. */
export const migrationsDir = MIGRATIONS_DIR

/**
 * Loads `NNNN_name.sql` files: the stock loaders only import JS modules. Multi-statement files work because pg uses
 * the simple query protocol when a statement has no parameters.
 */
export const fromSqlFiles = (dir: string = migrationsDir): Migrator.Loader =>
  Effect.tryPromise({
    try: async () => {
      const files = (await readdir(dir)).filter((f) => /^\d+_[\w-]+\.sql$/.test(f)).sort()
      return files.map((file) => {
        const [, id, name] = file.match(/^(\d+)_([\w-]+)\.sql$/)!
        const load = Effect.flatMap(
          Effect.promise(() => readFile(`${dir}/${file}`, "utf8")),
          // The pool's statement_timeout is for requests; an index build on a large table may take longer.
          (text) => Effect.map(SqlClient.SqlClient, (sql) => sql.unsafe(`SET LOCAL statement_timeout = 0;\n${text}`))
        )
        return [Number(id), name, load] as const
      })
    },
    catch: (cause) => new Migrator.MigrationError({ reason: "import-error", message: `cannot read ${dir}`, cause })
  })

/**
 * Refreshes the planner's statistics of every table. New indexes (and expression indexes above all) are planned from
 * these; left to autovacuum, the first queries after an upgrade may be planned on stale or missing numbers, and with
 * autovacuum off they would never be refreshed. ANALYZE samples a fixed number of rows per table, so this takes
 * seconds at most whatever the data size; the server's statement timeout is lifted for it as for migrations.
 */
export const analyze = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.withTransaction(sql.unsafe("SET LOCAL statement_timeout = 0;\nANALYZE")))

/**
 * Applies pending migrations in one transaction (the migrator locks its table, so nodes may start together), then
 * ANALYZE when any was applied.
 */
export const run = Migrator.make({})({ loader: fromSqlFiles() }).pipe(
  Effect.tap((applied) =>
    applied.length === 0
      ? Effect.logInfo("database schema is up to date")
      : Effect.logInfo("migrations applied").pipe(
        Effect.annotateLogs({ migrations: applied.map(([id, name]) => `${id}_${name}`) }),
        Effect.zipRight(analyze),
        Effect.zipRight(Effect.logInfo("planner statistics refreshed (ANALYZE)"))
      )
  )
)

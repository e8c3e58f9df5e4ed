import { describe, expect, layer } from "@effect/vitest"
import { Cause, Effect, Exit, Layer, Redacted, Schema, Tracer } from "effect"
import { Db, DbError, layerPool } from "../../layers/Db.ts"
import { Int8, rows } from "../../layers/Rows.ts"
import * as Migrations from "../../layers/Migrations.ts"
import { createTestDatabase } from "../support/Databases.ts"

/** A pool on a fresh, empty database of the machine's PostgreSQL (or the embedded one the global setup started). */
const FreshDb = Layer.unwrapEffect(
  Effect.map(Effect.promise(createTestDatabase), (url) =>
    layerPool({ url: Redacted.make(url), maxConnections: 3, minConnections: 0 }))
)

const count = (table: string) =>
  Effect.flatMap(Db, (db) => db.read(db.sql<{ n: number }>`SELECT count(*)::int AS n FROM ${db.sql(table)}`)).pipe(
    Effect.map((rows) => rows[0].n)
  )

describe("Db on PostgreSQL", () => {
  layer(FreshDb, { excludeTestServices: true })((it) => {
    it.effect("applies every migration to a fresh database once", () =>
      Effect.gen(function*() {
        const applied = yield* Migrations.run
        expect(applied.map(([id]) => id)).toContain(1)
        const db = yield* Db
        const tables = yield* db.read(db.sql<{ table_name: string }>`
          SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`)
        const names = tables.map((t) => t.table_name)
        for (const t of ["users", "sessions", "teams", "channels", "posts", "reactions", "server_config", "sso_providers"]) {
          expect(names).toContain(t)
        }
        // Planner statistics come from the migrator's ANALYZE, not from autovacuum (which may be off).
        const analyzed = yield* db.read(db.sql<{ relname: string }>`
          SELECT relname FROM pg_stat_user_tables WHERE last_analyze IS NOT NULL`)
        expect(analyzed.map((t) => t.relname)).toEqual(expect.arrayContaining(["posts", "users", "channel_members"]))
        expect(yield* Migrations.run).toEqual([])
      }))

    it.effect("executes writes and reads them back", () =>
      Effect.gen(function*() {
        const db = yield* Db
        yield* db.execute(db.sql`CREATE TABLE scratch (id text PRIMARY KEY, n int NOT NULL)`)
        yield* db.execute(db.sql`INSERT INTO scratch ${db.sql.insert([{ id: "a", n: 1 }, { id: "b", n: 2 }])}`)
        const rows = yield* db.read(db.sql<{ id: string; n: number }>`SELECT id, n FROM scratch ORDER BY id`)
        expect(rows).toEqual([{ id: "a", n: 1 }, { id: "b", n: 2 }])
        yield* db.ping
        const saturation = yield* db.saturation
        expect(saturation).toBeGreaterThanOrEqual(0)
        expect(saturation).toBeLessThanOrEqual(1)
      }))

    it.effect("a transaction that fails leaves nothing written", () =>
      Effect.gen(function*() {
        const db = yield* Db
        const before = yield* count("scratch")
        const failed = yield* Effect.flip(db.transaction(Effect.gen(function*() {
          yield* db.sql`INSERT INTO scratch (id, n) VALUES ('c', 3)`
          yield* db.execute(db.sql`INSERT INTO scratch (id, n) VALUES ('d', 4)`)
          return yield* Effect.fail("abort" as const)
        })))
        expect(failed).toBe("abort")
        expect(yield* count("scratch")).toBe(before)

        const broken = yield* Effect.flip(db.transaction(Effect.gen(function*() {
          yield* db.sql`INSERT INTO scratch (id, n) VALUES ('e', 5)`
          yield* db.sql`INSERT INTO scratch (id, n) VALUES ('a', 6)`
        })))
        expect(broken).toBeInstanceOf(DbError)
        expect(yield* count("scratch")).toBe(before)

        yield* db.transaction(db.sql`INSERT INTO scratch (id, n) VALUES ('f', 7)`)
        expect(yield* count("scratch")).toBe(before + 1)
      }))

    it.effect("runs a statement decoded with rows(...) on the direct pool path outside a transaction, through @effect/sql inside one", () =>
      Effect.gen(function*() {
        const db = yield* Db
        // @effect/sql runs a statement in a span named sql.execute; the direct path (layers/Db.ts) opens none.
        const names: Array<string> = []
        const base = yield* Effect.tracer
        const recording = Tracer.make({
          span: (...args) => {
            names.push(args[0])
            return base.span(...args)
          },
          context: base.context
        })
        const Answer = rows("Db test", Schema.Struct({ n: Int8 }))
        expect(yield* db.read(db.sql`SELECT 41::int8 + 1 AS n`.pipe(Answer)).pipe(Effect.withTracer(recording))).toEqual([{ n: 42 }])
        expect(names).not.toContain("sql.execute")
        expect(yield* db.transaction(db.sql`SELECT 7::int8 AS n`.pipe(Answer)).pipe(Effect.withTracer(recording))).toEqual([{ n: 7 }])
        expect(names).toContain("sql.execute")
        // A row that does not match its Schema is still a defect on the direct path.
        const mismatch = yield* db.read(db.sql`SELECT true AS n`.pipe(Answer)).pipe(Effect.exit)
        expect(Exit.isFailure(mismatch) && Cause.isDie(mismatch.cause)).toBe(true)
      }))

    it.effect("turns SQL failures into DbError", () =>
      Effect.gen(function*() {
        const db = yield* Db
        const error = yield* Effect.flip(db.execute(db.sql`SELECT * FROM no_such_table`))
        expect(error).toBeInstanceOf(DbError)
        expect(error.message).toContain("no_such_table")
      }))
  })
})

/** Whether the statement that asks ran as a named prepared statement of its own session. */
const ranPrepared = Effect.flatMap(Db, (db) =>
  db.read(db.sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement LIKE ${"%pg_prepared_statements%"}`)
).pipe(Effect.map((rows) => rows[0].n > 0))

const poolWith = (preparedStatements: boolean) =>
  Layer.unwrapEffect(
    Effect.map(Effect.promise(createTestDatabase), (url) =>
      layerPool({ url: Redacted.make(url), maxConnections: 1, minConnections: 0, preparedStatements }))
  )

describe("prepared statements", () => {
  layer(poolWith(true), { excludeTestServices: true })((it) => {
    it.effect("runs statements with parameters as named prepared statements, and again from the same preparation", () =>
      Effect.gen(function*() {
        expect(yield* ranPrepared).toBe(true)
        expect(yield* ranPrepared).toBe(true)
        const db = yield* Db
        const [{ n }] = yield* db.read(db.sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_prepared_statements`)
        // One connection, one text with parameters asked twice: prepared once (this one has none, so it is not).
        expect(n).toBe(1)
      }))
  })
  layer(poolWith(false), { excludeTestServices: true })((it) => {
    it.effect("runs them unnamed with SERVICE_DB_PREPARED_STATEMENTS=false", () =>
      Effect.gen(function*() {
        expect(yield* ranPrepared).toBe(false)
      }))
  })
})

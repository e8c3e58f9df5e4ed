import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import pg from "pg"
import { Db, DbError, layerPool } from "../../layers/Db.ts"
import { isConnectionFailure, isRejectedInput, sqlStateOf, TooManyBindParameters } from "../../layers/DbFailures.ts"
import { CircuitOpenError } from "../../layers/Resilience.ts"
import { createTestDatabase } from "../support/Databases.ts"

/**
 * Issue 25: the database breaker opens for an unreachable PostgreSQL, never for a statement PostgreSQL refused. The
 * errors are the real ones: node-postgres against the machine's PostgreSQL, and a pool on a port nobody listens on.
 */
const ids = (n: number) => Array.from({ length: n }, (_, i) => `a${i}`)

const errorOf = async (url: string, run: (client: pg.Client) => Promise<unknown>) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await run(client)
  } catch (e) {
    return e
  } finally {
    await client.end().catch(() => undefined)
  }
  throw new Error("expected the statement to fail")
}

describe("what counts as PostgreSQL being unavailable", () => {
  it("statements PostgreSQL refuses are the request's own failure", async () => {
    const url = await createTestDatabase()
    // node-postgres writes a parameter count past 65,535 modulo 65,536: PostgreSQL answers a protocol violation.
    const params = ids(70_000)
    const protocol = await errorOf(url, (c) => c.query(`SELECT 1 WHERE 'x' IN (${params.map((_, i) => `$${i + 1}`).join(",")})`, params))
    expect(sqlStateOf(protocol)).toBe("08P01")
    // A left-deep chain of operators, as 5,000 search words joined by && once were: PostgreSQL runs out of stack.
    const deep = await errorOf(url, (c) => c.query(`SELECT ${Array.from({ length: 100_000 }, () => "1").join(" + ")}`))
    expect(sqlStateOf(deep)).toBe("54001")
    const cancelled = await errorOf(url, async (c) => {
      await c.query("SET statement_timeout = 50")
      await c.query("SELECT pg_sleep(2)")
    })
    expect(sqlStateOf(cancelled)).toBe("57014")
    const outOfRange = await errorOf(url, (c) => c.query("SELECT $1::int4", [2 ** 31]))
    const syntax = await errorOf(url, (c) => c.query("SELEC 1"))
    for (const error of [protocol, deep, cancelled, outOfRange, syntax, new TooManyBindParameters(70_000)]) {
      expect(isConnectionFailure(error), String(error)).toBe(false)
    }
    for (const error of [protocol, deep, outOfRange, new TooManyBindParameters(70_000)]) expect(isRejectedInput(error), String(error)).toBe(true)
    expect(isRejectedInput(syntax)).toBe(false)
  })

  it("a connection PostgreSQL ends, or one that cannot be made, is unavailability", async () => {
    const url = await createTestDatabase()
    const terminated = await errorOf(url, (c) => c.query("SELECT pg_terminate_backend(pg_backend_pid())"))
    expect(isConnectionFailure(terminated), String(terminated)).toBe(true)
    const refused = await new pg.Client({ connectionString: "postgres://postgres@127.0.0.1:1/none" }).connect().then(() => undefined, (e) => e)
    expect(isConnectionFailure(refused), String(refused)).toBe(true)
  })

  it.live("rejected statements never open the pool's breaker; refused connections do", () =>
    Effect.gen(function*() {
      const url = yield* Effect.promise(createTestDatabase)
      const live = Layer.fresh(layerPool({ url: Redacted.make(url), maxConnections: 2, minConnections: 0 }))
      yield* Effect.gen(function*() {
        const db = yield* Db
        for (let i = 0; i < 4; i++) {
          const failures = yield* Effect.all([
            Effect.flip(db.read(db.sql`SELECT 1 AS n WHERE ${"x"} IN ${db.sql.in(ids(70_000))}`)),
            Effect.flip(db.read(db.sql`SELECT ${2 ** 31}::int4 AS n`)),
            Effect.flip(db.execute(db.sql.unsafe(`SELECT ${Array.from({ length: 100_000 }, () => "1").join(" + ")}`)))
          ])
          for (const f of failures) expect(f.cause).not.toBeInstanceOf(CircuitOpenError)
        }
        expect(yield* db.read(db.sql<{ n: number }>`SELECT 1 AS n`)).toEqual([{ n: 1 }])
      }).pipe(Effect.provide(live))

      const dead = Layer.fresh(layerPool({ url: Redacted.make("postgres://postgres@127.0.0.1:1/none"), maxConnections: 2, minConnections: 0 }))
      yield* Effect.gen(function*() {
        const db = yield* Db
        const errors: Array<DbError> = []
        for (let i = 0; i < 4; i++) errors.push(yield* Effect.flip(db.read(db.sql`SELECT 1`)))
        expect(errors.some((e) => e.cause instanceof CircuitOpenError)).toBe(true)
      }).pipe(Effect.provide(dead))
    }), 60_000)
})

import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Db } from "../../layers/Db.ts"
import { toApiError } from "../../src/http/ErrorResponse.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * The backstop behind the decode boundary: a value PostgreSQL refuses as data (SQLSTATE class 22) is the request's
 * fault and answers 400, never the 503 "store unavailable" of an outage (which tells clients to retry and trips
 * alerts). The errors come from the server's own database layer against the real PostgreSQL.
 */
let server: TestServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(async () => {
  await server?.close()
})

const failureOf = (statement: (db: Effect.Effect.Success<typeof Db>) => Effect.Effect<unknown, unknown>) =>
  server.runtime.runPromise(Effect.flatMap(Db, (db) => Effect.flip(statement(db))))

describe("data errors from PostgreSQL", () => {
  it("map to 400 with the Mattermost error id, not 503", async () => {
    const outOfRange = await failureOf((db) => db.execute(db.sql`SELECT ${2 ** 31}::int4 AS n`)) // 22003
    const badDate = await failureOf((db) => db.execute(db.sql`SELECT ${"2026-13-45"}::date AS d`)) // 22008
    for (const error of [outOfRange, badDate]) {
      const api = toApiError(error)
      expect(api.status).toBe(400)
      expect(api.id).toBe("api.context.invalid_param.app_error")
    }
  })

  it("leave other database failures a 503", async () => {
    const missing = await failureOf((db) => db.execute(db.sql`SELECT * FROM no_such_table_here`)) // 42P01
    expect(toApiError(missing).status).toBe(503)
  })
})

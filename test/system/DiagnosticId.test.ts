import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as DbLayer from "../../layers/Db.ts"
import * as DiagnosticId from "../../src/system/DiagnosticId.ts"

/**
 * A service unit-tested on the Db stub (layers/Db.ts, makeStub): no PostgreSQL, the statements it runs answered
 * from memory. DiagnosticId must be the same on every node, so a node keeps whatever is stored.
 */
const isRead = (sql: string) => sql.startsWith("SELECT value FROM server_config")
const isInsert = (sql: string) => sql.trimStart().startsWith("INSERT INTO server_config")

const idOf = (stub: DbLayer.DbStub) =>
  Effect.map(DiagnosticId.DiagnosticId, (id) => id.value).pipe(Effect.provide(DiagnosticId.layer.pipe(Layer.provide(stub.layer))))

describe("DiagnosticId on the Db stub", () => {
  it.effect("keeps the stored identifier and writes nothing", () =>
    Effect.gen(function*() {
      const stub = yield* DbLayer.makeStub(({ sql }) => isRead(sql) ? [{ value: { diagnostic_id: "storedstoredstoredstored12" } }] : [])
      expect(yield* idOf(stub)).toBe("storedstoredstoredstored12")
      expect(stub.statements.map((s) => s.params)).toEqual([[DiagnosticId.SECTION]])
      expect(stub.statements.some((s) => isInsert(s.sql))).toBe(false)
    }))

  it.effect("offers its own candidate when none is stored, and takes the one that won a race", () =>
    Effect.gen(function*() {
      let reads = 0
      // The first read finds nothing; another node's insert lands first, so ours does nothing and the read back finds theirs.
      const stub = yield* DbLayer.makeStub(({ sql }) => isRead(sql) && reads++ > 0 ? [{ value: { diagnostic_id: "othernodeothernodeothern12" } }] : [])
      expect(yield* idOf(stub)).toBe("othernodeothernodeothern12")
      const insert = stub.statements.find((s) => isInsert(s.sql))
      expect(insert?.sql).toContain("ON CONFLICT (section) DO NOTHING")
      expect(insert?.params[0]).toBe(DiagnosticId.SECTION)
      expect(JSON.parse(String(insert?.params[1]))).toEqual({ diagnostic_id: expect.stringMatching(/^[a-z0-9]{26}$/) })
    }))

  it.effect("fails with DbError when the database does", () =>
    Effect.gen(function*() {
      const stub = yield* DbLayer.makeStub(() => {
        throw new Error("connection refused")
      })
      const error = yield* Effect.flip(idOf(stub))
      expect(error._tag).toBe("DbError")
    }))
})

import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as DbLayer from "../../layers/Db.ts"

describe("Db stub", () => {
  it.effect("compiles statements as for PostgreSQL and answers them from the handler", () =>
    Effect.gen(function*() {
      const stub = yield* DbLayer.makeStub(({ params }) => [{ id: params[0], n: 1 }])
      const db = stub.service
      const rows = yield* db.read(db.sql<{ id: string; n: number }>`SELECT id, 1 AS n FROM users WHERE id = ${"u1"} AND delete_at = ${0}`)
      expect(rows).toEqual([{ id: "u1", n: 1 }])
      expect(stub.statements).toEqual([{ sql: "SELECT id, 1 AS n FROM users WHERE id = $1 AND delete_at = $2", params: ["u1", 0] }])
    }))

  it.effect("runs a transaction between BEGIN and COMMIT, and rolls back on failure", () =>
    Effect.gen(function*() {
      const stub = yield* DbLayer.makeStub(() => [])
      const db = stub.service
      yield* db.transaction(db.sql`DELETE FROM drafts WHERE user_id = ${"u1"}`)
      const failed = yield* Effect.flip(db.transaction(Effect.zipRight(db.sql`DELETE FROM drafts`, Effect.fail("refused" as const))))
      expect(failed).toBe("refused")
      expect(stub.statements.map((s) => s.sql)).toEqual([
        "BEGIN",
        "DELETE FROM drafts WHERE user_id = $1",
        "COMMIT",
        "BEGIN",
        "DELETE FROM drafts",
        "ROLLBACK"
      ])
    }))
})

import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Cache } from "../../layers/Cache.ts"
import { Db } from "../../layers/Db.ts"
import { newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * Session activity is written in batches, at most once per 5 minutes per session, rather than by each request; a
 * request on a session whose activity is older than that gets it written shortly after.
 */
let server: TestServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(async () => {
  await server?.close()
})

const sql = <A>(run: (db: Effect.Effect.Success<typeof Db>) => Effect.Effect<A, unknown>) =>
  server.runtime.runPromise(Effect.flatMap(Db, run)) as Promise<A>

const activityOf = async (sessionId: string) =>
  Number((await sql((db) => db.read(db.sql<{ at: string }>`SELECT last_activity_at AS at FROM sessions WHERE id = ${sessionId}`)))[0].at)

describe("session activity", () => {
  it("is written for a session last active more than 5 minutes ago, and not again on the next requests", async () => {
    const member = await newUser(server.url, "active")
    const [session] = await member.client.getSessions(member.user.id)
    // As if the session had been idle for a long time: the stored activity and the cached copy both old.
    await sql((db) => db.execute(db.sql`UPDATE sessions SET last_activity_at = 1 WHERE id = ${session.id}`))
    await server.runtime.runPromise(Effect.flatMap(Cache, (cache) => cache.del(`session:${session.id}`)))
    const before = Date.now()
    await member.client.getMe()
    let at = await activityOf(session.id)
    for (let i = 0; i < 100 && at === 1; i++) {
      await new Promise((r) => setTimeout(r, 50))
      at = await activityOf(session.id)
    }
    expect(at).toBeGreaterThanOrEqual(before)
    // Within the interval, further requests leave it as it is: past one flush, nothing was written. The flush is
    // seen through another session made due after those requests: a flush writes everything due so far in one
    // statement, so once that session's activity is written, any write of the first one would have been too.
    const witness = await newUser(server.url, "witness")
    const [witnessSession] = await witness.client.getSessions(witness.user.id)
    await sql((db) => db.execute(db.sql`UPDATE sessions SET last_activity_at = 1 WHERE id = ${witnessSession.id}`))
    await server.runtime.runPromise(Effect.flatMap(Cache, (cache) => cache.del(`session:${witnessSession.id}`)))
    await member.client.getMe()
    await member.client.getMe()
    await witness.client.getMe()
    for (let i = 0; i < 100 && await activityOf(witnessSession.id) === 1; i++) await new Promise((r) => setTimeout(r, 50))
    expect(await activityOf(witnessSession.id)).toBeGreaterThan(1)
    expect(await activityOf(session.id)).toBe(at)
  })
})

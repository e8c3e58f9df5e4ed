import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Cache } from "../../layers/Cache.ts"
import { Db } from "../../layers/Db.ts"
import { client4, newUser } from "../support/Clients.ts"
import { hasRedis, redisUrl } from "../support/Databases.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { type Member, teamWithChannel } from "./Fixture.ts"
import { eventually, MattermostSocket, RawSocket, wsUrl } from "./Sockets.ts"

/**
 * Ending a session ends its sockets on every node: two nodes sharing PostgreSQL and Redis, sockets of both
 * protocols on both nodes, and each way a session ends.
 */
const cluster = hasRedis() ? describe : describe.skip
if (!hasRedis()) console.log("[realtime] Redis is not reachable: the revocation tests across nodes are skipped")

const SESSION_ENDED = { code: 1008, reason: "session ended" }
/** What "within a second or two" means here. */
const CLOSE_WITHIN_MS = 2000

let nodeA: TestServer
let nodeB: TestServer
let admin: Member
const open: Array<{ close: () => void }> = []
const track = <A extends { close: () => void }>(a: A) => {
  open.push(a)
  return a
}

/** A socket of each protocol on each node, all authenticated by `token`, each past its hello. */
const socketsFor = async (token: string) => {
  const headers = { Authorization: `Bearer ${token}` }
  const sockets = [
    track(new RawSocket(wsUrl(nodeA.url), { headers })),
    track(new RawSocket(wsUrl(nodeB.url), { headers })),
    track(new RawSocket(wsUrl(nodeA.url, "/api/v1/ws"), { headers })),
    track(new RawSocket(wsUrl(nodeB.url, "/api/v1/ws"), { headers }))
  ]
  for (const s of sockets) await s.waitFor((f) => f.event === "hello", "hello")
  return sockets
}

/** Every socket closes with the session-ended code soon after `end` resolves; returns the slowest close in ms. */
const expectClosedSoon = async (sockets: ReadonlyArray<RawSocket>, end: () => Promise<unknown>) => {
  await end()
  const started = Date.now()
  const closes = await Promise.all(sockets.map(async (s) => {
    const closed = await s.waitClosed(CLOSE_WITHIN_MS + 500)
    return { closed, ms: Date.now() - started }
  }))
  for (const c of closes) expect(c.closed).toEqual(SESSION_ENDED)
  const slowest = Math.max(...closes.map((c) => c.ms))
  expect(slowest).toBeLessThan(CLOSE_WITHIN_MS)
  return slowest
}

const login = async (member: Member, node: TestServer) => {
  const client = client4(node.url)
  await client.login(member.username, member.password)
  return client
}

/** Moves the user's session expiry in the database and drops its cached copy, as an extension would. */
const setExpiry = async (userId: string, expiresAt: number) => {
  const [{ id }] = await nodeA.runtime.runPromise(Effect.flatMap(Db, (db) =>
    db.execute(db.sql<{ id: string }>`UPDATE sessions SET expires_at = ${expiresAt} WHERE user_id = ${userId} RETURNING id`)))
  await nodeA.runtime.runPromise(Effect.flatMap(Cache, (cache) => cache.del(`session:${id}`)))
}

cluster("ending a session closes its sockets on every node", () => {
  beforeAll(async () => {
    const env = { SERVICE_CACHE_URL: redisUrl() }
    nodeA = await startServer({ env })
    nodeB = await startServer({ env, databaseUrl: nodeA.databaseUrl })
    admin = (await teamWithChannel(nodeA, ["admin"])).users[0]
  })
  afterAll(async () => {
    for (const s of open) s.close()
    await nodeB?.close()
    await nodeA?.close()
  })

  it("logout closes the session's sockets on both nodes and both protocols; REST and the sockets refuse the token after", async () => {
    const user = await newUser(nodeA.url, "logout")
    const token = user.client.getToken()
    const sockets = await socketsFor(token)
    const slowest = await expectClosedSoon(sockets, () => client4(nodeB.url, token).logout())
    console.log(`[realtime] logout closed 4 sockets on 2 nodes within ${slowest} ms`)
    // Coming back with the same token: the challenge fails and the socket closes without a hello.
    const again = track(new RawSocket(wsUrl(nodeA.url)))
    await again.opens()
    again.send({ seq: 1, action: "authentication_challenge", data: { token } })
    expect(await again.waitClosed()).toEqual({ code: 1008, reason: "authentication failed" })
    expect(again.events()).toHaveLength(0)
    const native = track(new RawSocket(wsUrl(nodeB.url, "/api/v1/ws"), { headers: { Authorization: `Bearer ${token}` } }))
    await eventually(() => native.unexpected, "refusal")
    expect(native.unexpected?.status).toBe(401)
  })

  it("the official WebSocketClient is closed, fails to re-authenticate and never gets a new hello", async () => {
    const user = await newUser(nodeA.url, "official")
    const token = user.client.getToken()
    const socket = track(new MattermostSocket(wsUrl(nodeA.url), token))
    await socket.connect()
    await socket.hello()
    await client4(nodeB.url, token).logout()
    await eventually(() => socket.closes.length > 0 ? true : undefined, "close", CLOSE_WITHIN_MS)
    // The client reconnects by itself; the ended session cannot authenticate that socket.
    const count = socket.socketCount
    await eventually(() => socket.socketCount > count && socket.socket.readyState === 3 ? true : undefined, "refused reconnect")
    expect(socket.named("hello")).toHaveLength(1)
  })

  it("a password change closes the other sessions' sockets and keeps the changing session's", async () => {
    const user = await newUser(nodeA.url, "pwd")
    const other = await login(user, nodeB)
    const kept = await socketsFor(user.client.getToken())
    const ended = await socketsFor(other.getToken())
    await expectClosedSoon(ended, () => user.client.updateUserPassword(user.user.id, user.password, "another-long-passphrase-7"))
    for (const s of kept) expect(s.closed).toBeUndefined()
  })

  it("an admin revoking one session closes only that session's sockets", async () => {
    const user = await newUser(nodeA.url, "revoke")
    const second = await login(user, nodeA)
    const kept = await socketsFor(user.client.getToken())
    const ended = await socketsFor(second.getToken())
    const sessions = await admin.client.getSessions(user.user.id)
    const target = sessions.find((s) => s.create_at === Math.max(...sessions.map((x) => x.create_at)))
    await expectClosedSoon(ended, () => client4(nodeB.url, admin.client.getToken()).revokeSession(user.user.id, target!.id))
    for (const s of kept) expect(s.closed).toBeUndefined()
  })

  it("revoke-all and deactivation close every session's sockets", async () => {
    const user = await newUser(nodeA.url, "all")
    const second = await login(user, nodeB)
    const sockets = [...await socketsFor(user.client.getToken()), ...await socketsFor(second.getToken())]
    await expectClosedSoon(sockets, () => client4(nodeB.url, admin.client.getToken()).revokeAllSessionsForUser(user.user.id))

    const deactivated = await newUser(nodeA.url, "deact")
    const theirs = await socketsFor(deactivated.client.getToken())
    await expectClosedSoon(theirs, () => client4(nodeB.url, admin.client.getToken()).updateUserActive(deactivated.user.id, false))
  })

  it("an expiring session closes its sockets when it expires, and an extended one keeps them", async () => {
    const expiring = await newUser(nodeA.url, "expire")
    const extended = await newUser(nodeA.url, "extend")
    const expiresAt = Date.now() + 1500
    await setExpiry(expiring.user.id, expiresAt)
    await setExpiry(extended.user.id, expiresAt)
    const sockets = await socketsFor(expiring.client.getToken())
    const kept = await socketsFor(extended.client.getToken())
    await setExpiry(extended.user.id, Date.now() + 60 * 60 * 1000)
    const closes = await Promise.all(sockets.map((s) => s.waitClosed(CLOSE_WITHIN_MS + 1500)))
    for (const c of closes) expect(c).toEqual(SESSION_ENDED)
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt)
    expect(Date.now() - expiresAt).toBeLessThan(CLOSE_WITHIN_MS)
    // The extended session's sockets were checked at the same moment and stay open.
    await new Promise((r) => setTimeout(r, expiresAt + 1200 - Date.now()))
    for (const s of kept) expect(s.closed).toBeUndefined()
  })

  it("deleting a user (Mattermost's deactivation) closes their sockets; revoking every session closes everyone's", async () => {
    const deleted = await newUser(nodeA.url, "deleted")
    const theirs = await socketsFor(deleted.client.getToken())
    await expectClosedSoon(theirs, async () => {
      const res = await fetch(`${nodeB.url}/api/v4/users/${deleted.user.id}`, { method: "DELETE", headers: { Authorization: `Bearer ${admin.client.getToken()}` } })
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual({ status: "OK" })
    })
    expect((await admin.client.getUser(deleted.user.id)).delete_at).toBeGreaterThan(0)

    // Last in this file: it ends the admin's own session too, as Mattermost's "Revoke All Sessions" does.
    const someone = await newUser(nodeA.url, "someone")
    const everyone = [...await socketsFor(someone.client.getToken()), ...await socketsFor(admin.client.getToken())]
    await expectClosedSoon(everyone, () => client4(nodeB.url, admin.client.getToken()).revokeSessionsForAllUsers())
    const after = await fetch(`${nodeA.url}/api/v4/users/me`, { headers: { Authorization: `Bearer ${someone.client.getToken()}` } })
    expect(after.status).toBe(401)
  })
})

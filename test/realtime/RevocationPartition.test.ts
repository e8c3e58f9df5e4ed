import { Redis } from "ioredis"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client4, newUser } from "../support/Clients.ts"
import { hasRedis, redisUrl } from "../support/Databases.ts"
import type { TcpProxy } from "../support/TcpProxy.ts"
import type { TestServer } from "../support/TestServer.ts"
import { type Member, nodesWithProxiedRedis, teamWithChannel } from "./Fixture.ts"
import { eventually } from "./Sockets.ts"

/**
 * Revocations hold across a partition and across races: two nodes on one PostgreSQL and one Redis, node A reaching
 * Redis through a TCP proxy that cuts it off. A session ended on A while A cannot tell Redis leaves its live copy in
 * Redis; when the partition heals, that copy must not make the token valid again, on either node. And logouts racing
 * with the same token's requests (which read the session and write it back to the cache) must leave no valid token.
 */
const cluster = hasRedis() ? describe : describe.skip
if (!hasRedis()) console.log("[realtime] Redis is not reachable: the revocation partition tests are skipped")

/** How long a revoked token is checked after the partition healed. */
const HOLD_MS = 4000
/** Node B learns of a change made on A through the invalidation log, read every half second. */
const OTHER_NODE_MS = 3000

let proxy: TcpProxy
let redis: Redis
let nodeA: TestServer
let nodeB: TestServer
let admin: Member

const status = async (node: TestServer, token: string, path = "/api/v4/users/me") =>
  (await fetch(`${node.url}${path}`, { headers: { Authorization: `Bearer ${token}` } })).status

const sessionIdOf = (token: string) => (JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString()) as { sid: string }).sid

const login = async (member: Member, node: TestServer) => {
  const client = client4(node.url)
  await client.login(member.username, member.password)
  return client.getToken()
}

/** Both nodes answer `expected` for every token, checked again and again for `ms`; returns how many checks ran. */
const holds = async (tokens: ReadonlyArray<string>, expected: number, ms: number, path?: string) => {
  const until = Date.now() + ms
  let checks = 0
  while (Date.now() < until) {
    for (const token of tokens) {
      for (const node of [nodeA, nodeB]) {
        expect(await status(node, token, path), `${node === nodeA ? "A" : "B"} after heal`).toBe(expected)
        checks++
      }
    }
  }
  return checks
}

/** A's connections to Redis through the proxy (cache, bus publisher, bus subscriber) before the cut. */
let connectionsBeforeCut = 0

/** Waits until A's cache calls fail (the proxy reset its connections), so the change below cannot reach Redis. */
const cutA = async () => {
  connectionsBeforeCut = proxy.connections()
  proxy.cut()
  await eventually(() => proxy.connections() === 0 ? true : undefined, "A cut from Redis")
}

/** Heals and waits until A reaches Redis again (all its connections are back through the proxy). */
const heal = async () => {
  proxy.heal()
  await eventually(() => proxy.connections() >= connectionsBeforeCut ? true : undefined, "A back on Redis", 15_000)
}

/** The cached copy still holds the session (not a tombstone): the refusal below does not come from the cache. */
const expectLiveCopyInRedis = async (sessionId: string) => {
  const text = await redis.get(`session:${sessionId}`)
  expect(text, "the copy cached before the partition").not.toBeNull()
  expect(text!.split("|").length, "a full copy, not the change's tombstone").toBeGreaterThanOrEqual(3)
}

/** Until B refuses the token (it reads the log every half second); returns how long that took. */
const refusedOnB = async (token: string, path?: string, expected = 401) => {
  const started = Date.now()
  for (;;) {
    if (await status(nodeB, token, path) === expected) return Date.now() - started
    if (Date.now() - started > OTHER_NODE_MS) throw new Error(`B still accepted the token ${OTHER_NODE_MS} ms after the change`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

cluster("revocations across a Redis partition and under races", () => {
  beforeAll(async () => {
    ;({ proxy, nodeA, nodeB } = await nodesWithProxiedRedis())
    redis = new Redis(redisUrl(), { lazyConnect: true })
    await redis.connect()
    admin = (await teamWithChannel(nodeA, ["padmin"])).users[0]
  })
  afterAll(async () => {
    proxy?.heal()
    await nodeB?.close()
    await nodeA?.close()
    redis?.disconnect()
  })

  it("a node answering from the copy it keeps beside Redis refuses a session ended on the other node within a poll", async () => {
    const user = await newUser(nodeA.url, "nearlogout")
    const token = user.client.getToken()
    // B's requests leave it holding its own copy of the session (src/auth/Sessions.ts, `near`), which answers them
    // without asking Redis; even with Redis's copy gone, B still answers from it.
    for (let i = 0; i < 5; i++) expect(await status(nodeB, token)).toBe(200)
    await redis.del(`session:${sessionIdOf(token)}`)
    expect(await status(nodeB, token)).toBe(200)
    await client4(nodeA.url, token).logout()
    const bMs = await refusedOnB(token)
    const checks = await holds([token], 401, 1000)
    console.log(`[realtime] logout on A with B holding its copy: B refused after ${bMs} ms; ${checks} checks after, all 401`)
  })

  it("a logout on a node cut from Redis stays in force on both nodes after the partition heals", async () => {
    const user = await newUser(nodeA.url, "cutlogout")
    const token = user.client.getToken()
    // Cached in Redis by both nodes' lookups.
    expect(await status(nodeA, token)).toBe(200)
    expect(await status(nodeB, token)).toBe(200)
    await cutA()
    await client4(nodeA.url, token).logout()
    expect(await status(nodeA, token)).toBe(401)
    const bMs = await refusedOnB(token)
    await heal()
    await expectLiveCopyInRedis(sessionIdOf(token))
    const checks = await holds([token], 401, HOLD_MS)
    console.log(`[realtime] logout during a partition: B refused after ${bMs} ms; ${checks} checks over ${HOLD_MS} ms after heal, all 401`)
  })

  it("a password change and a deactivation on a node cut from Redis stay in force after heal", async () => {
    const user = await newUser(nodeA.url, "cutpwd")
    const other = await login(user, nodeB)
    const kept = user.client.getToken()
    const victim = await newUser(nodeA.url, "cutdeact")
    const victimToken = victim.client.getToken()
    const victimSecond = await login(victim, nodeB)
    for (const token of [kept, other, victimToken, victimSecond]) {
      expect(await status(nodeA, token)).toBe(200)
      expect(await status(nodeB, token)).toBe(200)
    }
    await cutA()
    await user.client.updateUserPassword(user.user.id, user.password, "another-long-passphrase-7")
    await client4(nodeA.url, admin.client.getToken()).updateUserActive(victim.user.id, false)
    for (const token of [other, victimToken, victimSecond]) expect(await status(nodeA, token)).toBe(401)
    for (const token of [other, victimToken, victimSecond]) await refusedOnB(token)
    await heal()
    for (const token of [other, victimToken, victimSecond]) await expectLiveCopyInRedis(sessionIdOf(token))
    const checks = await holds([other, victimToken, victimSecond], 401, HOLD_MS)
    // The session that changed the password goes on.
    expect(await status(nodeA, kept)).toBe(200)
    expect(await status(nodeB, kept)).toBe(200)
    console.log(`[realtime] password change and deactivation during a partition: ${checks} checks after heal, all 401`)
  })

  it("a demotion on a node cut from Redis stays in force after heal", async () => {
    const user = await newUser(nodeA.url, "cutdemote")
    await admin.client.updateUserRoles(user.user.id, "system_user system_admin")
    const token = await login(user, nodeA)
    const adminOnly = "/api/v4/users/stats/filtered"
    expect(await status(nodeA, token, adminOnly)).toBe(200)
    expect(await status(nodeB, token, adminOnly)).toBe(200)
    await cutA()
    await client4(nodeA.url, admin.client.getToken()).updateUserRoles(user.user.id, "system_user")
    expect(await status(nodeA, token, adminOnly)).toBe(403)
    await refusedOnB(token, adminOnly, 403)
    await heal()
    await expectLiveCopyInRedis(sessionIdOf(token))
    const checks = await holds([token], 403, HOLD_MS, adminOnly)
    expect(await status(nodeB, token)).toBe(200)
    console.log(`[realtime] demotion during a partition: ${checks} checks after heal, all 403`)
  })

  it("100 logouts racing with the same tokens' requests on both nodes leave no valid token", async () => {
    const user = await newUser(nodeA.url, "race")
    const tokens: Array<string> = []
    for (let i = 0; i < 100; i++) tokens.push(await login(user, i % 2 === 0 ? nodeA : nodeB))
    let answered = 0
    let refused = 0
    const race = async (token: string, i: number) => {
      const key = `session:${sessionIdOf(token)}`
      let done = false
      const logout = client4((i % 2 === 0 ? nodeB : nodeA).url, token).logout().finally(() => {
        done = true
      })
      // Requests on both nodes for as long as the logout runs, the cached copy dropped before each: they read the
      // session from the database and write it back to the cache around the logout's DELETE, the window in which a
      // copy could come back.
      const hammer = async (node: TestServer) => {
        while (!done) {
          await redis.del(key)
          if (await status(node, token) === 200) answered++
          else refused++
        }
      }
      await Promise.all([logout, hammer(nodeA), hammer(nodeB)])
    }
    for (let i = 0; i < tokens.length; i += 10) await Promise.all(tokens.slice(i, i + 10).map((t, k) => race(t, i + k)))
    // At once on both nodes, then again and again while a node's log reading comes round several times.
    const checks = await holds(tokens, 401, 1500)
    console.log(`[realtime] 100 logouts racing with their tokens' requests (${answered} answered 200 and ${refused} 401 ` +
      `while the logouts ran): ${checks} checks after, all 401`)
  }, 120_000)
})

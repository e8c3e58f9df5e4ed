import type { UserProfile } from "@mattermost/types/users"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client4, newUser } from "../support/Clients.ts"
import { hasRedis, redisUrl } from "../support/Databases.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * GET /users/me answers from each node's cache of users (src/users/UserCache.ts). Two nodes share PostgreSQL and
 * Redis; every change made on one node is what the other answers next (after the bus brings the invalidation, a
 * few milliseconds: polled, bounded by INVALIDATED_WITHIN_MS, far below the cache's 30 s expiry).
 */
const cluster = hasRedis() ? describe : describe.skip
if (!hasRedis()) console.log("[users] Redis is not reachable: the user cache tests across nodes are skipped")

const INVALIDATED_WITHIN_MS = 2000

/** Polls `read` until `done` holds of its result; fails after INVALIDATED_WITHIN_MS with the last result. */
const until = async <A>(read: () => Promise<A>, done: (a: A) => boolean): Promise<A> => {
  const started = Date.now()
  for (;;) {
    const value = await read()
    if (done(value)) return value
    if (Date.now() - started > INVALIDATED_WITHIN_MS) throw new Error(`still stale after ${INVALIDATED_WITHIN_MS} ms: ${JSON.stringify(value)}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

/** The status of GET /users/me for a token (Client4 throws on errors; the status is what matters here). */
const meStatus = async (node: TestServer, token: string) => {
  const response = await fetch(`${node.url}/api/v4/users/me`, { headers: { Authorization: `Bearer ${token}` } })
  await response.arrayBuffer()
  return response.status
}

let nodeA: TestServer
let nodeB: TestServer
let admin: Awaited<ReturnType<typeof newUser>>

cluster("the user cache behind GET /users/me across two nodes", () => {
  beforeAll(async () => {
    const env = { SERVICE_CACHE_URL: redisUrl() }
    nodeA = await startServer({ env })
    nodeB = await startServer({ env, databaseUrl: nodeA.databaseUrl })
    admin = await newUser(nodeA.url, "admin")
    expect(admin.user.roles).toContain("system_admin")
  })
  afterAll(async () => {
    await nodeB?.close()
    await nodeA?.close()
  })

  it("a profile edit on one node is what the same node answers at once and the other node next", async () => {
    const user = await newUser(nodeA.url, "edit")
    const onB = client4(nodeB.url, user.client.getToken())
    expect((await onB.getMe()).first_name).toBe("") // cached on B
    expect((await user.client.getMe()).first_name).toBe("") // cached on A
    await user.client.patchMe({ first_name: "Ada", nickname: "ada" } as Partial<UserProfile>)
    const onA = await user.client.getMe()
    expect([onA.first_name, onA.nickname]).toEqual(["Ada", "ada"])
    const seen = await until(() => onB.getMe(), (me) => me.first_name === "Ada")
    expect(seen.nickname).toBe("ada")
  })

  it("a role change by an admin on one node shows in the user's own record on the other", async () => {
    const user = await newUser(nodeA.url, "roles")
    const onB = client4(nodeB.url, user.client.getToken())
    expect((await onB.getMe()).roles).toBe("system_user")
    await admin.client.updateUserRoles(user.user.id, "system_admin system_user")
    await until(() => onB.getMe(), (me) => me.roles === "system_admin system_user")
    await client4(nodeB.url, admin.client.getToken()).updateUserRoles(user.user.id, "system_user")
    const back = await until(() => user.client.getMe(), (me) => me.roles === "system_user")
    expect(back.roles).toBe("system_user")
  })

  it("deactivation on one node ends the user's sessions on both; reactivation and a new login show the active record", async () => {
    const user = await newUser(nodeA.url, "deact")
    const token = user.client.getToken()
    expect(await meStatus(nodeB, token)).toBe(200)
    await admin.client.updateUserActive(user.user.id, false)
    await until(() => meStatus(nodeB, token), (status) => status === 401)
    expect(await meStatus(nodeA, token)).toBe(401)
    await client4(nodeB.url, admin.client.getToken()).updateUserActive(user.user.id, true)
    const again = client4(nodeA.url)
    await again.login(user.username, user.password)
    const onB = client4(nodeB.url, again.getToken())
    expect((await onB.getMe()).delete_at).toBe(0)
  })

  it("a picture change on one node moves last_picture_update in the other node's answer", async () => {
    const user = await newUser(nodeA.url, "pic")
    const onB = client4(nodeB.url, user.client.getToken())
    const before = (await onB.getMe()).last_picture_update ?? 0
    // The smallest valid PNG (1×1).
    const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64")
    const form = new FormData()
    form.append("image", new Blob([png], { type: "image/png" }), "me.png")
    const response = await fetch(`${nodeA.url}/api/v4/users/${user.user.id}/image`, {
      method: "POST",
      headers: { Authorization: `Bearer ${user.client.getToken()}` },
      body: form
    })
    expect(response.status).toBe(200)
    await until(() => onB.getMe(), (me) => (me.last_picture_update ?? 0) > before)
  })
})

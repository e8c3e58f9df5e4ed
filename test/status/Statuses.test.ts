import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Db } from "../../layers/Db.ts"
import { sweepOnce } from "../../src/status/Sweeper.ts"
import { newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { stats } from "../realtime/Fixture.ts"
import { MattermostSocket, wsUrl } from "../realtime/Sockets.ts"

/** User statuses over REST, driven by sockets, and the time-driven sweeps. */
let server: TestServer
let admin: Awaited<ReturnType<typeof newUser>>
const open: Array<{ close: () => void }> = []

beforeAll(async () => {
  server = await startServer()
  admin = await newUser(server.url, "admin")
})
afterAll(async () => {
  for (const s of open) s.close()
  await server?.close()
})

const connect = async (member: Awaited<ReturnType<typeof newUser>>) => {
  const socket = new MattermostSocket(wsUrl(server.url), member.client.getToken())
  open.push(socket)
  await socket.connect()
  await socket.hello()
  return socket
}
const statusOf = async (userId: string) => (await admin.client.getStatus(userId)).status
/** Waits for the server to have processed a socket closing. */
const becomes = async (userId: string, status: string) => {
  for (let i = 0; i < 150; i++) {
    if (await statusOf(userId) === status) return
    await new Promise((r) => setTimeout(r, 20))
  }
  expect(await statusOf(userId)).toBe(status)
}
/**
 * Closes a socket and waits until the server has handled its departure, presence and status included: the node
 * counts a socket until then. Only one departure may be under way, as in these tests.
 */
const closeHandled = async (socket: { close: () => void }) => {
  const before = (await stats(server)).websocket_connections
  socket.close()
  for (let i = 0; i < 150; i++) {
    if ((await stats(server)).websocket_connections === before - 1) return
    await new Promise((r) => setTimeout(r, 20))
  }
  expect((await stats(server)).websocket_connections).toBe(before - 1)
}
const sql = (run: (db: Effect.Effect.Success<typeof Db>) => Effect.Effect<unknown, unknown>) =>
  server.runtime.runPromise(Effect.flatMap(Db, run))
const sweep = () => server.runtime.runPromise(sweepOnce)

describe("status REST", () => {
  it("reads a status with the UserStatus shape; users never seen are offline", async () => {
    const u = await newUser(server.url, "fresh")
    const status = await admin.client.getStatus(u.user.id)
    expect(status).toEqual({ user_id: u.user.id, status: "offline", manual: false, last_activity_at: 0, dnd_end_time: 0 })
    const me = await u.client.getStatus("me")
    expect(me.user_id).toBe(u.user.id)
  })

  it("answers 404 for an unknown user and 400 for a malformed id", async () => {
    await expect(admin.client.getStatus("a".repeat(26))).rejects.toMatchObject({ status_code: 404 })
    await expect(admin.client.getStatus("nope")).rejects.toMatchObject({ status_code: 400 })
  })

  it("sets one's own status; others need to be a system admin; bad input is 400", async () => {
    const u = await newUser(server.url, "setter")
    const other = await newUser(server.url, "other")
    const end = Math.floor(Date.now() / 1000) + 3600
    const set = await u.client.updateStatus({ user_id: u.user.id, status: "dnd", dnd_end_time: end } as never)
    expect(set).toMatchObject({ user_id: u.user.id, status: "dnd", manual: true, dnd_end_time: end })
    await expect(other.client.updateStatus({ user_id: u.user.id, status: "online" } as never)).rejects.toMatchObject({ status_code: 403 })
    const byAdmin = await admin.client.updateStatus({ user_id: u.user.id, status: "away" } as never)
    expect(byAdmin).toMatchObject({ status: "away", manual: true, dnd_end_time: 0 })
    await expect(u.client.updateStatus({ user_id: u.user.id, status: "sleeping" } as never)).rejects.toMatchObject({ status_code: 400 })
    const mismatched = await fetch(`${server.url}/api/v4/users/${u.user.id}/status`, {
      method: "PUT",
      headers: { Authorization: `Bearer ${u.client.getToken()}`, "Content-Type": "application/json" },
      body: JSON.stringify({ user_id: other.user.id, status: "online" })
    })
    expect(mismatched.status).toBe(400)
  })

  it("reads many statuses in the order asked; an empty list is 400", async () => {
    const a = await newUser(server.url, "many")
    await a.client.updateStatus({ user_id: a.user.id, status: "away" } as never)
    const list = await admin.client.getStatusesByIds([a.user.id, admin.user.id])
    expect(list.map((s) => [s.user_id, s.status])).toEqual([[a.user.id, "away"], [admin.user.id, "offline"]])
    await expect(admin.client.getStatusesByIds([])).rejects.toMatchObject({ status_code: 400 })
  })
})

describe("presence", () => {
  it("is online with a socket open and offline when the last one closes", async () => {
    const u = await newUser(server.url, "present")
    const first = await connect(u)
    const second = await connect(u)
    await becomes(u.user.id, "online")
    await closeHandled(first)
    expect(await statusOf(u.user.id)).toBe("online")
    await closeHandled(second)
    expect(await statusOf(u.user.id)).toBe("offline")
  })

  it("keeps a chosen status (DND) through connects and disconnects", async () => {
    const u = await newUser(server.url, "dnd")
    await u.client.updateStatus({ user_id: u.user.id, status: "dnd" } as never)
    const socket = await connect(u)
    expect(await statusOf(u.user.id)).toBe("dnd")
    await closeHandled(socket)
    expect(await statusOf(u.user.id)).toBe("dnd")
  })

  it("follows user_update_active_status: idle becomes away, active online again", async () => {
    const u = await newUser(server.url, "idle")
    const socket = await connect(u)
    await socket.request("user_update_active_status", { user_is_active: false, manual: false })
    expect(await statusOf(u.user.id)).toBe("away")
    await socket.waitFor((e) => e.event === "status_change" && e.data?.status === "away", "away event")
    await socket.request("user_update_active_status", { user_is_active: true, manual: false })
    expect(await statusOf(u.user.id)).toBe("online")
  })
})

describe("sweeps", () => {
  it("makes idle online users away, ends timed DND, and turns users without sockets offline", async () => {
    const idle = await newUser(server.url, "sweepidle")
    const timed = await newUser(server.url, "sweepdnd")
    const ghost = await newUser(server.url, "ghost")
    const idleSocket = await connect(idle)
    const timedSocket = await connect(timed)
    await timed.client.updateStatus({ user_id: timed.user.id, status: "dnd", dnd_end_time: Math.floor(Date.now() / 1000) + 1 } as never)
    await sql((db) => db.execute(db.sql`UPDATE statuses SET last_activity_at = 1 WHERE user_id = ${idle.user.id}`))
    await sql((db) => db.execute(db.sql`UPDATE statuses SET dnd_end_time = 1 WHERE user_id = ${timed.user.id}`))
    // A node died with ghost's socket: the row says online, the cluster has no socket for them.
    await sql((db) => db.execute(db.sql`
      INSERT INTO statuses (user_id, status, manual, last_activity_at) VALUES (${ghost.user.id}, 'online', false, ${Date.now()})`))
    await sweep()
    expect(await statusOf(idle.user.id)).toBe("away")
    expect(await statusOf(timed.user.id)).toBe("online")
    expect(await statusOf(ghost.user.id)).toBe("offline")
    await idleSocket.waitFor((e) => e.event === "status_change" && e.data?.status === "away", "away event")
    await timedSocket.waitFor((e) => e.event === "status_change" && e.data?.status === "online", "dnd ended event")
  })

  it("ends DND on the status the user chose before it, and on presence when that status was automatic", async () => {
    const chose = await newUser(server.url, "choseaway")
    const late = await newUser(server.url, "dndfirst")
    await chose.client.updateStatus({ user_id: chose.user.id, status: "away" } as never)
    const end = Math.floor(Date.now() / 1000) + 3600
    await chose.client.updateStatus({ user_id: chose.user.id, status: "dnd", dnd_end_time: end } as never)
    // Offline only because no socket was open yet: not a choice to come back to.
    await late.client.updateStatus({ user_id: late.user.id, status: "dnd", dnd_end_time: end } as never)
    await connect(chose)
    await connect(late)
    expect(await statusOf(late.user.id)).toBe("dnd")
    await sql((db) => db.execute(db.sql`UPDATE statuses SET dnd_end_time = 1 WHERE user_id IN (${chose.user.id}, ${late.user.id})`))
    await sweep()
    expect(await statusOf(chose.user.id)).toBe("away")
    expect(await statusOf(late.user.id)).toBe("online")
  })
})

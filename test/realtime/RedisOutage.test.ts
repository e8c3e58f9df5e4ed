import type { Post } from "@mattermost/types/posts"
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { createServer, Socket } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client4 } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { send } from "../http/Fetch.ts"
import { inOneMinute } from "../support/RateWindows.ts"
import { type Member, teamWithChannel } from "./Fixture.ts"
import { eventually, MattermostSocket, wsUrl } from "./Sockets.ts"

/**
 * A real Redis of the test's own (never the shared one) killed and restarted under traffic on two nodes. Every post
 * the server acknowledged must have reached every socket, or the official client must have been told to resync
 * afterwards (a hello with a new connection_id, which calls its missed-message listeners: the app reloads over REST);
 * no request may wait much more than the breaker's budget; the auth rate limit keeps counting on each node while
 * Redis is away.
 */
const hasRedisServer = spawnSync("redis-server", ["--version"]).status === 0
const suite = hasRedisServer ? describe : describe.skip
if (!hasRedisServer) console.log("[realtime] redis-server is not on PATH: the Redis outage test is skipped")

const OUTAGE_MS = 4000
const LATENCY_BUDGET_MS = 2500

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

const answers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = new Socket()
    socket.once("connect", () => {
      socket.destroy()
      resolve(true)
    })
    socket.once("error", () => resolve(false))
    socket.connect(port, "127.0.0.1")
  })

let port = 0
let redis: ChildProcess | undefined
const startRedis = async () => {
  redis = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" })
  const started = Date.now()
  while (!(await answers(port))) {
    if (Date.now() - started > 10_000) throw new Error("redis-server did not start")
    await new Promise((r) => setTimeout(r, 20))
  }
}
const killRedis = async () => {
  const exited = new Promise((resolve) => redis?.once("exit", resolve))
  redis?.kill("SIGKILL")
  await exited
  redis = undefined
}

interface Received {
  readonly at: number
  readonly event: string
  readonly message?: string
}
/** An official client whose frames are recorded with the time they arrived. */
const watch = (node: TestServer, member: Member) => {
  const socket = new MattermostSocket(wsUrl(node.url), member.client.getToken())
  const received: Array<Received> = []
  socket.client.addMessageListener((frame) => {
    const msg = frame as { event?: string; data?: { post?: string } }
    const message = msg.event === "posted" ? (JSON.parse(msg.data?.post ?? "{}") as Post).message : undefined
    received.push({ at: Date.now(), event: msg.event ?? "", message })
  })
  return { name: `${member.username}@${node === nodeA ? "A" : "B"}`, socket, received }
}

let nodeA: TestServer
let nodeB: TestServer
let alice: Member
let bob: Member
let channelId = ""

suite("a Redis outage under traffic on two nodes", () => {
  beforeAll(async () => {
    port = await freePort()
    await startRedis()
    const env = { SERVICE_CACHE_URL: `redis://127.0.0.1:${port}`, SERVICE_SECURITY_RATE_LIMIT_AUTH_PER_MINUTE: "20", SERVICE_TRUSTED_PROXIES: "127.0.0.1" }
    nodeA = await startServer({ env })
    nodeB = await startServer({ env, databaseUrl: nodeA.databaseUrl })
    const setup = await teamWithChannel(nodeA, ["oa", "ob"])
    ;[alice, bob] = setup.users
    channelId = setup.channel.id
    await alice.client.addToChannel(bob.user.id, channelId)
  })
  afterAll(async () => {
    await nodeB?.close()
    await nodeA?.close()
    if (redis !== undefined) await killRedis()
  })

  it("loses no acknowledged post: each socket receives it or is told to resync after it; no request waits past the budget", async () => {
    const watchers = [watch(nodeA, bob), watch(nodeB, bob), watch(nodeB, alice), watch(nodeA, alice)]
    for (const w of watchers) {
      await w.socket.connect()
      await w.socket.hello()
    }
    const acked: Array<{ message: string; at: number }> = []
    const latencies: Array<{ ms: number; during: boolean }> = []
    let outage = false
    let running = true
    let n = 0
    const traffic = async (node: TestServer) => {
      const client = client4(node.url, alice.client.getToken())
      while (running) {
        const message = `m${n++}`
        const started = Date.now()
        const during = outage
        try {
          await client.createPost({ channel_id: channelId, message } as Post)
          acked.push({ message, at: Date.now() })
        } catch {
          // Not acknowledged: nothing is owed for it.
        }
        latencies.push({ ms: Date.now() - started, during })
        await new Promise((r) => setTimeout(r, 25))
      }
    }
    const loops = [traffic(nodeA), traffic(nodeB)]
    await eventually(() => acked.length >= 20 ? true : undefined, "traffic before the outage")

    await killRedis()
    outage = true
    const outageStarted = Date.now()
    // The auth rate limit still holds on each node while Redis is away (per node, from memory).
    const loginMs: Array<number> = []
    const statuses = await inOneMinute(async (attempt) => {
      const burst: Array<number> = []
      for (let i = 0; i < 21; i++) {
        const started = Date.now()
        burst.push((await send(`${nodeA.url}/api/v4/users/login`, {
          method: "POST",
          headers: { "x-forwarded-for": `203.0.113.${attempt}` },
          json: { login_id: "nobody", password: "wrong-password" }
        })).status)
        loginMs.push(Date.now() - started)
      }
      return burst
    })
    expect(statuses.slice(0, 20).every((s) => s === 401)).toBe(true)
    expect(statuses[20]).toBe(429)
    await new Promise((r) => setTimeout(r, Math.max(0, OUTAGE_MS - (Date.now() - outageStarted))))
    const duringOutage = acked.filter((a) => a.at >= outageStarted).length
    await startRedis()
    outage = false
    const recoveredAt = Date.now()
    await eventually(() => acked.some((a) => a.at > recoveredAt + 3000) ? true : undefined, "traffic after recovery", 15_000)
    running = false
    await Promise.all(loops)

    // Told to resync: the client saw a new connection_id after the post was acknowledged (a hello resuming the same
    // connection does not count).
    const delivered = (w: (typeof watchers)[number], a: { message: string }) => w.received.some((r) => r.message === a.message)
    const owed = (w: (typeof watchers)[number]) =>
      acked.filter((a) => !delivered(w, a) && !w.socket.missed.some((at) => at >= a.at))
    await eventually(() => watchers.every((w) => owed(w).length === 0) ? true : undefined, "every post received or resync told", 15_000)
      .catch(() => undefined)
    const lost = watchers.map((w) => ({
      socket: w.name,
      received: acked.filter((a) => delivered(w, a)).length,
      lost: owed(w).length,
      resyncs: w.socket.missed.length
    }))
    const worst = Math.max(...latencies.map((l) => l.ms))
    const worstDuring = Math.max(...latencies.filter((l) => l.during).map((l) => l.ms))
    console.log(`[realtime] Redis outage of ${OUTAGE_MS} ms: ${acked.length} posts acknowledged (${duringOutage} during the outage), ` +
      `slowest request ${worst} ms (${worstDuring} ms during the outage), slowest rate-limited login during the outage ` +
      `${Math.max(...loginMs)} ms; per socket ${JSON.stringify(lost)}`)
    for (const l of lost) expect(l.lost, `${l.socket} missed acknowledged posts without being told to resync`).toBe(0)
    expect(duringOutage).toBeGreaterThan(0)
    expect(worst).toBeLessThan(LATENCY_BUDGET_MS)
    expect(Math.max(...loginMs)).toBeLessThan(LATENCY_BUDGET_MS)
    for (const w of watchers) w.socket.close()
  }, 90_000)
})

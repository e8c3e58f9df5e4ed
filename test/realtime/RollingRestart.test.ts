import type { Post } from "@mattermost/types/posts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { FROM_BUILD } from "../cli/Cli.ts"
import { startBalancer, type Balancer } from "../support/Balancer.ts"
import { tempDir } from "../support/Cleanup.ts"
import { client4 } from "../support/Clients.ts"
import { createTestDatabase, hasRedis, redisUrl } from "../support/Databases.ts"
import { clusterEnv, freePort, type ServiceProcess, startProcess, stop, waitUntilLive } from "../startup/Process.ts"
import { expectSeamless, type Member, pairInChannel } from "./Fixture.ts"
import { eventually, MattermostSocket, wsUrl } from "./Sockets.ts"

/**
 * A rolling restart as an operator does one: two service processes behind a load balancer that checks readiness,
 * each replaced in turn (SIGTERM, wait for its exit, start the new one, wait until the balancer sends it traffic).
 * Through it all an official Client4 keeps posting and reading and the official WebSocketClient keeps listening:
 * not one request fails, and the socket sees every post once, in order, with no new hello and no resync. What makes
 * it so: the drain (readiness 503 while everything is still served, `Connection: close` on every answer) and the
 * socket handover to the node that stays.
 */
const cluster = hasRedis() ? describe : describe.skip
if (!hasRedis()) console.log("[realtime] Redis is not reachable: the rolling restart is not tested")

/** Longer than Node's 5 s keep-alive timeout, so no idle keep-alive connection outlives the drain (README). */
const DRAIN_MS = 5_500
const LIVE_WITHIN_MS = 60_000

const nodes: Array<{ node: ServiceProcess; dataDir: string }> = []
let balancer: Balancer | undefined
let socket: MattermostSocket | undefined

afterAll(async () => {
  socket?.close()
  await balancer?.close()
  await Promise.all(nodes.map(({ node, dataDir }) => stop(node, dataDir).catch(() => {})))
})

cluster("a rolling restart of two processes behind a balancer", () => {
  let shared: Record<string, string>
  let alice: Member
  let bob: Member
  let channelId: string

  const startNode = async () => {
    const dataDir = tempDir("service-rolling-", { shared: true })
    const node = startProcess({ ...shared, SERVICE_PORT: String(await freePort()), SERVICE_DATA_DIR: dataDir }, FROM_BUILD)
    nodes.push({ node, dataDir })
    await waitUntilLive(node, LIVE_WITHIN_MS)
    return node
  }

  beforeAll(async () => {
    shared = { ...clusterEnv(await createTestDatabase(), redisUrl()), SERVICE_SHUTDOWN_DRAIN_MS: String(DRAIN_MS), SERVICE_LOG_LEVEL: "warn" }
    const a = await startNode()
    const b = await startNode()
    balancer = await startBalancer([a.url, b.url])
    await balancer.waitFor(a.url, true)
    await balancer.waitFor(b.url, true)
    ;({ users: [alice, bob], channelId } = await pairInChannel(balancer.url, ["alice", "bob"]))
  }, 2 * LIVE_WITHIN_MS + 30_000)

  it("costs the official clients nothing: no failed request, no new hello, every post once and in order", async () => {
    const lb = balancer!
    const poster = client4(lb.url, alice.client.getToken())
    const reader = client4(lb.url, bob.client.getToken())
    socket = new MattermostSocket(wsUrl(lb.url), bob.client.getToken())
    await socket.connect()
    await socket.hello()

    const sent: Array<string> = []
    const failures: Array<string> = []
    let requests = 0
    let slowest = 0
    let loading = true
    const load = (async () => {
      for (let i = 0; loading; i++) {
        const started = Date.now()
        try {
          const message = `rolling ${i}`
          await poster.createPost({ channel_id: channelId, message } as Post)
          sent.push(message)
          await reader.getMe()
          await reader.getPosts(channelId, 0, 5)
          requests += 3
        } catch (e) {
          failures.push(`${new Date().toISOString()} ${String(e)}`)
        }
        slowest = Math.max(slowest, Date.now() - started)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    })()

    const roll = async (old: ServiceProcess, other: ServiceProcess) => {
      const stopping = Date.now()
      old.child.kill("SIGTERM")
      expect(await old.exited).toBe(0)
      const stopMs = Date.now() - stopping
      const fresh = await startNode()
      lb.setBackends([other.url, fresh.url])
      await lb.waitFor(fresh.url, true)
      return { fresh, stopMs }
    }
    try {
      const [a, b] = nodes.map((n) => n.node)
      const first = await roll(a, b)
      const second = await roll(b, first.fresh)
      loading = false
      await load
      console.log(
        `[realtime] rolling restart: ${requests} requests, ${failures.length} failed, slowest round ${slowest} ms; stops took ${first.stopMs} and ${second.stopMs} ms; the socket connected ${socket.socketCount} times`
      )
    } finally {
      loading = false
      await load
    }
    expect(failures).toEqual([])
    expect(sent.length).toBeGreaterThan(10)
    await eventually(() => socket!.named("posted").length >= sent.length ? true : undefined, "every post on the socket", 15_000)
      .catch(() => undefined)
    // Moved by each restart of the node it was on, resumed each time on the node that stayed.
    expect(socket.socketCount).toBeGreaterThanOrEqual(2)
    expectSeamless(socket, sent)
  }, 240_000)
})

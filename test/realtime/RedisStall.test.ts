import type { Post } from "@mattermost/types/posts"
import { Redis } from "ioredis"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { TOPIC } from "../../src/events/EventBus.ts"
import { client4 } from "../support/Clients.ts"
import { hasRedis, redisUrl } from "../support/Databases.ts"
import type { TcpProxy } from "../support/TcpProxy.ts"
import type { TestServer } from "../support/TestServer.ts"
import { type Member, nodesWithProxiedRedis, teamWithChannel } from "./Fixture.ts"
import { eventually, MattermostSocket, wsUrl } from "./Sockets.ts"

/**
 * A Redis that stalls instead of dying: node A reaches it through a TCP proxy that stops forwarding for several
 * seconds (connections stay open, nothing answers), then forwards again. The publishes A gave up on (timed out) are
 * executed when Redis answers again, and A's outbox sends the same events again: the bus carries copies. No socket
 * may receive a `posted` frame twice, and no acknowledged post may be lost (received, or a resync told after it).
 */
const cluster = hasRedis() ? describe : describe.skip
if (!hasRedis()) console.log("[realtime] Redis is not reachable: the Redis stall test is skipped")

const STALL_MS = 6000

let proxy: TcpProxy
let bus: Redis
let nodeA: TestServer
let nodeB: TestServer
let alice: Member
let bob: Member
let channelId = ""

/** Every message on the bus about the test's channel, by its origin and number. */
const onBus = new Map<string, number>()

cluster("a Redis stall under traffic on two nodes", () => {
  beforeAll(async () => {
    ;({ proxy, nodeA, nodeB } = await nodesWithProxiedRedis())
    const setup = await teamWithChannel(nodeA, ["sa", "sb"])
    ;[alice, bob] = setup.users
    channelId = setup.channel.id
    await alice.client.addToChannel(bob.user.id, channelId)
    bus = new Redis(redisUrl(), { lazyConnect: true })
    await bus.connect()
    bus.on("message", (_topic: string, raw: string) => {
      const message = JSON.parse(raw) as { broadcast?: { channel_id?: string }; origin?: string; id?: number }
      if (message.broadcast?.channel_id !== channelId) return
      const key = `${message.origin}:${message.id}`
      onBus.set(key, (onBus.get(key) ?? 0) + 1)
    })
    await bus.subscribe(TOPIC)
  })
  afterAll(async () => {
    proxy?.heal()
    bus?.disconnect()
    await nodeB?.close()
    await nodeA?.close()
  })

  it("no socket gets a posted frame twice and no acknowledged post is lost", async () => {
    const watchers = [
      { name: "bob@A", socket: new MattermostSocket(wsUrl(nodeA.url), bob.client.getToken()) },
      { name: "bob@B", socket: new MattermostSocket(wsUrl(nodeB.url), bob.client.getToken()) },
      { name: "alice@A", socket: new MattermostSocket(wsUrl(nodeA.url), alice.client.getToken()) },
      { name: "alice@B", socket: new MattermostSocket(wsUrl(nodeB.url), alice.client.getToken()) }
    ]
    for (const w of watchers) {
      await w.socket.connect()
      await w.socket.hello()
    }
    const acked: Array<{ id: string; at: number }> = []
    let stalled = false
    let duringStall = 0
    let running = true
    let n = 0
    const traffic = async (node: TestServer) => {
      const client = client4(node.url, alice.client.getToken())
      while (running) {
        try {
          const post = await client.createPost({ channel_id: channelId, message: `s${n++}` } as Post)
          acked.push({ id: post.id, at: Date.now() })
          if (stalled) duringStall++
        } catch {
          // Not acknowledged: nothing is owed for it.
        }
        await new Promise((r) => setTimeout(r, 25))
      }
    }
    const loops = [traffic(nodeA), traffic(nodeB)]
    await eventually(() => acked.length >= 20 ? true : undefined, "traffic before the stall")
    proxy.stall()
    stalled = true
    await new Promise((r) => setTimeout(r, STALL_MS))
    proxy.heal()
    stalled = false
    const healedAt = Date.now()
    await eventually(() => acked.some((a) => a.at > healedAt + 3000) ? true : undefined, "traffic after the stall", 20_000)
    running = false
    await Promise.all(loops)

    const frames = (socket: MattermostSocket) => {
      const counts = new Map<string, number>()
      for (const e of socket.named("posted")) {
        const id = (JSON.parse(e.data?.post as string) as Post).id
        counts.set(id, (counts.get(id) ?? 0) + 1)
      }
      return counts
    }
    const owed = (w: (typeof watchers)[number]) => {
      const got = frames(w.socket)
      return acked.filter((a) => !got.has(a.id) && !w.socket.missed.some((at) => at >= a.at))
    }
    await eventually(() => watchers.every((w) => owed(w).length === 0) ? true : undefined, "every post received or resync told", 20_000)
      .catch(() => undefined)
    const copiesOnBus = [...onBus.values()].filter((c) => c > 1).reduce((sum, c) => sum + c - 1, 0)
    const report = watchers.map((w) => {
      const counts = frames(w.socket)
      return {
        socket: w.name,
        frames: [...counts.values()].reduce((a, b) => a + b, 0),
        doubled: [...counts.values()].filter((c) => c > 1).length,
        lost: owed(w).length,
        resyncs: w.socket.missed.length
      }
    })
    console.log(`[realtime] Redis stalled ${STALL_MS} ms: ${acked.length} posts acknowledged (${duringStall} during the stall), ` +
      `${copiesOnBus} extra copies of events on the bus; per socket ${JSON.stringify(report)}`)
    for (const r of report) {
      expect(r.doubled, `${r.socket} got posted frames twice`).toBe(0)
      expect(r.lost, `${r.socket} missed acknowledged posts without being told to resync`).toBe(0)
    }
    expect(duringStall).toBeGreaterThan(0)
    // The stall did put copies on the bus: the receivers' dropping them is what this test proves.
    expect(copiesOnBus).toBeGreaterThan(0)
    for (const w of watchers) w.socket.close()
  }, 120_000)
})

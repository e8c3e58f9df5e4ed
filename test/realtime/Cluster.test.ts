import type { Channel } from "@mattermost/types/channels"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client4 } from "../support/Clients.ts"
import { hasRedis, redisUrl } from "../support/Databases.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { expectLimitAcrossNodes, expectSeamless, type Member, say, setMaxConnections, teamWithChannel } from "./Fixture.ts"
import { MattermostSocket, wsUrl } from "./Sockets.ts"

/** Two nodes sharing PostgreSQL and Redis: delivery, resumption and limits across them. */
const cluster = hasRedis() ? describe : describe.skip
if (!hasRedis()) console.log("[realtime] Redis is not reachable: the cross-node tests are skipped")

let nodeA: TestServer
let nodeB: TestServer
let alice: Member
let bob: Member
let channel: Channel
const open: Array<{ close: () => void }> = []
const track = <A extends { close: () => void }>(a: A) => {
  open.push(a)
  return a
}

const posted = (text: string) => (e: { event?: string; data?: Record<string, unknown> }) =>
  e.event === "posted" && (e.data?.post as string).includes(text)

cluster("across two nodes", () => {
  beforeAll(async () => {
    const env = { SERVICE_CACHE_URL: redisUrl() }
    nodeA = await startServer({ env })
    nodeB = await startServer({ env, databaseUrl: nodeA.databaseUrl })
    const setup = await teamWithChannel(nodeA, ["alice", "bob"])
    ;[alice, bob] = setup.users
    channel = setup.channel
    await alice.client.addToChannel(bob.user.id, channel.id)
  })
  afterAll(async () => {
    for (const s of open) s.close()
    await nodeB?.close()
    await nodeA?.close()
  })

  const aliceOn = (node: TestServer) => ({ ...alice, client: client4(node.url, alice.client.getToken()) })

  it("delivers to a socket on node A the post created through node B", async () => {
    const bobSocket = track(new MattermostSocket(wsUrl(nodeA.url), bob.client.getToken()))
    await bobSocket.connect()
    await bobSocket.hello()
    await say(aliceOn(nodeB), channel.id, "from node B")
    const event = await bobSocket.waitFor(posted("from node B"), "post from B")
    expect(event.data?.channel_name).toBe(channel.name)
  })

  it("resumes on node B a connection dropped from node A, with nothing lost and no new hello", async () => {
    const bobSocket = track(new MattermostSocket(wsUrl(nodeA.url), bob.client.getToken(), { retryMs: 60_000 }))
    await bobSocket.connect()
    const hello = await bobSocket.hello()
    await say(aliceOn(nodeA), channel.id, "seen on A")
    await bobSocket.waitFor(posted("seen on A"), "first post")
    bobSocket.drop()
    await say(aliceOn(nodeB), channel.id, "missed via B")
    await say(aliceOn(nodeA), channel.id, "missed via A")
    await bobSocket.moveTo(wsUrl(nodeB.url))
    expect(bobSocket.urls.at(-1)).toContain(`connection_id=${String(hello.data?.connection_id)}`)
    await bobSocket.waitFor(posted("missed via A"), "replayed posts")
    await say(aliceOn(nodeA), channel.id, "live after moving")
    await bobSocket.waitFor(posted("live after moving"), "live post on B")
    expectSeamless(bobSocket, ["seen on A", "missed via B", "missed via A", "live after moving"])
  })

  it("enforces max_simultaneous_connections across nodes and reports the user offline only when the last socket closes", async () => {
    for (const s of open.splice(0)) s.close()
    await setMaxConnections(nodeA, 2)
    try {
      await expectLimitAcrossNodes([nodeA.url, nodeB.url], bob, alice, track)
    } finally {
      await setMaxConnections(nodeA, 10)
    }
  })
})

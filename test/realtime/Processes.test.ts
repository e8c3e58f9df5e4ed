import { randomBytes } from "node:crypto"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { tempDir } from "../support/Cleanup.ts"
import { client4 } from "../support/Clients.ts"
import { createTestDatabase, hasRedis, redisUrl } from "../support/Databases.ts"
import type { TestServer } from "../support/TestServer.ts"
import { FROM_BUILD } from "../cli/Cli.ts"
import { freePort, type ServiceProcess, startProcess, stop, waitUntilLive } from "../startup/Process.ts"
import { expectLimitAcrossNodes, expectSeamless, type Member, say, teamWithChannel } from "./Fixture.ts"
import { eventually, MattermostSocket, wsUrl } from "./Sockets.ts"

/**
 * Two service processes, as an operator runs a cluster: separate Node processes on one PostgreSQL database and one
 * Redis, sharing only their secrets. The official WebSocketClient connects to one and is moved to the other.
 */
const cluster = hasRedis() ? describe : describe.skip
if (!hasRedis()) console.log("[realtime] Redis is not reachable: the two-process tests are skipped")

const dataDirs: Array<string> = []
const nodes: Array<ServiceProcess> = []
const sockets: Array<{ close: () => void }> = []
const track = <A extends { close: () => void }>(a: A) => {
  sockets.push(a)
  return a
}
/** Generous: the whole suite shares two cores, and each process starts a full service. */
const LIVE_WITHIN_MS = 60_000

const startNode = async (shared: Record<string, string>) => {
  const dataDir = tempDir("service-node-", { shared: true })
  dataDirs.push(dataDir)
  // The production build (built once by the global setup): it starts several times faster than the sources through tsx.
  const node = startProcess({ ...shared, SERVICE_PORT: String(await freePort()), SERVICE_DATA_DIR: dataDir }, FROM_BUILD)
  nodes.push(node)
  await waitUntilLive(node, LIVE_WITHIN_MS)
  return node
}

const posted = (text: string) => (e: { event?: string; data?: Record<string, unknown> }) =>
  e.event === "posted" && (e.data?.post as string).includes(text)

cluster("two service processes sharing PostgreSQL and Redis", () => {
  let nodeA: ServiceProcess
  let nodeB: ServiceProcess
  let alice: Member
  let bob: Member
  let channelId: string
  let databaseUrl: string

  beforeAll(async () => {
    databaseUrl = await createTestDatabase()
    const shared = {
      SERVICE_DATABASE_URL: databaseUrl,
      SERVICE_CACHE_URL: redisUrl(),
      SERVICE_JWT_SECRET: randomBytes(48).toString("base64"),
      SERVICE_ENCRYPTION_KEY: randomBytes(48).toString("base64"),
      SERVICE_SECURITY_RATE_LIMIT_AUTH_PER_MINUTE: "100000",
      SERVICE_SECURITY_RATE_LIMIT_WS_PER_MINUTE: "100000",
      SERVICE_LOG_LEVEL: "warn"
    }
    // One after the other: the first applies the migrations, the second finds them applied.
    nodeA = await startNode(shared)
    nodeB = await startNode(shared)
    const setup = await teamWithChannel({ url: nodeA.url } as TestServer, ["alice", "bob"])
    ;[alice, bob] = setup.users
    channelId = setup.channel.id
    await alice.client.addToChannel(bob.user.id, channelId)
  }, 2 * LIVE_WITHIN_MS + 30_000)

  afterAll(async () => {
    for (const s of sockets) s.close()
    await Promise.all(nodes.map((node, i) => stop(node, dataDirs[i]).catch(() => {})))
  })

  const aliceOn = (node: ServiceProcess) => ({ ...alice, client: client4(node.url, alice.client.getToken()) })

  it("delivers to a socket on process A a post made through process B, and resumes on B with nothing lost", async () => {
    const bobSocket = track(new MattermostSocket(wsUrl(nodeA.url), bob.client.getToken(), { retryMs: 60_000 }))
    await bobSocket.connect()
    const hello = await bobSocket.hello()

    await say(aliceOn(nodeB), channelId, "made on B")
    const event = await bobSocket.waitFor(posted("made on B"), "the post from B")
    expect(event.data).toMatchObject({ channel_type: "O", sender_name: `@${alice.user.username}` })

    bobSocket.drop()
    await say(aliceOn(nodeB), channelId, "missed via B")
    await say(aliceOn(nodeA), channelId, "missed via A")
    await bobSocket.moveTo(wsUrl(nodeB.url))
    expect(bobSocket.urls.at(-1)).toContain(`connection_id=${String(hello.data?.connection_id)}`)
    await bobSocket.waitFor(posted("missed via A"), "the replayed posts")
    await say(aliceOn(nodeA), channelId, "live on B")
    await bobSocket.waitFor(posted("live on B"), "a live post on B")

    expectSeamless(bobSocket, ["made on B", "missed via B", "missed via A", "live on B"])
  })

  it("counts max_simultaneous_connections across the processes and reports the user offline only when the last socket closes", async () => {
    const db = new pg.Client({ connectionString: databaseUrl })
    await db.connect()
    const setMax = (max: number) =>
      db.query(`UPDATE server_config SET value = value || $1::jsonb WHERE section = 'site'`, [JSON.stringify({ max_simultaneous_connections: max })])
    try {
      for (const s of sockets.splice(0)) s.close()
      await setMax(2)
      await expectLimitAcrossNodes([nodeA.url, nodeB.url], bob, alice, track)
    } finally {
      await setMax(10)
      await db.end()
    }
  })

  it("hands a stopping process's connections over: the client resumes on the other process with no new hello and nothing missed", async () => {
    for (const s of sockets.splice(0)) s.close()
    const bobSocket = track(new MattermostSocket(wsUrl(nodeA.url), bob.client.getToken(), { retryMs: 60_000 }))
    await bobSocket.connect()
    const hello = await bobSocket.hello()
    await say(aliceOn(nodeB), channelId, "before the restart")
    await bobSocket.waitFor(posted("before the restart"), "the first post")

    const stopping = Date.now()
    nodeA.child.kill("SIGTERM")
    await eventually(() => bobSocket.closes.length > 0 ? true : undefined, "the 1001 close", 10_000)
    // Posted while the client is between sockets: the stopping process still numbers it for the connection.
    await say(aliceOn(nodeB), channelId, "during the restart")
    await bobSocket.moveTo(wsUrl(nodeB.url))
    expect(bobSocket.urls.at(-1)).toContain(`connection_id=${String(hello.data?.connection_id)}`)
    await bobSocket.waitFor(posted("during the restart"), "the post made while moving", 10_000).catch((e: Error) => {
      throw new Error(`${e.message}: hellos ${bobSocket.named("hello").length}, exited ${nodeA.child.exitCode}, events ${JSON.stringify(bobSocket.events.map((f) => f.event))}\nprocess A:\n${nodeA.output().slice(-3000)}\nprocess B:\n${nodeB.output().slice(-3000)}`)
    })
    await say(aliceOn(nodeB), channelId, "after the restart")
    await bobSocket.waitFor(posted("after the restart"), "a live post on B")
    expectSeamless(bobSocket, ["before the restart", "during the restart", "after the restart"])

    expect(await nodeA.exited).toBe(0)
    const took = Date.now() - stopping
    console.log(`[realtime] SIGTERM to exit with one connection handed over: ${took} ms`)
    expect(took).toBeLessThan(30_000)
  }, 60_000)
})

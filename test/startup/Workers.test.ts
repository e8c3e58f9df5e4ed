import type { Post } from "@mattermost/types/posts"
import { get } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { FROM_BUILD, runCli } from "../cli/Cli.ts"
import { tempDir } from "../support/Cleanup.ts"
import { createTestDatabase, hasRedis, redisUrl } from "../support/Databases.ts"
import type { TestServer } from "../support/TestServer.ts"
import { type Member, teamWithChannel } from "../realtime/Fixture.ts"
import { eventually, RawSocket, wsUrl } from "../realtime/Sockets.ts"
import { clusterEnv, freePort, type ServiceProcess, startProcess, stop, waitUntilLive } from "./Process.ts"

/**
 * SERVICE_WORKERS=2, as an operator runs it to use a machine's cores: one process listening on one port, two worker
 * processes behind it, each a node of the cluster meeting the other in PostgreSQL and Redis. Sockets land on both
 * workers, a post reaches sockets on either, a worker that dies is replaced while the other keeps answering, and
 * SIGTERM stops them all with exit code 0.
 */
const withRedis = hasRedis() ? describe : describe.skip
if (!hasRedis()) console.log("[startup] Redis is not reachable: the worker-process tests are skipped")

/** Generous: the whole suite shares two cores, and each worker starts a full service. */
const LIVE_WITHIN_MS = 180_000
const dataDir = tempDir("service-workers-", { shared: true })
let service: ServiceProcess | undefined
const sockets: Array<RawSocket> = []

/** The pids of the workers the supervisor reported listening, in order. */
const listeningPids = () =>
  (service?.logs() ?? []).filter((l) => l.message === "worker listening").map((l) => Number(l.annotations.pid))

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** GET /api/v4/system/ping on a connection of its own (no keep-alive pool), answering its status. */
const pingOnNewConnection = (url: string) =>
  new Promise<number>((resolve, reject) => {
    const req = get(`${url}/api/v4/system/ping`, { agent: false }, (res) => {
      res.resume()
      res.on("end", () => resolve(res.statusCode ?? 0))
    })
    req.on("error", reject)
  })

afterAll(async () => {
  for (const s of sockets) s.close()
  if (service !== undefined) await stop(service, dataDir).catch(() => {})
})

withRedis("SERVICE_WORKERS=2", () => {
  let alice: Member
  let bob: Member
  let channelId: string

  beforeAll(async () => {
    service = startProcess({
      SERVICE_WORKERS: "2",
      SERVICE_PORT: String(await freePort()),
      SERVICE_DATA_DIR: dataDir,
      ...clusterEnv(await createTestDatabase(), redisUrl()),
      SERVICE_LOG_LEVEL: "info"
    }, FROM_BUILD) // the production build: three processes (and a replacement) start much faster than through tsx
    await waitUntilLive(service, LIVE_WITHIN_MS)
    await eventually(() => listeningPids().length === 2 ? true : undefined, "both workers listening", LIVE_WITHIN_MS)
    const setup = await teamWithChannel({ url: service.url } as TestServer, ["wka", "wkb"])
    ;[alice, bob] = setup.users
    channelId = setup.channel.id
    await alice.client.addToChannel(bob.user.id, channelId)
  }, 2 * LIVE_WITHIN_MS + 30_000)

  it("runs two worker processes behind one port; sockets land on both, and a post reaches sockets on either", async () => {
    const [first, second] = listeningPids()
    expect(first).not.toBe(second)
    expect(alive(first) && alive(second)).toBe(true)
    // Connections are handed to the workers in turn: a few sockets are enough to see both node ids.
    const byNode = new Map<string, RawSocket>()
    for (let seq = 1; seq <= 12 && byNode.size < 2; seq++) {
      const socket = new RawSocket(wsUrl(service!.url), { headers: { authorization: `Bearer ${bob.client.getToken()}` } })
      sockets.push(socket)
      await socket.waitFor((f) => f.event === "hello", "hello", 20_000)
      socket.send({ action: "ping", seq })
      const pong = await socket.reply(seq, 20_000)
      byNode.set(String((pong.data as { node_id?: string }).node_id), socket)
    }
    expect(byNode.size).toBe(2)
    const post: Post = await alice.client.createPost({ channel_id: channelId, message: "to every worker" } as Post)
    for (const socket of byNode.values()) {
      const frame = await socket.waitFor((f) => f.event === "posted", "posted", 20_000)
      expect(JSON.parse(String((frame.data as { post: string }).post))).toMatchObject({ id: post.id, message: "to every worker" })
    }
  })

  it("replaces a worker that dies while the other keeps answering", async () => {
    const [victim, survivor] = listeningPids()
    process.kill(victim, "SIGKILL")
    const exitLine = await eventually(
      () => service!.logs().find((l) => String(l.message).startsWith("worker exited with code")),
      "the supervisor seeing the worker exit",
      10_000
    )
    expect(exitLine.logLevel).toBe("ERROR")
    expect(exitLine.annotations.pid).toBe(victim)
    // The survivor serves every new connection meanwhile (connections the dead worker held died with it).
    for (let i = 0; i < 4; i++) expect(await pingOnNewConnection(service!.url)).toBe(200)
    const replaced = await eventually(
      () => listeningPids().slice(2).find((pid) => pid !== victim && pid !== survivor),
      "a replacement worker listening",
      LIVE_WITHIN_MS
    )
    expect(alive(replaced) && alive(survivor)).toBe(true)
    expect((await bob.client.getMe()).id).toBe(bob.user.id)
  }, LIVE_WITHIN_MS + 30_000)

  it("stops every worker on SIGTERM and exits 0", async () => {
    const pids = listeningPids()
    expect(await stop(service!, dataDir, 60_000)).toBe(0)
    expect(pids.filter(alive)).toEqual([])
    expect(service!.logs().some((l) => l.message === "all workers stopped")).toBe(true)
  }, 70_000)
})

describe("SERVICE_WORKERS without PostgreSQL and Redis", () => {
  it("is refused by --check-config, naming both variables", async () => {
    const result = await runCli(["--check-config"], { SERVICE_WORKERS: "2" }, 110_000, FROM_BUILD)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain("SERVICE_DATABASE_URL: required when SERVICE_WORKERS is more than 1")
    expect(result.stderr).toContain("SERVICE_CACHE_URL: required when SERVICE_WORKERS is more than 1")
    const zero = await runCli(["--check-config"], { SERVICE_WORKERS: "0" }, 110_000, FROM_BUILD)
    expect(zero.code).toBe(1)
    expect(zero.stderr).toContain("SERVICE_WORKERS")
  }, 120_000)
})

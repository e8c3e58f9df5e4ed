import type { Post } from "@mattermost/types/posts"
import { get } from "node:http"
import { availableParallelism } from "node:os"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { FROM_BUILD, runCli } from "../cli/Cli.ts"
import { tempDir } from "../support/Cleanup.ts"
import { createTestDatabase, hasRedis, redisUrl } from "../support/Databases.ts"
import type { TestServer } from "../support/TestServer.ts"
import { type Member, pairInChannel, teamWithChannel } from "../realtime/Fixture.ts"
import { eventually, RawSocket, wsUrl } from "../realtime/Sockets.ts"
import { clusterEnv, freePort, type ServiceProcess, startProcess, stop, waitUntilLive } from "./Process.ts"

/**
 * SERVICE_WORKERS=2, as an operator runs it to use a machine's cores: one process listening on one port, two worker
 * processes behind it, each a node of the cluster meeting the other in PostgreSQL and Redis. Sockets land on both
 * workers, a post reaches sockets on either, a worker that dies is replaced while the other keeps answering, and
 * SIGTERM stops them all with exit code 0. SERVICE_WORKERS=auto runs one worker per core on PostgreSQL and Redis,
 * and one process (saying why) without them.
 */
const withRedis = hasRedis() ? describe : describe.skip
if (!hasRedis()) console.log("[startup] Redis is not reachable: the worker-process tests are skipped")

/** Generous: the whole suite shares two cores, and each worker starts a full service. */
const LIVE_WITHIN_MS = 180_000
const dataDir = tempDir("service-workers-", { shared: true })
let service: ServiceProcess | undefined
const sockets: Array<RawSocket> = []

/** The pids of the workers the supervisor reported listening, in order. */
const listeningPids = (of = service) =>
  (of?.logs() ?? []).filter((l) => l.message === "worker listening").map((l) => Number(l.annotations.pid))

/**
 * Sockets on `url` keyed by the node id each one's ping answered with, opened until `nodes` distinct ids answered (or 6
 * sockets per node were tried): connections are handed to the workers in turn, so a few are enough to reach each.
 */
const socketsByNode = async (url: string, token: string, nodes: number) => {
  const byNode = new Map<string, RawSocket>()
  for (let seq = 1; seq <= 6 * nodes && byNode.size < nodes; seq++) {
    const socket = new RawSocket(wsUrl(url), { headers: { authorization: `Bearer ${token}` } })
    sockets.push(socket)
    await socket.waitFor((f) => f.event === "hello", "hello", 20_000)
    socket.send({ action: "ping", seq })
    const pong = await socket.reply(seq, 20_000)
    byNode.set(String((pong.data as { node_id?: string }).node_id), socket)
  }
  return byNode
}

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

/**
 * The service with SERVICE_WORKERS=`setting` on a fresh database and Redis, from the production build: three
 * processes (and a replacement) start much faster than through tsx. A stop skips the drain and waits a second for
 * sockets to resume elsewhere (the defaults, 5 s and 6 s, are test/startup/Shutdown.test.ts's): what these tests ask
 * of a stop is that every worker ends and the supervisor exits 0.
 */
const startWorkers = async (setting: string, dir: string) =>
  startProcess({
    SERVICE_WORKERS: setting,
    SERVICE_PORT: String(await freePort()),
    SERVICE_DATA_DIR: dir,
    ...clusterEnv(await createTestDatabase(), redisUrl()),
    SERVICE_LOG_LEVEL: "info",
    SERVICE_SHUTDOWN_DRAIN_MS: "0",
    SERVICE_SHUTDOWN_HANDOVER_MS: "1000"
  }, FROM_BUILD)

afterAll(async () => {
  for (const s of sockets) s.close()
  if (service !== undefined) await stop(service, dataDir).catch(() => {})
})

withRedis("SERVICE_WORKERS=2", () => {
  let alice: Member
  let bob: Member
  let channelId: string

  beforeAll(async () => {
    service = await startWorkers("2", dataDir)
    await waitUntilLive(service, LIVE_WITHIN_MS)
    await eventually(() => listeningPids().length === 2 ? true : undefined, "both workers listening", LIVE_WITHIN_MS)
    ;({ users: [alice, bob], channelId } = await pairInChannel(service.url, ["wka", "wkb"]))
  }, 2 * LIVE_WITHIN_MS + 30_000)

  it("runs two worker processes behind one port; sockets land on both, and a post reaches sockets on either", async () => {
    const [first, second] = listeningPids()
    expect(first).not.toBe(second)
    expect(alive(first) && alive(second)).toBe(true)
    const byNode = await socketsByNode(service!.url, bob.client.getToken(), 2)
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

withRedis("SERVICE_WORKERS=split", () => {
  const splitDir = tempDir("service-workers-split-", { shared: true })
  let split: ServiceProcess | undefined
  let carol: Member
  let dave: Member
  let channelId: string

  /** The pid the supervisor reported listening for `role`, the latest first (a replacement comes after). */
  const pidsOf = (role: string) =>
    (split?.logs() ?? []).filter((l) => l.message === "worker listening" && l.annotations.role === role).map((l) => Number(l.annotations.pid)).reverse()
  const liveStats = async () =>
    (await (await fetch(`${split!.url}/api/v1/health/stats`)).json()) as { websocket_connections: number }

  afterAll(async () => {
    if (split !== undefined) await stop(split, splitDir, 60_000).catch(() => {})
  })

  beforeAll(async () => {
    split = await startWorkers("split", splitDir)
    await waitUntilLive(split, LIVE_WITHIN_MS)
    await eventually(() => pidsOf("http").length === 1 && pidsOf("sockets").length === 1 ? true : undefined, "both workers listening", LIVE_WITHIN_MS)
    ;({ users: [carol, dave], channelId } = await pairInChannel(split.url, ["wsa", "wsb"]))
  }, 2 * LIVE_WITHIN_MS + 30_000)

  it("answers HTTP in one worker and holds every socket in the other; a post reaches them all", async () => {
    expect(split!.logs().find((l) => String(l.message).startsWith("SERVICE_WORKERS=split:"))).toMatchObject({
      logLevel: "INFO",
      message: "SERVICE_WORKERS=split: 2 worker processes, one answering HTTP and one holding the realtime sockets"
    })
    expect(pidsOf("http")[0]).not.toBe(pidsOf("sockets")[0])
    // Every socket lands on one node, whichever connection it came on.
    const nodes = new Set<string>()
    const mine: Array<RawSocket> = []
    for (let seq = 1; seq <= 4; seq++) {
      const socket = new RawSocket(wsUrl(split!.url), { headers: { authorization: `Bearer ${dave.client.getToken()}` } })
      sockets.push(socket)
      mine.push(socket)
      await socket.waitFor((f) => f.event === "hello", "hello", 20_000)
      socket.send({ action: "ping", seq })
      nodes.add(String(((await socket.reply(seq, 20_000)).data as { node_id?: string }).node_id))
    }
    expect(nodes.size).toBe(1)
    // The node answering HTTP holds none of them (the stats count this node's sockets).
    expect((await liveStats()).websocket_connections).toBe(0)
    const post: Post = await carol.client.createPost({ channel_id: channelId, message: "from the HTTP worker to the sockets worker" } as Post)
    for (const socket of mine) {
      const frame = await socket.waitFor((f) => f.event === "posted", "posted", 20_000)
      expect(JSON.parse(String((frame.data as { post: string }).post))).toMatchObject({ id: post.id })
    }
    // A socket's own requests are served where it is: its action reaches the HTTP worker's clients through the bus.
    const typing = mine[1]
    typing.send({ action: "user_typing", seq: 10, data: { channel_id: channelId } })
    expect((await typing.reply(10, 20_000)).status).toBe("OK")
  })

  it("refuses a socket without a valid token from the sockets worker, as a single process does", async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = get(`${split!.url}/api/v1/ws`, {
        agent: false,
        headers: { connection: "Upgrade", upgrade: "websocket", "sec-websocket-version": "13", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==", authorization: "Bearer nope" }
      }, (res) => {
        res.resume()
        resolve(res.statusCode ?? 0)
      })
      req.on("upgrade", () => reject(new Error("upgraded with an invalid token")))
      req.on("error", reject)
    })
    expect(status).toBe(401)
  })

  it("replaces a sockets worker that dies; clients reconnect to the replacement while HTTP keeps answering", async () => {
    const [victim] = pidsOf("sockets")
    process.kill(victim, "SIGKILL")
    for (let i = 0; i < 4; i++) expect(await pingOnNewConnection(split!.url)).toBe(200)
    const replaced = await eventually(() => pidsOf("sockets").find((pid) => pid !== victim), "a replacement sockets worker listening", LIVE_WITHIN_MS)
    expect(alive(replaced)).toBe(true)
    const socket = new RawSocket(wsUrl(split!.url), { headers: { authorization: `Bearer ${dave.client.getToken()}` } })
    sockets.push(socket)
    await socket.waitFor((f) => f.event === "hello", "hello", 20_000)
    const post: Post = await carol.client.createPost({ channel_id: channelId, message: "after the replacement" } as Post)
    const frame = await socket.waitFor((f) => f.event === "posted", "posted", 20_000)
    expect(JSON.parse(String((frame.data as { post: string }).post))).toMatchObject({ id: post.id })
  }, LIVE_WITHIN_MS + 30_000)

  it("stops both workers on SIGTERM and exits 0", async () => {
    const pids = [...pidsOf("http"), ...pidsOf("sockets")]
    expect(await stop(split!, splitDir, 60_000)).toBe(0)
    expect(pids.filter(alive)).toEqual([])
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

/** What SERVICE_WORKERS=auto resolves to on this machine when PostgreSQL and Redis are external. */
const CORES = Math.min(64, availableParallelism())
const checkConfig = (vars: Record<string, string>) => runCli(["--check-config"], vars, 110_000, FROM_BUILD)
const EXTERNAL = { SERVICE_DATABASE_URL: "postgres://chat@db.internal:5432/chat", SERVICE_CACHE_URL: "redis://cache.internal:6379" }

describe.concurrent("SERVICE_WORKERS=auto in --check-config", { timeout: 120_000 }, () => {
  it("is one worker per core with SERVICE_DATABASE_URL and SERVICE_CACHE_URL, with no notice", async () => {
    const result = await checkConfig({ SERVICE_WORKERS: "auto", ...EXTERNAL })
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^configuration valid:/)
    expect(result.stdout).toMatch(new RegExp(`listen\\s+0\\.0\\.0\\.0:3000${CORES > 1 ? `, ${CORES} worker processes` : ""}\\n`))
    expect(result.stdout).toMatch(new RegExp(`workers\\s+SERVICE_WORKERS=auto: ${CORES > 1 ? `${CORES} worker processes` : "1 process"}, one per core \\(${availableParallelism()} available`))
    expect(result.stderr).not.toContain("SERVICE_WORKERS")
  })

  it("is 1 without them, a notice naming each missing variable and not an error, also in production", async () => {
    const neither = await checkConfig({ SERVICE_WORKERS: "auto" })
    expect(neither.code).toBe(0)
    expect(neither.stderr).toMatch(/i SERVICE_DATABASE_URL: not set: SERVICE_WORKERS=auto runs 1 process \(worker processes cannot share the embedded database\) \(notice\)\n\s+hint: /)
    expect(neither.stderr).toMatch(/i SERVICE_CACHE_URL: not set: SERVICE_WORKERS=auto runs 1 process \(worker processes cannot share the in-memory cache and event bus\) \(notice\)\n\s+hint: /)
    expect(neither.stdout).toContain("configuration valid (2 notices)")
    expect(neither.stdout).toMatch(/listen\s+0\.0\.0\.0:3000\n/)
    expect(neither.stdout).toMatch(/workers\s+SERVICE_WORKERS=auto: 1 process, since SERVICE_DATABASE_URL and SERVICE_CACHE_URL are not set/)
    // A single node in production on PostgreSQL with the in-memory cache is valid, and stays so with auto.
    const production = await checkConfig({
      SERVICE_WORKERS: "auto",
      SERVICE_ENVIRONMENT: "production",
      SERVICE_JWT_SECRET: "Vh3kP9qW2mZx7Lr5Tn8Bc4Fd6Gs1Jy0E",
      SERVICE_ENCRYPTION_KEY: "Nq7Zt2Wx5Km9Pr3Hv8Ld1Fs6Bj4Gc0Ya",
      SERVICE_SITE_URL: "https://chat.example.com",
      SERVICE_DATABASE_URL: EXTERNAL.SERVICE_DATABASE_URL
    })
    expect(production.code).toBe(0)
    expect(production.stderr).toMatch(/i SERVICE_CACHE_URL: not set: SERVICE_WORKERS=auto runs 1 process/)
    expect(production.stderr).not.toContain("SERVICE_DATABASE_URL")
    expect(production.stdout).toContain("configuration valid (1 notice)")
    expect(production.stdout).toMatch(/workers\s+SERVICE_WORKERS=auto: 1 process, since SERVICE_CACHE_URL is not set \(worker processes cannot share the in-memory cache and event bus\)/)
  })

  it("refuses a value that is neither auto nor a number of workers, saying auto is allowed", async () => {
    for (const value of ["lots", "2.5", "65"]) {
      const result = await checkConfig({ SERVICE_WORKERS: value, ...EXTERNAL })
      expect(result.code).toBe(1)
      expect(result.stderr).toContain(`✗ SERVICE_WORKERS: must be auto, split or an integer between 1 and 64, not "${value}"`)
      expect(result.stderr).toMatch(/\n\s+hint: auto \(one per core when SERVICE_DATABASE_URL and SERVICE_CACHE_URL are set, otherwise 1\)/)
    }
    // Integers read as before: 3 workers are 3 whatever the cores.
    const three = await checkConfig({ SERVICE_WORKERS: "3", ...EXTERNAL })
    expect(three.code).toBe(0)
    expect(three.stdout).toMatch(/listen\s+0\.0\.0\.0:3000, 3 worker processes\n/)
    expect(three.stdout).not.toMatch(/workers\s+SERVICE_WORKERS/)
  })
})

/** This machine has the cores for auto to mean more than one worker. */
const withCores = hasRedis() && CORES > 1 ? describe : describe.skip
if (CORES < 2) console.log("[startup] one core: SERVICE_WORKERS=auto runs one process here, and its worker-process test is skipped")

withCores("SERVICE_WORKERS=auto on PostgreSQL and Redis", () => {
  const autoDir = tempDir("service-workers-auto-", { shared: true })
  let auto: ServiceProcess | undefined

  afterAll(async () => {
    if (auto !== undefined) await stop(auto, autoDir, 60_000).catch(() => {})
  })

  it("runs one worker per core, says so in its log, and sockets land on every worker", async () => {
    auto = await startWorkers("auto", autoDir)
    await waitUntilLive(auto, LIVE_WITHIN_MS)
    await eventually(() => listeningPids(auto).length === CORES ? true : undefined, `${CORES} workers listening`, LIVE_WITHIN_MS)
    const choice = auto.logs().find((l) => String(l.message).startsWith("SERVICE_WORKERS=auto:"))
    expect(choice).toMatchObject({
      logLevel: "INFO",
      message: `SERVICE_WORKERS=auto: ${CORES} worker processes, one per core (${availableParallelism()} available${CORES < availableParallelism() ? ", at most 64 workers" : ""})`,
      annotations: { workers: CORES }
    })
    expect(auto.logs().some((l) => l.message === `starting ${CORES} worker processes`)).toBe(true)
    expect(new Set(listeningPids(auto)).size).toBe(CORES)
    const { users: [carol] } = await teamWithChannel({ url: auto.url } as TestServer, ["wkc"])
    const byNode = await socketsByNode(auto.url, carol.client.getToken(), CORES)
    expect(byNode.size).toBe(CORES)
    expect(await stop(auto, autoDir, 60_000)).toBe(0)
    expect(listeningPids(auto).filter(alive)).toEqual([])
  }, 2 * LIVE_WITHIN_MS + 90_000)
})

describe("SERVICE_WORKERS=auto without Redis", () => {
  const singleDir = tempDir("service-workers-auto-single-", { shared: true })
  let single: ServiceProcess | undefined

  afterAll(async () => {
    if (single !== undefined) await stop(single, singleDir, 60_000).catch(() => {})
  })

  it("runs the server in one process and logs why", async () => {
    const { SERVICE_CACHE_URL: _cache, ...env } = clusterEnv(await createTestDatabase(), redisUrl())
    single = startProcess({ SERVICE_WORKERS: "auto", SERVICE_PORT: String(await freePort()), SERVICE_DATA_DIR: singleDir, ...env, SERVICE_LOG_LEVEL: "info", SERVICE_SHUTDOWN_DRAIN_MS: "0" }, FROM_BUILD)
    await waitUntilLive(single, LIVE_WITHIN_MS)
    const choice = single.logs().find((l) => String(l.message).startsWith("SERVICE_WORKERS=auto:"))
    expect(choice).toMatchObject({
      logLevel: "INFO",
      message: "SERVICE_WORKERS=auto: 1 process, since SERVICE_CACHE_URL is not set (worker processes cannot share the in-memory cache and event bus)",
      annotations: { workers: 1 }
    })
    expect(single.logs().filter((l) => l.message === "worker listening" || /^starting \d+ worker processes$/.test(String(l.message)))).toEqual([])
    expect(await stop(single, singleDir, 60_000)).toBe(0)
  }, LIVE_WITHIN_MS + 90_000)
})

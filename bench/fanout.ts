/**
 * Fan-out benchmark (issue 4, Performance): one post delivered to N sockets in one channel, the service against a
 * bare `ws` broadcast server doing the same INSERT, measured in the same run; and memory per idle authenticated
 * socket for both. Targets: delivery p99 within 2x of bare ws, memory per socket within 2x.
 *
 *   node --import tsx bench/fanout.ts [sockets=1000] [rounds=50] [warmup=200]
 *
 * BENCH_ROUNDS=1 prints each timed round's first and last arrival; BENCH_CPUPROF=/path/prefix writes a CPU profile of
 * the timed rounds of each server; BENCH_SNAPSHOT=/path/prefix writes heap snapshots around the socket halves.
 *
 * PostgreSQL: BENCH_PG_URL (an admin URL; a scratch database is created and dropped), default
 * postgres://postgres@127.0.0.1:5432/postgres. Cache and bus are in memory (one node). The clients run in a worker
 * thread so that the main thread's heap holds only the server under test.
 */
import { HttpServer } from "@effect/platform"
import { ConfigProvider, Effect, Layer, Logger, LogLevel, ManagedRuntime, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { mkdtempSync, writeFileSync } from "node:fs"
import inspector from "node:inspector"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { setFlagsFromString, writeHeapSnapshot } from "node:v8"
import { runInNewContext } from "node:vm"
import { createRequire } from "node:module"
import { Worker } from "node:worker_threads"
import pg from "pg"
import { type WebSocket, WebSocketServer } from "ws"
import { newId } from "../layers/Crypto.ts"
import { Db } from "../layers/Db.ts"
import { Sessions } from "../src/auth/Sessions.ts"
import { rawConfig, type ResolvedConfig } from "../src/Config.ts"
import { httpServer, makeServer } from "../src/Server.ts"
import { procReading } from "./lib.ts"

const require = createRequire(import.meta.url)
const SOCKETS = Number(process.argv[2] ?? 1000)
const ROUNDS = Number(process.argv[3] ?? 50)
/** Users outside the channel whose sockets warm each server up before it is measured. */
const WARMUP = Number(process.argv[4] ?? 200)
/**
 * How often the warm-up sockets connect and close before the readings: the optimizing compiler only takes a
 * function on after many calls, and code it compiles while the measured sockets connect would be counted per socket.
 */
const WARMUP_PASSES = 3
/**
 * Posts delivered before the timed ones: the first posts run code no request has run yet (compiled then, and
 * optimized a few posts later), which a server pays once, not per post.
 */
const WARM_POSTS = 30
const now = () => performance.timeOrigin + performance.now()

/**
 * Worker side, as plain JavaScript (worker threads do not inherit the TypeScript loader): N sockets; reports when
 * the first `half` are open and waits to be told to go on, reports when all are open, then the arrival time of each
 * round's post at each socket.
 */
const CLIENTS = `
const { parentPort, workerData } = require("node:worker_threads")
const { WebSocket } = require(workerData.wsPath)
const now = () => performance.timeOrigin + performance.now()
const arrivals = new Map()
const sockets = []
const onFrame = (raw) => {
  const at = now()
  const text = String(raw)
  const match = /bench-(\\d+)/.exec(text)
  if (match === null || !text.includes('"posted"')) return
  const round = Number(match[1])
  const list = arrivals.get(round) ?? []
  list.push(at)
  arrivals.set(round, list)
  if (list.length === workerData.tokens.length) parentPort.postMessage({ type: "round", round, arrivals: list, bytes: raw.length })
}
let goOn
const halfway = new Promise((resolve) => (goOn = resolve))
const run = async () => {
  let opened = 0
  for (let i = 0; i < workerData.tokens.length; i += 100) {
    if (i === workerData.half) {
      parentPort.postMessage({ type: "half", opened })
      await halfway
    }
    await Promise.all(workerData.tokens.slice(i, i + 100).map((token) =>
      new Promise((resolve, reject) => {
        const ws = new WebSocket(workerData.url, { headers: { Authorization: "Bearer " + token } })
        ws.on("message", onFrame)
        ws.once("message", () => resolve())
        ws.on("error", reject)
        sockets.push(ws)
      }).then(() => void opened++)))
  }
  parentPort.postMessage({ type: "ready", opened })
}
parentPort.on("message", (m) => {
  if (m.type === "continue") return goOn()
  if (m.type !== "close") return
  for (const ws of sockets) ws.terminate()
  parentPort.postMessage({ type: "closed" })
})
run().catch((e) => parentPort.postMessage({ type: "ready", opened: -1, error: String(e) }))
`

const gc = (() => {
  setFlagsFromString("--expose-gc")
  // Bytecode of functions idle across collections is dropped; without this, code flushed between the two readings
  // would be subtracted from the sockets' share.
  setFlagsFromString("--no-flush-bytecode")
  return runInNewContext("gc") as () => void
})()

/** Heap in use once it has settled: work still in flight (closing sockets, queries) would otherwise be counted. */
const heap = async () => {
  let last = Number.POSITIVE_INFINITY
  for (let i = 0; i < 20; i++) {
    gc()
    await new Promise((r) => setTimeout(r, 100))
    const used = process.memoryUsage().heapUsed
    if (Math.abs(used - last) < 32 * 1024) return used
    last = used
  }
  return last
}

/** A CPU profile of the timed rounds only (BENCH_CPUPROF=/path/prefix), for finding where delivery time goes. */
const startProfile = async () => {
  const session = new inspector.Session()
  session.connect()
  const post = (method: string, params?: object) =>
    new Promise<any>((resolve, reject) => session.post(method, params, (error, result) => error ? reject(error) : resolve(result)))
  await post("Profiler.enable")
  await post("Profiler.setSamplingInterval", { interval: 100 })
  await post("Profiler.start")
  return {
    stop: async (file: string) => {
      const { profile } = await post("Profiler.stop")
      writeFileSync(file, JSON.stringify(profile))
      session.disconnect()
    }
  }
}

/**
 * CPU time of the calling thread in µs (utime + stime of /proc/thread-self/stat, read by lib's procReading): the main
 * thread holds the server under test and the posting client, the client sockets are read in a worker thread, so
 * this is the server's side of each delivery (on loopback the kernel's receive processing runs in the writer's
 * system call and is counted here too). Node 20 has no per-thread CPU reading of its own (process.threadCpuUsage
 * came in 23.9).
 */
const threadCpuUs = () => (procReading("thread-self")?.cpu ?? 0) * 1e6

const percentile = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]

interface Result {
  readonly name: string
  readonly bytesPerSocket: number
  readonly marginalBytesPerSocket: number
  readonly p50: number
  readonly p99: number
  readonly max: number
  /** The POST alone (send to response), p50: what the write costs before any fan-out. */
  readonly postP50: number
  /** Send to the first socket's arrival, p50: the write path before fan-out. */
  readonly firstP50: number
  /** Size of the `posted` frame each socket received. */
  readonly frameBytes: number
  /** The main thread's CPU over the timed rounds per delivery (the POST's own share included): see threadCpuUs. */
  readonly cpuUsPerDelivery: number
}

type WorkerMessage = { type: string; round?: number; arrivals?: Array<number>; opened?: number; bytes?: number }

/**
 * A worker thread with one client socket per token, connected once `ready` resolves; it stops after the first
 * `half` (a multiple of 100) until `resume`.
 */
const clients = (url: string, tokens: ReadonlyArray<string>, half = -1) => {
  const worker = new Worker(CLIENTS, { eval: true, workerData: { url, tokens, half, wsPath: require.resolve("ws") } })
  const messages: Array<WorkerMessage> = []
  const waiters: Array<() => void> = []
  worker.on("message", (m) => {
    messages.push(m)
    for (const w of waiters.splice(0)) w()
  })
  const next = async (type: string, round?: number) => {
    for (;;) {
      const found = messages.find((m) => m.type === type && (round === undefined || m.round === round))
      if (found !== undefined) return found
      await new Promise<void>((r) => waiters.push(r))
    }
  }
  return {
    halfway: async (name: string) => {
      const reached = await next("half")
      if (reached.opened !== half) throw new Error(`${name}: only ${reached.opened} sockets opened`)
    },
    resume: () => worker.postMessage({ type: "continue" }),
    ready: async (name: string) => {
      const ready = await next("ready")
      if (ready.opened !== tokens.length) throw new Error(`${name}: only ${ready.opened} sockets opened`)
    },
    next,
    close: async () => {
      worker.postMessage({ type: "close" })
      await next("closed")
      await worker.terminate()
    }
  }
}

/**
 * Warms the server up with a few sockets of other users, connects the clients in two halves with a heap reading
 * before, between and after, then times ROUNDS posts from send to each arrival. Per socket: the average over all
 * sockets (one-off costs included: code compiled, tables grown, caches filled on first use) and the marginal cost
 * of the second half, which is what each further idle socket takes.
 */
const measure = async (
  name: string,
  url: string,
  tokens: { readonly measured: ReadonlyArray<string>; readonly warmup: ReadonlyArray<string> },
  post: (round: number) => Promise<void>
): Promise<Result> => {
  for (let pass = 0; pass < WARMUP_PASSES; pass++) {
    const warmup = clients(url, tokens.warmup)
    await warmup.ready(`${name} warm-up`)
    await warmup.close()
  }
  const before = await heap()
  if (process.env.BENCH_SNAPSHOT !== undefined) writeHeapSnapshot(`${process.env.BENCH_SNAPSHOT}-${name.replace(/\W+/g, "_")}-before.heapsnapshot`)
  const count = tokens.measured.length
  const half = Math.floor(count / 200) * 100
  const measured = clients(url, tokens.measured, half)
  await measured.halfway(name)
  const middle = await heap()
  if (process.env.BENCH_SNAPSHOT !== undefined) writeHeapSnapshot(`${process.env.BENCH_SNAPSHOT}-${name.replace(/\W+/g, "_")}-half.heapsnapshot`)
  measured.resume()
  await measured.ready(name)
  const after = await heap()
  if (process.env.BENCH_SNAPSHOT !== undefined) writeHeapSnapshot(`${process.env.BENCH_SNAPSHOT}-${name.replace(/\W+/g, "_")}.heapsnapshot`)
  const latencies: Array<number> = []
  const posts: Array<number> = []
  const firsts: Array<number> = []
  let frameBytes = 0
  const profiler = process.env.BENCH_CPUPROF === undefined ? undefined : await startProfile()
  let cpuBefore = 0
  for (let round = 0; round < WARM_POSTS + ROUNDS; round++) {
    if (round === WARM_POSTS) cpuBefore = threadCpuUs()
    const sent = now()
    await post(round)
    const posted = now() - sent
    const done = await measured.next("round", round)
    if (round < WARM_POSTS) continue
    posts.push(posted)
    for (const at of done.arrivals ?? []) latencies.push(at - sent)
    firsts.push(Math.min(...(done.arrivals ?? [])) - sent)
    if (process.env.BENCH_ROUNDS) console.log(name, round, (Math.min(...done.arrivals!) - sent).toFixed(1), (Math.max(...done.arrivals!) - sent).toFixed(1))
    frameBytes = done.bytes ?? 0
  }
  const cpuUs = threadCpuUs() - cpuBefore
  if (profiler !== undefined) await profiler.stop(`${process.env.BENCH_CPUPROF}-${name.replace(/\W+/g, "_")}.cpuprofile`)
  await measured.close()
  latencies.sort((a, b) => a - b)
  posts.sort((a, b) => a - b)
  firsts.sort((a, b) => a - b)
  return {
    firstP50: percentile(firsts, 50),
    frameBytes,
    cpuUsPerDelivery: cpuUs / Math.max(1, latencies.length),
    postP50: percentile(posts, 50),
    name,
    bytesPerSocket: Math.round((after - before) / count),
    marginalBytesPerSocket: Math.round((after - middle) / (count - half)),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies[latencies.length - 1]
  }
}

const configFor = (databaseUrl: string): ResolvedConfig => {
  const provider = ConfigProvider.fromMap(new Map(Object.entries({
    SERVICE_DATABASE_URL: databaseUrl,
    SERVICE_DATA_DIR: mkdtempSync(join(tmpdir(), "service-bench-")),
    SERVICE_LOG_LEVEL: "error",
    SERVICE_SECURITY_RATE_LIMIT_WS_PER_MINUTE: "100000",
    SERVICE_SECURITY_RATE_LIMIT_AUTH_PER_MINUTE: "100000",
    // Thousands of sockets from loopback, which the connection cap counts as one client.
    SERVICE_SECURITY_MAX_CONNECTIONS_PER_CLIENT: "0",
    SERVICE_DB_POOL__MAX_CONNECTIONS: "10",
    SERVICE_WS_PING_INTERVAL_MS: process.env.BENCH_PING_MS ?? "30000"
  })))
  const raw = Effect.runSync(Effect.withConfigProvider(rawConfig, provider))
  return {
    ...raw,
    jwtSecretValue: Redacted.make(randomBytes(32).toString("base64")),
    encryptionKeyValue: Redacted.make(randomBytes(32).toString("base64"))
  }
}

/**
 * Users, a team and one channel with everybody but the warm-up users in it, written straight to the database;
 * sessions through the service.
 */
const seed = Effect.gen(function*() {
  const db = yield* Db
  const sessions = yield* Sessions
  const sql = db.sql
  const at = Date.now()
  const users = Array.from({ length: SOCKETS + WARMUP }, (_, i) => ({ id: newId(), username: `bench${i}` }))
  const teamId = newId()
  const channelId = newId()
  yield* db.execute(sql`INSERT INTO teams (id, create_at, update_at, name, display_name, type) VALUES (${teamId}, ${at}, ${at}, 'bench', 'Bench', 'O')`)
  yield* db.execute(sql`INSERT INTO channels (id, create_at, update_at, team_id, type, name, display_name) VALUES (${channelId}, ${at}, ${at}, ${teamId}, 'O', 'bench', 'Bench')`)
  for (let i = 0; i < users.length; i += 500) {
    const batch = users.slice(i, i + 500)
    yield* db.execute(sql`INSERT INTO users ${sql.insert(batch.map((u) => ({ id: u.id, create_at: at, update_at: at, username: u.username, email: `${u.username}@bench.test` })))}`)
    yield* db.execute(sql`INSERT INTO team_members ${sql.insert(batch.map((u) => ({ team_id: teamId, user_id: u.id, roles: "team_user", create_at: at })))}`)
    const members = batch.filter((_, j) => i + j < SOCKETS)
    if (members.length > 0) {
      yield* db.execute(sql`INSERT INTO channel_members ${sql.insert(members.map((u) => ({ channel_id: channelId, user_id: u.id, roles: "channel_user" })))}`)
    }
  }
  const created = yield* Effect.forEach(users, (u) =>
    Effect.map(sessions.create({ userId: u.id, roles: "system_user", lengthMs: 3_600_000 }), (s) => s.token), { concurrency: 10 })
  // Each session is used once, as a client's first REST call would, so that what the session cache does once per
  // session is not counted per socket. The tokens are copied into flat strings: V8 flattens a concatenated string in
  // place the first time it is read whole (here: when handed to the client worker), which would otherwise add
  // the bench's own token copies to the measured heap.
  yield* Effect.forEach(created, (token) => sessions.lookup(token), { concurrency: 10, discard: true })
  const all = created.map((token) => Buffer.from(token, "utf8").toString("utf8"))
  return { users, teamId, channelId, tokens: { measured: all.slice(0, SOCKETS), warmup: all.slice(SOCKETS) } }
})

const benchService = async (databaseUrl: string) => {
  const server = httpServer({ port: 0, host: "127.0.0.1" })
  const runtime = ManagedRuntime.make(makeServer(configFor(databaseUrl), { server }).pipe(Layer.provide(Logger.minimumLogLevel(LogLevel.Error))))
  try {
    const address = await runtime.runPromise(Effect.map(HttpServer.HttpServer, (s) => s.address))
    if (address._tag !== "TcpAddress") throw new Error("expected a TCP address")
    const base = `http://127.0.0.1:${address.port}`
    const data = await runtime.runPromise(seed)
    const result = await measure("service /api/v4/websocket", `ws://127.0.0.1:${address.port}/api/v4/websocket`, data.tokens, async (round) => {
      const res = await fetch(`${base}/api/v4/posts`, {
        method: "POST",
        headers: { Authorization: `Bearer ${data.tokens.measured[0]}`, "Content-Type": "application/json" },
        body: JSON.stringify({ channel_id: data.channelId, message: `bench-${round}` })
      })
      if (res.status !== 201) throw new Error(`post failed: ${res.status} ${await res.text()}`)
    })
    return { result, data }
  } finally {
    await runtime.dispose()
  }
}

/**
 * The baseline: token check against a set, the same INSERT, then one JSON text, the same `posted` event as the
 * service's, encoded once and sent to every socket.
 */
const benchBare = async (
  databaseUrl: string,
  data: { users: Array<{ id: string }>; teamId: string; channelId: string; tokens: { measured: ReadonlyArray<string>; warmup: ReadonlyArray<string> } }
) => {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 })
  // The scratch database is dropped WITH (FORCE) at the end: a client still closing then gets "terminating connection"
  // (57P01), which without a listener would crash the bench after its figures were printed.
  pool.on("connect", (client) => client.on("error", () => {}))
  const known = new Set([...data.tokens.measured, ...data.tokens.warmup])
  const sockets = new Set<WebSocket>()
  const wss = new WebSocketServer({ noServer: true, clientTracking: false })
  const http = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    let body = ""
    for await (const chunk of req) body += String(chunk)
    const { message } = JSON.parse(body) as { message: string }
    const at = Date.now()
    const id = newId()
    await pool.query(
      `INSERT INTO posts (id, create_at, update_at, user_id, channel_id, root_id, message, type, props, hashtags, file_ids, pending_post_id)
       VALUES ($1, $2, $2, $3, $4, '', $5, '', '{}'::jsonb, '', '[]'::jsonb, '')`,
      [id, at, data.users[0].id, data.channelId, message]
    )
    // The same event the service sends (Mattermost's `posted`, full post, channel and sender fields), so that both
    // servers put the same bytes on every socket and the comparison is of the servers, not of the payloads.
    const post = {
      id, create_at: at, update_at: at, edit_at: 0, delete_at: 0, is_pinned: false, user_id: data.users[0].id,
      channel_id: data.channelId, root_id: "", original_id: "", message, type: "", props: {}, hashtags: "",
      pending_post_id: "", reply_count: 0, last_reply_at: 0, participants: null,
      metadata: { embeds: [], emojis: [], files: [], images: {}, reactions: [], acknowledgements: [] }
    }
    const text = JSON.stringify({
      event: "posted",
      data: {
        channel_display_name: "Bench", channel_name: "bench", channel_type: "O", post: JSON.stringify(post),
        sender_name: "@bench0", set_online: true, team_id: data.teamId
      },
      broadcast: { omit_users: null, user_id: "", channel_id: data.channelId, team_id: "", connection_id: "", omit_connection_id: "" },
      seq: 1
    })
    // Encoded once, the same bytes written to every socket: the cheapest broadcast `ws` allows.
    const bytes = Buffer.from(text, "utf8")
    for (const ws of sockets) ws.send(bytes, { binary: false })
    res.writeHead(201).end()
  })
  http.on("upgrade", (req, socket, head) => {
    const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? "")?.[1]
    if (token === undefined || !known.has(token)) return socket.destroy()
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.add(ws)
      ws.on("close", () => sockets.delete(ws))
      ws.send(JSON.stringify({ event: "hello" }))
    })
  })
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r))
  const port = (http.address() as { port: number }).port
  try {
    return await measure("bare ws", `ws://127.0.0.1:${port}/`, data.tokens, async (round) => {
      const res = await fetch(`http://127.0.0.1:${port}/post`, { method: "POST", body: JSON.stringify({ message: `bench-${round}` }) })
      if (res.status !== 201) throw new Error(`bare post failed: ${res.status}`)
    })
  } finally {
    http.closeAllConnections()
    http.close()
    await pool.end()
  }
}

const main = async () => {
  const adminUrl = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"
  const name = `bench_${randomBytes(4).toString("hex")}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  try {
    console.log(`fan-out: ${SOCKETS} sockets in one channel, ${ROUNDS} posts`)
    const service = await benchService(url.toString())
    const bare = await benchBare(url.toString(), service.data)
    const rows = [service.result, bare]
    console.table(rows.map((r) => ({
      server: r.name,
      "p50 ms": r.p50.toFixed(1),
      "p99 ms": r.p99.toFixed(1),
      "max ms": r.max.toFixed(1),
      "POST p50 ms": r.postP50.toFixed(1),
      "first p50 ms": r.firstP50.toFixed(1),
      "frame bytes": r.frameBytes,
      "CPU µs/delivery": r.cpuUsPerDelivery.toFixed(1),
      "heap bytes/socket": r.bytesPerSocket,
      "marginal bytes/socket": r.marginalBytesPerSocket
    })))
    const latency = service.result.p99 / bare.p99
    const memory = service.result.marginalBytesPerSocket / bare.marginalBytesPerSocket
    const average = service.result.bytesPerSocket / bare.bytesPerSocket
    console.log(`p99 ratio ${latency.toFixed(2)} (target <= 2): ${latency <= 2 ? "met" : "NOT met"}`)
    console.log(`CPU per delivery ratio ${(service.result.cpuUsPerDelivery / bare.cpuUsPerDelivery).toFixed(2)} (no target: the server's thread, kernel included)`)
    console.log(`memory ratio, marginal ${memory.toFixed(2)} (target <= 2): ${memory <= 2 ? "met" : "NOT met"}; average ${average.toFixed(2)}`)
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await admin.end()
  }
}

main().then(() => process.exit(0), (error) => {
  console.error(error)
  process.exit(1)
})


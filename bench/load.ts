/**
 * Load simulation modelled on Mattermost's load-test-ng (issue 10): N users, each with one WebSocket open on
 * /api/v4/websocket, acting at about 0.12 requests per second per user with the actions below; channels of 50-200
 * members (each user in CHANNELS_PER_USER of them). Levels of N run one after the other on the same service (sockets
 * of the previous level stay open); for each level it reports the request rate, average and p99 latency, the error
 * rate, the WebSocket delivery p99 of the posts created, and the CPU and RSS of the service and of the PostgreSQL
 * backends serving it (and of this generator). A level holds when avg <= 100 ms, p99 <= 2 s and errors <= 0.025%;
 * the highest level that holds is the result.
 *
 * Actions (weights of load-test-ng's simulative controller, reduced to the four that dominate its request mix):
 *   SwitchChannel 35%  GET the channel's newest 60 posts, POST channels/members/me/view     (2 requests)
 *   ScrollChannel 25%  GET the next older page of the current channel                       (1 request)
 *   CreatePost    15%  POST /posts in the current channel; every member's socket gets it    (1 request)
 *   UnreadCheck   25%  GET /users/me/teams/unread                                            (1 request)
 *
 *   node --import tsx bench/load.ts
 *
 * Environment: BENCH_LOAD_LEVELS (500,1000,2000,5000), BENCH_LOAD_SECONDS measured per level (60),
 * BENCH_LOAD_WARMUP_SECONDS before each level's measurement (10), BENCH_LOAD_RATE requests/s per user (0.12),
 * BENCH_LOAD_WEIGHTS (35,25,15,25: the actions above in order), BENCH_LOAD_CHANNELS_PER_USER (5), BENCH_LOAD_CONTINUE=1 to run the levels after a failing one, BENCH_LOAD_TIMELINE=1 to print each second's requests, average and slowest latency, BENCH_PG_URL,
 * BENCH_LOAD_POOL (the service's database pool, 10), BENCH_LOAD_SOCKET_WORKERS (threads holding the sockets, 1),
 * BENCH_LOAD_DRAIN_SECONDS (10: how long a window's unanswered requests are waited for before they count as errors),
 * BENCH_SAME_SESSION=1 (the service in the bench's session rather than its own; see docs/performance.md).
 * BENCH_LOAD_COUNT_STATEMENTS=1 prints the statements per request and the most frequent ones (bench/CountStatements.ts).
 * BENCH_WORKERS=2 or auto (the service as worker processes, SERVICE_WORKERS, on Redis: BENCH_REDIS_URL, default database 9 of
 * 127.0.0.1:6379, emptied first).
 * Quick run: BENCH_LOAD_LEVELS=100,300 BENCH_LOAD_SECONDS=15 BENCH_LOAD_WARMUP_SECONDS=3.
 */
import { existsSync, readFileSync, rmSync } from "node:fs"
import { monitorEventLoopDelay } from "node:perf_hooks"
import pg from "pg"
import { Worker } from "node:worker_threads"
import { Pool } from "undici"
import { ADMIN_URL, machine, percentile, procReading, processTree, runqueueWait, type Running, scratchDatabase, sleep, startService, treeReading } from "./lib.ts"
import { POSTS_PER_CHANNEL, seed, type User } from "./LoadData.ts"
import * as StatementTimes from "./StatementTimes.ts"

const LEVELS = (process.env.BENCH_LOAD_LEVELS ?? "500,1000,2000,5000").split(",").map(Number).filter((n) => n > 0).sort((a, b) => a - b)
const SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 60)
const WARMUP = Number(process.env.BENCH_LOAD_WARMUP_SECONDS ?? 10)
const RATE = Number(process.env.BENCH_LOAD_RATE ?? 0.12)
/**
 * BENCH_LOAD_WEIGHTS: the four actions' weights in order (channel switch, older page, post, team unreads), 35,25,15,25
 * by default, as load-test-ng's. Changing one and comparing the CPU per request tells what that action costs in place.
 */
const WEIGHTS = (process.env.BENCH_LOAD_WEIGHTS ?? "35,25,15,25").split(",").map(Number)
if (WEIGHTS.length !== 4 || WEIGHTS.some((w) => !(w >= 0)) || WEIGHTS.every((w) => w === 0)) {
  throw new Error(`BENCH_LOAD_WEIGHTS: four weights (switch, older page, post, unreads), not all 0; got ${process.env.BENCH_LOAD_WEIGHTS}`)
}
const CHANNELS_PER_USER = Number(process.env.BENCH_LOAD_CHANNELS_PER_USER ?? 5)
const CONTINUE = process.env.BENCH_LOAD_CONTINUE === "1"
/** Worker threads holding the users' sockets (bench/load-sockets.ts); the main thread only sends and times requests. */
const SOCKET_WORKERS = Math.max(1, Number(process.env.BENCH_LOAD_SOCKET_WORKERS ?? 1))

/**
 * BENCH_LOAD_COUNT_STATEMENTS=1: the service counts its statements by text over each measured window
 * (bench/CountStatements.ts) and the bench prints statements per request and the most frequent ones. The counting
 * itself costs CPU: quote CPU figures from runs without it.
 */
const COUNT_FILE = process.env.BENCH_LOAD_COUNT_STATEMENTS === "1" ? `/tmp/bench-statements-${process.pid}.json` : undefined

const reportStatements = async (pid: number, file: string, requests: number) => {
  rmSync(file, { force: true })
  process.kill(pid, "SIGUSR2")
  for (let i = 0; i < 50 && !existsSync(file); i++) await sleep(100)
  if (!existsSync(file)) return console.log("statement counts: the service wrote none (one worker per process is counted only with BENCH_WORKERS unset)")
  const texts = Object.entries((JSON.parse(readFileSync(file, "utf8")) as { texts: Record<string, number> }).texts).sort((a, b) => b[1] - a[1])
  const total = texts.reduce((sum, [, n]) => sum + n, 0)
  console.log(`statements: ${total} for ${requests} requests, ${(total / Math.max(1, requests)).toFixed(2)} per request; the most frequent:`)
  for (const [text, n] of texts.slice(0, 15)) console.log(`  ${(n / Math.max(1, requests)).toFixed(3)}/request  ${text.replace(/\s+/g, " ").slice(0, 160)}`)
}

const TARGET = { avgMs: 100, p99Ms: 2000, errorRate: 0.00025 }


interface Window {
  latencies: Array<number>
  errors: number
  requests: number
  deliveries: Array<number>
  errorSamples: Map<string, number>
  /** Requests issued in the window and not answered yet: id -> time sent and kind. */
  outstanding: Map<number, { readonly started: number; readonly kind: string }>
  /** Latencies per kind of request (page, view, older page, post, unread). */
  byKind: Map<string, Array<number>>
  /** With BENCH_LOAD_TIMELINE=1: per second of issue (performance.now() / 1000, floored), the latencies. */
  timeline: Map<number, Array<number>>
}

const newWindow = (): Window => ({ latencies: [], errors: 0, requests: 0, deliveries: [], errorSamples: new Map(), outstanding: new Map(), byKind: new Map(), timeline: new Map() })

const TIMELINE = process.env.BENCH_LOAD_TIMELINE === "1"

const recordLatency = (w: Window, kind: string, ms: number, started: number) => {
  w.latencies.push(ms)
  if (TIMELINE) {
    const second = Math.floor(started / 1000)
    const list = w.timeline.get(second)
    if (list === undefined) w.timeline.set(second, [ms])
    else list.push(ms)
  }
  const list = w.byKind.get(kind)
  if (list === undefined) w.byKind.set(kind, [ms])
  else list.push(ms)
}

/**
 * After a level's measured seconds, its requests still unanswered get this long; those that stay unanswered count as
 * errors with the time they waited. (Counting only the requests answered within the window, as the bench did before,
 * left out exactly the slowest ones: with a backlog of more than the window, a level measured 0 requests.)
 */
const DRAIN_SECONDS = Number(process.env.BENCH_LOAD_DRAIN_SECONDS ?? 10)

export const runLoad = async () => {
  const database = await scratchDatabase()
  const maxUsers = LEVELS[LEVELS.length - 1]
  let service: Running | undefined
  const workers: Array<Worker> = []
  const results: Array<Record<string, unknown>> = []
  const before = machine()
  try {
    // With pg_stat_statements loaded (shared_preload_libraries), each level also reports planning and execution per
    // run of the statements that took the most time in its window (planning tracked for the service's sessions).
    const statsLoaded = await StatementTimes.hasPgStatStatements(ADMIN_URL)
    if (statsLoaded) await StatementTimes.track(database.url, database.name)
    service = await startService(
      database.url,
      { SERVICE_DB_POOL__MAX_CONNECTIONS: process.env.BENCH_LOAD_POOL ?? "10", ...(COUNT_FILE === undefined ? {} : { BENCH_COUNT_FILE: COUNT_FILE }) },
      undefined,
      COUNT_FILE === undefined ? undefined : "bench/CountStatements.ts"
    )
    console.log(`load simulation: levels ${LEVELS.join(", ")} users, ${SECONDS} s each after ${WARMUP} s warm-up, ${RATE} req/s per user; machine ${before.cores} cores, load ${before.load}`)
    const seeded = await seed(database.url, maxUsers, CHANNELS_PER_USER)
    console.log(`seeded ${maxUsers} users, ${seeded.channels} channels of 50-200 members, ${POSTS_PER_CHANNEL} posts each`)
    const users = seeded.users
    const base = new URL(service.url)
    // The requests go through undici's Pool and its lowest-level API (dispatch with a handler: no stream, no promise
    // per body), not node:http's Agent: at 8,750 users the generator cost as much CPU as PostgreSQL (0.42-0.76 ms per
    // request, Node's HTTP client a sixth of it and its garbage collector a quarter), on the two cores it shares with
    // the service. Idle keep-alive connections are dropped after 4 s (undici's default, and it honours the server's
    // Keep-Alive hint), before the server's 5 s keep-alive timeout closes them: a request sent on a connection the
    // server is closing fails with ECONNRESET, a race of the generator's own making that would count as an error.
    const pool = new Pool(base.origin, { connections: 256, pipelining: 1, keepAliveTimeout: 4000 })
    let window = newWindow()
    /** Posts in flight: tag -> time sent, to time each socket's delivery. */
    const sentAt = new Map<number, number>()
    let tag = 0

    /** Answers received (of any window), for the throughput of the measured seconds. */
    let answered = 0
    let callId = 0
    const call = (kind: string, user: User, method: string, path: string, body?: unknown) =>
      new Promise<void>((resolve) => {
        const started = performance.now()
        const payload = body === undefined ? undefined : JSON.stringify(body)
        const w = window
        const id = ++callId
        w.outstanding.set(id, { started, kind })
        const failed = (message: string) => {
          answered++
          resolve()
          if (!w.outstanding.delete(id)) return
          w.requests++
          w.errors++
          recordLatency(w, kind, performance.now() - started, started)
          w.errorSamples.set(message, (w.errorSamples.get(message) ?? 0) + 1)
        }
        let status = 0
        pool.dispatch({
          path, method, body: payload ?? null,
          headers: payload === undefined
            ? { authorization: `Bearer ${user.token}` }
            : { authorization: `Bearer ${user.token}`, "content-type": "application/json" }
        }, {
          // The handler's new-style methods are used only when it has onRequestStart (undici's UnwrapHandler.unwrap).
          onRequestStart: () => {},
          onResponseStart: (_controller, statusCode) => {
            status = statusCode
          },
          // The body is read and dropped: the latency counts until its last byte.
          onResponseData: () => {},
          onResponseEnd: () => {
            answered++
            resolve()
            if (!w.outstanding.delete(id)) return
            w.requests++
            recordLatency(w, kind, performance.now() - started, started)
            if (status >= 400) {
              w.errors++
              const key = `${method} ${path.replace(/[a-z0-9]{26}/g, ":id").replace(/\?.*/, "")} ${status}`
              w.errorSamples.set(key, (w.errorSamples.get(key) ?? 0) + 1)
            }
          },
          onResponseError: (_controller, error) => failed(String(error.message))
        })
      })

    const actions: Array<{ weight: number; requests: number; run: (u: User) => Promise<void> }> = [
      {
        weight: WEIGHTS[0], requests: 2, run: async (u) => {
          const previous = u.current
          const next = u.channels[Math.floor(Math.random() * u.channels.length)]
          u.current = next
          await call("page", u, "GET", `/api/v4/channels/${next}/posts?page=0&per_page=60`)
          await call("view", u, "POST", "/api/v4/channels/members/me/view", { channel_id: next, prev_channel_id: previous })
        }
      },
      { weight: WEIGHTS[1], requests: 1, run: (u) => call("older page", u, "GET", `/api/v4/channels/${u.current}/posts?page=1&per_page=60`) },
      {
        weight: WEIGHTS[2], requests: 1, run: (u) => {
          const t = ++tag
          sentAt.set(t, performance.now())
          return call("post", u, "POST", "/api/v4/posts", { channel_id: u.current, message: `load lt-${t}- a message of ordinary length for the simulation` })
        }
      },
      { weight: WEIGHTS[3], requests: 1, run: (u) => call("unread", u, "GET", "/api/v4/users/me/teams/unread") }
    ]
    const totalWeight = actions.reduce((a, x) => a + x.weight, 0)
    const pick = () => {
      let r = Math.random() * totalWeight
      for (const a of actions) if ((r -= a.weight) < 0) return a
      return actions[0]
    }

    // The sockets live in worker threads; arrivals of posted events come back in batches (absolute times in ms).
    const answers = new Map<number, (failed: Array<string>) => void>()
    let request = 0
    for (let w = 0; w < SOCKET_WORKERS; w++) {
      // Workers do not inherit the tsx loader of `node --import tsx`: the worker registers it, then loads the file.
      const worker = new Worker(
        `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))}).then(({ register }) => { register(); return import(${JSON.stringify(new URL("./load-sockets.ts", import.meta.url).href)}) })`,
        { eval: true }
      )
      worker.on("message", (message: { type: string; id?: number; failed?: Array<string>; tags?: Float64Array; at?: Float64Array; count?: number }) => {
        if (message.type === "connected") answers.get(message.id!)?.(message.failed!)
        else if (message.type === "arrivals") {
          for (let i = 0; i < message.tags!.length; i++) {
            const sent = sentAt.get(message.tags![i])
            if (sent !== undefined) window.deliveries.push(message.at![i] - performance.timeOrigin - sent)
          }
        } else if (message.type === "closed" && running) {
          window.errorSamples.set("websocket closed", (window.errorSamples.get("websocket closed") ?? 0) + message.count!)
        }
      })
      worker.on("error", (error) => console.error("socket worker failed:", error))
      workers.push(worker)
    }
    /** Opens the sockets of users [from, to), spread over the workers; resolves when each has its hello. */
    const connect = (from: number, to: number) =>
      Promise.all(workers.map((worker, w) =>
        new Promise<void>((resolve, reject) => {
          const id = ++request
          const tokens = users.slice(from, to).filter((_, i) => (from + i) % SOCKET_WORKERS === w).map((u) => u.token)
          answers.set(id, (failed) => {
            answers.delete(id)
            if (failed.length > 0) reject(new Error(`${failed.length} sockets failed to connect: ${[...new Set(failed)].join("; ")}`))
            else resolve()
          })
          worker.postMessage({ type: "connect", id, url: `ws://${base.host}/api/v4/websocket`, tokens })
        })))

    let active = 0
    let running = true
    // The pacer: every 50 ms, the requests due at RATE per active user, drawn as actions of random users.
    let budget = 0
    let last = performance.now()
    const pacer = setInterval(() => {
      const now = performance.now()
      // Posts older than a minute are forgotten (in order of sending: the Map keeps it), or the map would grow with
      // every post of the run: a delivery that late would fail the level by its p99 anyway.
      for (const [t, sent] of sentAt) {
        if (sent > now - 60_000) break
        sentAt.delete(t)
      }
      budget += (active * RATE * (now - last)) / 1000
      last = now
      while (running && budget >= 1) {
        const action = pick()
        budget -= action.requests
        void action.run(users[Math.floor(Math.random() * active)])
      }
    }, 50)

    const servicePids = () => processTree(service!.pid)
    const pgPids = async () => {
      const client = new pg.Client({ connectionString: database.url })
      await client.connect()
      const { rows } = await client.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [database.name])
      await client.end()
      return rows.map((r) => r.pid)
    }

    let highest = 0
    /** The service's page cache counters (layers/Metrics.ts), from its metrics. */
    const pageCacheCounts = async (url: string) => {
      const text = await (await fetch(`${url}/api/v1/health/metrics`)).text()
      const count = (outcome: string) => Number(text.match(new RegExp(`^service_page_cache_requests_total\\{outcome="${outcome}"\\} (\\d+)`, "m"))?.[1] ?? 0)
      const missed = (reason: string) => Number(text.match(new RegExp(`^service_page_cache_misses_total\\{reason="${reason}"\\} (\\d+)`, "m"))?.[1] ?? 0)
      const decided = (by: string) => Number(text.match(new RegExp(`^service_page_cache_access_total\\{by="${by}"\\} (\\d+)`, "m"))?.[1] ?? 0)
      const grouped = (kind: string, unit: string) => Number(text.match(new RegExp(`^service_grouped_requests_total\\{kind="${kind}",unit="${unit}"\\} (\\d+)`, "m"))?.[1] ?? 0)
      return {
        hit: count("hit"), miss: count("miss"), absent: missed("absent"), expired: missed("expired"), changed: missed("changed"), kept: decided("kept"), checked: decided("checked"),
        unreadRequests: grouped("team_unreads", "requests"), unreadStatements: grouped("team_unreads", "statements"),
        viewRequests: grouped("channel_views", "requests"), viewStatements: grouped("channel_views", "statements")
      }
    }
    for (const level of LEVELS) {
      const connectStarted = performance.now()
      for (let i = active; i < level; i += 100) {
        await connect(i, Math.min(level, i + 100))
        active = Math.min(level, i + 100)
      }
      const connectSeconds = (performance.now() - connectStarted) / 1000
      // A mark to time a profiler by: the measured window starts WARMUP seconds after this line.
      console.log(`N=${level}: ${level} sockets connected in ${connectSeconds.toFixed(1)} s; ${WARMUP} s warm-up, then ${SECONDS} s measured`)
      await sleep(WARMUP * 1000)
      window = newWindow()
      if (COUNT_FILE !== undefined) process.kill(service.pid, "SIGUSR2")
      if (statsLoaded) await StatementTimes.reset(database.url)
      const sPids = servicePids()
      const pPids = await pgPids()
      const c0 = await pageCacheCounts(service.url)
      const s0 = treeReading(sPids)
      // Per backend: a backend that ends during the window (a pool closing an idle connection, as two worker
      // processes' pools do) takes its CPU along, so only the backends alive at both ends are counted (an undercount
      // of what the ended ones spent, where summing them all went negative).
      const pStart = new Map(pPids.map((pid) => [pid, treeReading([pid])]))
      const answered0 = answered
      const g0 = process.cpuUsage()
      const gw0 = runqueueWait(process.pid)
      const loopDelay = monitorEventLoopDelay({ resolution: 10 })
      loopDelay.enable()
      const t0 = performance.now()
      let serviceRss = 0
      let pgRss = 0
      for (let s = 0; s < SECONDS; s++) {
        await sleep(1000)
        serviceRss = Math.max(serviceRss, treeReading(sPids).rss)
        pgRss = Math.max(pgRss, treeReading(pPids).rss)
      }
      const measured = window
      window = newWindow()
      if (COUNT_FILE !== undefined) await reportStatements(service.pid, COUNT_FILE, measured.requests)
      const statements = statsLoaded ? await StatementTimes.report(database.url, 8) : undefined
      if (statements !== undefined) {
        console.log(`statements of the window (pg_stat_statements; planning and execution per run, plans made of calls):`)
        console.table(statements.map((st) => ({ statement: st.statement.slice(0, 70), calls: st.calls, plans: st.plans, "plan ms/run": st.planMs.toFixed(3), "exec ms/run": st.execMs.toFixed(3) })))
      }
      const wall = (performance.now() - t0) / 1000
      const throughput = (answered - answered0) / wall
      const s1 = treeReading(sPids)
      const pAlive = pPids.filter((pid) => procReading(pid) !== undefined)
      const p1 = treeReading(pAlive)
      const p0 = pAlive.reduce((sum, pid) => {
        const r = pStart.get(pid)!
        return { cpu: sum.cpu + r.cpu, rss: sum.rss + r.rss, wait: sum.wait + r.wait }
      }, { cpu: 0, rss: 0, wait: 0 })
      const g1 = process.cpuUsage(g0)
      const c1 = await pageCacheCounts(service.url)
      const cacheHits = c1.hit - c0.hit
      const cacheMisses = c1.miss - c0.miss
      const gw1 = runqueueWait(process.pid)
      loopDelay.disable()
      const drainUntil = performance.now() + DRAIN_SECONDS * 1000
      while (measured.outstanding.size > 0 && performance.now() < drainUntil) await sleep(100)
      const unanswered = measured.outstanding.size
      for (const { started, kind } of measured.outstanding.values()) {
        measured.requests++
        measured.errors++
        recordLatency(measured, kind, performance.now() - started, started)
      }
      measured.outstanding.clear()
      if (unanswered > 0) measured.errorSamples.set(`no answer within the window and ${DRAIN_SECONDS} s after`, unanswered)
      // Deliveries still in flight arrive into the next window; a short wait lets the last posts land.
      const lat = measured.latencies.sort((a, b) => a - b)
      const avg = lat.reduce((a, b) => a + b, 0) / Math.max(1, lat.length)
      const deliveries = measured.deliveries.sort((a, b) => a - b)
      const errorRate = measured.requests === 0 ? 1 : measured.errors / measured.requests
      const result = {
        users: level,
        connectSeconds: Number(connectSeconds.toFixed(1)),
        // Requests issued in the window per second (what was due, about users x RATE) and answers per second.
        requestsPerSecond: Number((measured.requests / wall).toFixed(1)),
        answersPerSecond: Number(throughput.toFixed(1)),
        avgMs: Number(avg.toFixed(1)),
        p99Ms: Number(percentile(lat, 99).toFixed(1)),
        errorRate,
        errors: Object.fromEntries(measured.errorSamples),
        byKind: Object.fromEntries([...measured.byKind].map(([kind, list]) => {
          const sorted = list.sort((a, b) => a - b)
          return [kind, { count: sorted.length, avgMs: Number((sorted.reduce((a, b) => a + b, 0) / sorted.length).toFixed(1)), p99Ms: Number(percentile(sorted, 99).toFixed(1)) }]
        })),
        // Pages the service's page cache answered, of those it could (one worker's count when there are several).
        pageCacheHitPercent: cacheHits + cacheMisses === 0 ? 0 : Number(((cacheHits / (cacheHits + cacheMisses)) * 100).toFixed(0)),
        /** Team unread requests and channel views per statement (layers/Grouped.ts: requests arriving together share one). */
        unreadsPerStatement: c1.unreadStatements === c0.unreadStatements ? 0 : Number(((c1.unreadRequests - c0.unreadRequests) / (c1.unreadStatements - c0.unreadStatements)).toFixed(2)),
        viewsPerStatement: c1.viewStatements === c0.viewStatements ? 0 : Number(((c1.viewRequests - c0.viewRequests) / (c1.viewStatements - c0.viewStatements)).toFixed(2)),
        // Why the others were read: no page kept, kept too long, or its channel changed since (in % of the pages).
        /** Of the pages from the cache without collapsed threads, those decided from the reader's kept access row. */
        pageAccessKeptPercent: c1.kept - c0.kept + c1.checked - c0.checked === 0 ? 0 : Number((((c1.kept - c0.kept) / (c1.kept - c0.kept + c1.checked - c0.checked)) * 100).toFixed(0)),
        pageCacheMissPercent: Object.fromEntries((["absent", "expired", "changed"] as const).map((reason) => [
          reason,
          cacheHits + cacheMisses === 0 ? 0 : Number((((c1[reason] - c0[reason]) / (cacheHits + cacheMisses)) * 100).toFixed(1))
        ])),
        deliveries: deliveries.length,
        deliveryP99Ms: Number(percentile(deliveries, 99).toFixed(1)),
        serviceCpuPercent: Number((((s1.cpu - s0.cpu) / wall) * 100).toFixed(0)),
        serviceRssMb: Math.round(serviceRss / 1048576),
        postgresCpuPercent: Number((((p1.cpu - p0.cpu) / wall) * 100).toFixed(0)),
        postgresRssMb: Math.round(pgRss / 1048576),
        generatorCpuPercent: Number((((g1.user + g1.system) / 1e6 / wall) * 100).toFixed(0)),
        // Time runnable but waiting for a core, in % of the wall time (summed over threads): CPU wanted and not had.
        serviceWaitPercent: Number((((s1.wait - s0.wait) / wall) * 100).toFixed(0)),
        postgresWaitPercent: Number((((p1.wait - p0.wait) / wall) * 100).toFixed(0)),
        generatorWaitPercent: Number((((gw1 - gw0) / wall) * 100).toFixed(0)),
        generatorLoopDelayP99Ms: Number((loopDelay.percentile(99) / 1e6).toFixed(1)),
        // CPU per request (ms, the fan-out of posts included): moves much less with the machine's load than req/s.
        serviceCpuMsPerRequest: Number((((s1.cpu - s0.cpu) * 1000) / Math.max(1, measured.requests)).toFixed(2)),
        postgresCpuMsPerRequest: Number((((p1.cpu - p0.cpu) * 1000) / Math.max(1, measured.requests)).toFixed(2)),
        generatorCpuMsPerRequest: Number((((g1.user + g1.system) / 1e3) / Math.max(1, measured.requests)).toFixed(2)),
        load: machine().load,
        holds: false
      }
      result.holds = result.avgMs <= TARGET.avgMs && result.p99Ms <= TARGET.p99Ms && result.errorRate <= TARGET.errorRate && measured.requests > 0
      results.push(result)
      console.log(
        `N=${level}: ${result.requestsPerSecond} req/s issued, ${result.answersPerSecond} answered/s, avg ${result.avgMs} ms, p99 ${result.p99Ms} ms, errors ${(errorRate * 100).toFixed(3)}%, ` +
          `delivery p99 ${result.deliveryP99Ms} ms (${deliveries.length} deliveries); pages from the cache ${result.pageCacheHitPercent}% (read: ${Object.entries(result.pageCacheMissPercent).map(([k, v]) => `${k} ${v}%`).join(", ")}; access from kept rows ${result.pageAccessKeptPercent}%); per statement: team unreads ${result.unreadsPerStatement}, views ${result.viewsPerStatement}; service CPU ${result.serviceCpuPercent}% RSS ${result.serviceRssMb} MB; ` +
          `PostgreSQL CPU ${result.postgresCpuPercent}% RSS ${result.postgresRssMb} MB; generator CPU ${result.generatorCpuPercent}%; ` +
          `waiting for a core: service ${result.serviceWaitPercent}%, PostgreSQL ${result.postgresWaitPercent}%, generator ${result.generatorWaitPercent}%; ` +
          `generator event-loop delay p99 ${result.generatorLoopDelayP99Ms} ms; CPU per request: service ${result.serviceCpuMsPerRequest} ms, ` +
          `PostgreSQL ${result.postgresCpuMsPerRequest} ms, generator ${result.generatorCpuMsPerRequest} ms; load ${result.load}: ` +
          (result.holds ? "holds" : "does NOT hold")
      )
      console.log(`  per request: ${Object.entries(result.byKind).map(([k, v]) => `${k} ${v.count} avg ${v.avgMs} ms p99 ${v.p99Ms} ms`).join("; ")}`)
      if (measured.errors > 0) console.log(`  errors: ${JSON.stringify(result.errors)}`)
      if (TIMELINE) {
        // Per second of the window: requests issued, their average and slowest latency (where a tail comes from).
        const first = Math.min(...measured.timeline.keys())
        const seconds = [...measured.timeline].sort(([a], [b]) => a - b).map(([second, list]) =>
          `${second - first}s ${list.length} avg ${(list.reduce((a, b) => a + b, 0) / list.length).toFixed(0)} max ${Math.max(...list).toFixed(0)}`
        )
        console.log(`  timeline from ${((performance.timeOrigin + first * 1000) / 1000).toFixed(0)} (epoch s) (second: requests, avg ms, max ms): ${seconds.join("; ")}`)
      }
      if (result.holds) highest = level
      else if (!CONTINUE) break
    }
    running = false
    clearInterval(pacer)
    await pool.destroy()
    console.table(results.map((r) => ({
      users: r.users, "req/s": r.requestsPerSecond, "answers/s": r.answersPerSecond, "avg ms": r.avgMs, "p99 ms": r.p99Ms, "errors %": ((r.errorRate as number) * 100).toFixed(3),
      "ws p99 ms": r.deliveryP99Ms, "svc CPU %": r.serviceCpuPercent, "svc RSS MB": r.serviceRssMb, "pg CPU %": r.postgresCpuPercent,
      "pg RSS MB": r.postgresRssMb, "gen CPU %": r.generatorCpuPercent, "svc wait %": r.serviceWaitPercent, "gen wait %": r.generatorWaitPercent,
      "load": String(r.load).split(" ")[0], holds: r.holds
    })))
    console.log(`highest N that holds (avg <= ${TARGET.avgMs} ms, p99 <= ${TARGET.p99Ms} ms, errors <= ${TARGET.errorRate * 100}%): ${highest === 0 ? "none" : highest}`)
    const summary = { benchmark: "load", machine: before, rate: RATE, seconds: SECONDS, levels: results, highest }
    console.log(JSON.stringify(summary))
    return summary
  } finally {
    for (const worker of workers) await worker.terminate()
    await service?.stop()
    await database.drop()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runLoad().then(() => process.exit(0), (error) => {
    console.error(error)
    process.exit(1)
  })
}

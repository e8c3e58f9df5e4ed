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
 * BENCH_LOAD_CHANNELS_PER_USER (5), BENCH_LOAD_CONTINUE=1 to run the levels after a failing one, BENCH_PG_URL.
 * Quick run: BENCH_LOAD_LEVELS=100,300 BENCH_LOAD_SECONDS=15 BENCH_LOAD_WARMUP_SECONDS=3.
 */
import { Agent, request as httpRequest } from "node:http"
import pg from "pg"
import WebSocket from "ws"
import { newId } from "../layers/Crypto.ts"
import { machine, percentile, processTree, type Running, scratchDatabase, sessionTokens, sleep, startService, treeReading } from "./lib.ts"

const LEVELS = (process.env.BENCH_LOAD_LEVELS ?? "500,1000,2000,5000").split(",").map(Number).filter((n) => n > 0).sort((a, b) => a - b)
const SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 60)
const WARMUP = Number(process.env.BENCH_LOAD_WARMUP_SECONDS ?? 10)
const RATE = Number(process.env.BENCH_LOAD_RATE ?? 0.12)
const CHANNELS_PER_USER = Number(process.env.BENCH_LOAD_CHANNELS_PER_USER ?? 5)
const CONTINUE = process.env.BENCH_LOAD_CONTINUE === "1"
const POSTS_PER_CHANNEL = 100

const TARGET = { avgMs: 100, p99Ms: 2000, errorRate: 0.00025 }

const shuffle = <A>(items: Array<A>) => {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1))
    ;[items[i], items[j]] = [items[j], items[i]]
  }
  return items
}

interface User {
  readonly id: string
  readonly token: string
  readonly channels: Array<string>
  current: string
}

/**
 * Users, one team, channels of 50-200 members: CHANNELS_PER_USER passes over the users in a new random order, each
 * pass cut into channels of random size, so every user is in exactly that many channels. Bulk SQL, then ANALYZE.
 */
const seed = async (databaseUrl: string, count: number) => {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  const at = Date.now() - 86_400_000
  const userIds = Array.from({ length: count }, () => newId())
  const teamId = newId()
  await client.query(`INSERT INTO teams (id, create_at, update_at, name, display_name, type) VALUES ($1, $2, $2, 'load', 'Load', 'O')`, [teamId, at])
  for (let i = 0; i < count; i += 2000) {
    const batch = userIds.slice(i, i + 2000)
    await client.query(
      `INSERT INTO users (id, create_at, update_at, username, email)
       SELECT u.id, $2, $2, 'load' || (u.n + $3), 'load' || (u.n + $3) || '@load.test' FROM unnest($1::text[]) WITH ORDINALITY AS u(id, n)`,
      [batch, at, i]
    )
    await client.query(`INSERT INTO team_members (team_id, user_id, roles, create_at) SELECT $1, id, 'team_user', $2 FROM unnest($3::text[]) AS id`, [teamId, at, batch])
  }
  const membership = new Map<string, Array<string>>(userIds.map((id) => [id, []]))
  const channels: Array<{ id: string; members: Array<string> }> = []
  for (let pass = 0; pass < CHANNELS_PER_USER; pass++) {
    const order = shuffle([...userIds])
    for (let i = 0; i < order.length;) {
      const size = Math.min(order.length - i, 50 + Math.floor(Math.random() * 151))
      const members = order.slice(i, i + size)
      // A short tail joins the previous channel of this pass rather than making a channel under 50.
      if (size < 50 && channels.length > 0) channels[channels.length - 1].members.push(...members)
      else channels.push({ id: newId(), members })
      i += size
    }
  }
  for (const channel of channels) {
    await client.query(
      `INSERT INTO channels (id, create_at, update_at, team_id, type, name, display_name, last_post_at, last_root_post_at, total_msg_count, total_msg_count_root)
       VALUES ($1, $2, $2, $3, 'O', $4, $4, $5, $5, $6, $6)`,
      [channel.id, at, teamId, `load-${channel.id}`, at + POSTS_PER_CHANNEL * 1000, POSTS_PER_CHANNEL]
    )
    const members = [...new Set(channel.members)]
    await client.query(`INSERT INTO channel_members (channel_id, user_id, roles) SELECT $1, id, 'channel_user' FROM unnest($2::text[]) AS id`, [channel.id, members])
    for (const m of members) membership.get(m)!.push(channel.id)
  }
  await client.query(
    `INSERT INTO posts (id, create_at, update_at, user_id, channel_id, message)
     SELECT substr(md5(random()::text || c.id || i::text), 1, 26), $1::bigint + i * 1000, $1::bigint + i * 1000,
            (SELECT user_id FROM channel_members m WHERE m.channel_id = c.id LIMIT 1), c.id, 'seeded message ' || i
     FROM channels c, generate_series(1, $2::int) AS i`,
    [at, POSTS_PER_CHANNEL]
  )
  await client.query("ANALYZE")
  const tokens = await sessionTokens(client, userIds)
  await client.end()
  const users: Array<User> = userIds.map((id, i) => {
    const mine = membership.get(id)!
    return { id, token: tokens[i], channels: mine, current: mine[0] }
  })
  return { users, channels: channels.length }
}

interface Window {
  latencies: Array<number>
  errors: number
  requests: number
  deliveries: Array<number>
  errorSamples: Map<string, number>
}

const newWindow = (): Window => ({ latencies: [], errors: 0, requests: 0, deliveries: [], errorSamples: new Map() })

export const runLoad = async () => {
  const database = await scratchDatabase()
  const maxUsers = LEVELS[LEVELS.length - 1]
  let service: Running | undefined
  const sockets: Array<WebSocket> = []
  const results: Array<Record<string, unknown>> = []
  const before = machine()
  try {
    service = await startService(database.url, { SERVICE_DB_POOL__MAX_CONNECTIONS: process.env.BENCH_LOAD_POOL ?? "10" })
    console.log(`load simulation: levels ${LEVELS.join(", ")} users, ${SECONDS} s each after ${WARMUP} s warm-up, ${RATE} req/s per user; machine ${before.cores} cores, load ${before.load}`)
    const seeded = await seed(database.url, maxUsers)
    console.log(`seeded ${maxUsers} users, ${seeded.channels} channels of 50-200 members, ${POSTS_PER_CHANNEL} posts each`)
    const users = seeded.users
    const base = new URL(service.url)
    // Idle keep-alive connections are dropped after 4 s, before the server's 5 s keep-alive timeout closes them: a
    // request sent on a connection the server is closing fails with ECONNRESET, which would count a race of the
    // generator's own making as a service error.
    const agent = new Agent({ keepAlive: true, maxSockets: 256, timeout: 4000 })
    let window = newWindow()
    /** Posts in flight: tag -> time sent, to time each socket's delivery. */
    const sentAt = new Map<number, number>()
    let tag = 0

    const call = (user: User, method: string, path: string, body?: unknown) =>
      new Promise<void>((resolve) => {
        const started = performance.now()
        const payload = body === undefined ? undefined : JSON.stringify(body)
        const w = window
        const req = httpRequest({
          host: base.hostname, port: base.port, method, path, agent,
          headers: { Authorization: `Bearer ${user.token}`, ...(payload ? { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(payload) } : {}) }
        }, (res) => {
          res.resume()
          res.on("end", () => {
            w.requests++
            w.latencies.push(performance.now() - started)
            if ((res.statusCode ?? 500) >= 400) {
              w.errors++
              const key = `${method} ${path.replace(/[a-z0-9]{26}/g, ":id").replace(/\?.*/, "")} ${res.statusCode}`
              w.errorSamples.set(key, (w.errorSamples.get(key) ?? 0) + 1)
            }
            resolve()
          })
        })
        req.on("error", (error) => {
          w.requests++
          w.errors++
          w.latencies.push(performance.now() - started)
          w.errorSamples.set(String(error.message), (w.errorSamples.get(String(error.message)) ?? 0) + 1)
          resolve()
        })
        req.end(payload)
      })

    const actions: Array<{ weight: number; requests: number; run: (u: User) => Promise<void> }> = [
      {
        weight: 35, requests: 2, run: async (u) => {
          const previous = u.current
          const next = u.channels[Math.floor(Math.random() * u.channels.length)]
          u.current = next
          await call(u, "GET", `/api/v4/channels/${next}/posts?page=0&per_page=60`)
          await call(u, "POST", "/api/v4/channels/members/me/view", { channel_id: next, prev_channel_id: previous })
        }
      },
      { weight: 25, requests: 1, run: (u) => call(u, "GET", `/api/v4/channels/${u.current}/posts?page=1&per_page=60`) },
      {
        weight: 15, requests: 1, run: (u) => {
          const t = ++tag
          sentAt.set(t, performance.now())
          return call(u, "POST", "/api/v4/posts", { channel_id: u.current, message: `load lt-${t}- a message of ordinary length for the simulation` })
        }
      },
      { weight: 25, requests: 1, run: (u) => call(u, "GET", "/api/v4/users/me/teams/unread") }
    ]
    const totalWeight = actions.reduce((a, x) => a + x.weight, 0)
    const pick = () => {
      let r = Math.random() * totalWeight
      for (const a of actions) if ((r -= a.weight) < 0) return a
      return actions[0]
    }

    const connect = (user: User) =>
      new Promise<void>((resolve, reject) => {
        const ws = new WebSocket(`ws://${base.host}/api/v4/websocket`, { headers: { Authorization: `Bearer ${user.token}` } })
        ws.once("message", () => resolve())
        ws.on("message", (raw: Buffer) => {
          const at = performance.now()
          // The posted event carries the post as a JSON string; the tag is found without parsing the frame.
          const text = raw.toString("latin1")
          const i = text.indexOf("lt-")
          if (i === -1 || !text.includes("\"posted\"")) return
          const sent = sentAt.get(Number.parseInt(text.slice(i + 3, i + 15), 10))
          if (sent !== undefined) window.deliveries.push(at - sent)
        })
        ws.on("error", reject)
        ws.on("close", () => window.errorSamples.set("websocket closed", (window.errorSamples.get("websocket closed") ?? 0) + 1))
        sockets.push(ws)
      })

    let active = 0
    let running = true
    // The pacer: every 50 ms, the requests due at RATE per active user, drawn as actions of random users.
    let budget = 0
    let last = performance.now()
    const pacer = setInterval(() => {
      const now = performance.now()
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
    for (const level of LEVELS) {
      const connectStarted = performance.now()
      for (let i = active; i < level; i += 100) {
        await Promise.all(users.slice(i, Math.min(level, i + 100)).map(connect))
        active = Math.min(level, i + 100)
      }
      const connectSeconds = (performance.now() - connectStarted) / 1000
      await sleep(WARMUP * 1000)
      window = newWindow()
      const sPids = servicePids()
      const pPids = await pgPids()
      const s0 = treeReading(sPids)
      const p0 = treeReading(pPids)
      const g0 = process.cpuUsage()
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
      const wall = (performance.now() - t0) / 1000
      const s1 = treeReading(sPids)
      const p1 = treeReading(pPids)
      const g1 = process.cpuUsage(g0)
      // Deliveries still in flight arrive into the next window; a short wait lets the last posts land.
      const lat = measured.latencies.sort((a, b) => a - b)
      const avg = lat.reduce((a, b) => a + b, 0) / Math.max(1, lat.length)
      const deliveries = measured.deliveries.sort((a, b) => a - b)
      const errorRate = measured.requests === 0 ? 1 : measured.errors / measured.requests
      const result = {
        users: level,
        connectSeconds: Number(connectSeconds.toFixed(1)),
        requestsPerSecond: Number((measured.requests / wall).toFixed(1)),
        avgMs: Number(avg.toFixed(1)),
        p99Ms: Number(percentile(lat, 99).toFixed(1)),
        errorRate,
        errors: Object.fromEntries(measured.errorSamples),
        deliveries: deliveries.length,
        deliveryP99Ms: Number(percentile(deliveries, 99).toFixed(1)),
        serviceCpuPercent: Number((((s1.cpu - s0.cpu) / wall) * 100).toFixed(0)),
        serviceRssMb: Math.round(serviceRss / 1048576),
        postgresCpuPercent: Number((((p1.cpu - p0.cpu) / wall) * 100).toFixed(0)),
        postgresRssMb: Math.round(pgRss / 1048576),
        generatorCpuPercent: Number((((g1.user + g1.system) / 1e6 / wall) * 100).toFixed(0)),
        load: machine().load,
        holds: false
      }
      result.holds = result.avgMs <= TARGET.avgMs && result.p99Ms <= TARGET.p99Ms && result.errorRate <= TARGET.errorRate && measured.requests > 0
      results.push(result)
      console.log(
        `N=${level}: ${result.requestsPerSecond} req/s, avg ${result.avgMs} ms, p99 ${result.p99Ms} ms, errors ${(errorRate * 100).toFixed(3)}%, ` +
          `delivery p99 ${result.deliveryP99Ms} ms (${deliveries.length} deliveries); service CPU ${result.serviceCpuPercent}% RSS ${result.serviceRssMb} MB; ` +
          `PostgreSQL CPU ${result.postgresCpuPercent}% RSS ${result.postgresRssMb} MB; generator CPU ${result.generatorCpuPercent}%; load ${result.load}: ` +
          (result.holds ? "holds" : "does NOT hold")
      )
      if (measured.errors > 0) console.log(`  errors: ${JSON.stringify(result.errors)}`)
      if (result.holds) highest = level
      else if (!CONTINUE) break
    }
    running = false
    clearInterval(pacer)
    agent.destroy()
    console.table(results.map((r) => ({
      users: r.users, "req/s": r.requestsPerSecond, "avg ms": r.avgMs, "p99 ms": r.p99Ms, "errors %": ((r.errorRate as number) * 100).toFixed(3),
      "ws p99 ms": r.deliveryP99Ms, "svc CPU %": r.serviceCpuPercent, "svc RSS MB": r.serviceRssMb, "pg CPU %": r.postgresCpuPercent,
      "pg RSS MB": r.postgresRssMb, "gen CPU %": r.generatorCpuPercent, holds: r.holds
    })))
    console.log(`highest N that holds (avg <= ${TARGET.avgMs} ms, p99 <= ${TARGET.p99Ms} ms, errors <= ${TARGET.errorRate * 100}%): ${highest === 0 ? "none" : highest}`)
    const summary = { benchmark: "load", machine: before, rate: RATE, seconds: SECONDS, levels: results, highest }
    console.log(JSON.stringify(summary))
    return summary
  } finally {
    for (const ws of sockets) ws.terminate()
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

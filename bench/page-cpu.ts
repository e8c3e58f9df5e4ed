/**
 * PostgreSQL's CPU per channel page (issue 10): the load simulation's data (bench/load.ts: one team, N users each in
 * five channels of 50-200 members, 100 posts per channel), the page requests of its mix (page 0 of a channel, 35
 * parts; page 1, 25 parts) sent by PAGE_CONCURRENCY keep-alive clients, and the CPU the scratch database's backends
 * (and the service) used per request, from /proc. With PAGE_BEFORE_ROOT (another checkout, e.g. /work/main) a second
 * service from that checkout runs on a second database seeded the same way, and the two are measured alternately,
 * round after round, so a busy machine weighs on both alike.
 *
 *   PAGE_BEFORE_ROOT=/work/main node --import tsx bench/page-cpu.ts
 *
 * Environment: PAGE_USERS (5000), PAGE_REQUESTS per run (3000), PAGE_ROUNDS (3), PAGE_CONCURRENCY (4),
 * PAGE_KEEP=1 keeps the databases (their names are printed) for EXPLAIN.
 */
import { Agent, request as httpRequest } from "node:http"
import pg from "pg"
import { ADMIN_URL, machine, median, processTree, type Running, scratchDatabase, startService, treeReading } from "./lib.ts"
import { seed, type User } from "./LoadData.ts"

const USERS = Number(process.env.PAGE_USERS ?? 5000)
const REQUESTS = Number(process.env.PAGE_REQUESTS ?? 3000)
const ROUNDS = Number(process.env.PAGE_ROUNDS ?? 3)
const CONCURRENCY = Number(process.env.PAGE_CONCURRENCY ?? 4)
const BEFORE_ROOT = process.env.PAGE_BEFORE_ROOT
const CHANNELS_PER_USER = 5

/** bench/load.ts's data, the same statements (bench/LoadData.ts). */
const seedUsers = async (databaseUrl: string, count: number) => (await seed(databaseUrl, count, CHANNELS_PER_USER)).users

const get = (agent: Agent, port: number, path: string, token: string) =>
  new Promise<number>((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, path, agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
      res.resume()
      res.on("end", () => resolve(res.statusCode ?? 0))
    })
    req.on("error", reject)
    req.end()
  })

/** The backends serving the database (not this script's admin connection). */
const backends = async (admin: pg.Client, database: string) =>
  (await admin.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [database])).rows.map((r) => r.pid)

interface Target {
  readonly label: string
  readonly database: string
  readonly service: Running
  readonly users: ReadonlyArray<User>
  readonly pg: Array<number>
  readonly node: Array<number>
}

const run = async (admin: pg.Client, t: Target) => {
  const agent = new Agent({ keepAlive: true, maxSockets: 10 })
  const work = Array.from({ length: REQUESTS }, () => {
    const u = t.users[Math.floor(Math.random() * t.users.length)]
    const channel = u.channels[Math.floor(Math.random() * u.channels.length)]
    const page = Math.random() < 35 / 60 ? 0 : 1
    return { path: `/api/v4/channels/${channel}/posts?page=${page}&per_page=60`, token: u.token }
  })
  // Warm: every pool connection opened and its statements prepared (backends that open later are counted whole).
  await Promise.all(Array.from({ length: 10 }, async (_, k) => {
    for (let i = k; i < 200; i += 10) await get(agent, t.service.port, work[i].path, work[i].token)
  }))
  const pids = await backends(admin, t.database)
  const nodePids = processTree(t.service.pid)
  const pg0 = treeReading(pids).cpu
  const node0 = treeReading(nodePids).cpu
  let next = 0
  let bad = 0
  const started = performance.now()
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < work.length) {
      const w = work[next++]
      if ((await get(agent, t.service.port, w.path, w.token)) !== 200) bad++
    }
  }))
  const wall = (performance.now() - started) / 1000
  const opened = (await backends(admin, t.database)).filter((p) => !pids.includes(p))
  const pgMs = (treeReading([...pids, ...opened]).cpu - pg0) * 1000 / REQUESTS
  const nodeMs = (treeReading(nodePids).cpu - node0) * 1000 / REQUESTS
  agent.destroy()
  t.pg.push(pgMs)
  t.node.push(nodeMs)
  console.log(
    `  ${t.label}: ${(REQUESTS / wall).toFixed(0)} req/s, PostgreSQL ${pgMs.toFixed(3)} ms/request, service ${nodeMs.toFixed(3)} ms/request, non-200: ${bad}, load ${machine().load}`
  )
}

const main = async () => {
  console.log(JSON.stringify(machine()))
  const admin = new pg.Client({ connectionString: ADMIN_URL })
  await admin.connect()
  const roots = [...(BEFORE_ROOT !== undefined ? [{ label: "before", root: BEFORE_ROOT }] : []), { label: "after", root: process.cwd() }]
  const targets: Array<Target> = []
  const drops: Array<() => Promise<void>> = []
  try {
    for (const { label, root } of roots) {
      const db = await scratchDatabase()
      if (process.env.PAGE_KEEP !== "1") drops.push(db.drop)
      // The service migrates the empty database; the data comes after, then ANALYZE.
      // The page cache off: the bench is about reading the page (PAGE_CACHE=true measures the cached answer).
      const service = await startService(db.url, { SERVICE_LOG_LEVEL: "info", SERVICE_PAGE_CACHE: process.env.PAGE_CACHE ?? "false" }, root)
      const users = await seedUsers(db.url, USERS)
      console.log(`${label}: ${root}, database ${db.name}`)
      targets.push({ label, database: db.name, service, users, pg: [], node: [] })
    }
    for (let round = 0; round < ROUNDS; round++) {
      console.log(`round ${round + 1}`)
      const order = round % 2 === 0 ? targets : [...targets].reverse()
      for (const t of order) await run(admin, t)
    }
    for (const t of targets) {
      console.log(`${t.label}: median PostgreSQL ${median(t.pg).toFixed(3)} ms/request, service ${median(t.node).toFixed(3)} ms/request`)
    }
  } finally {
    for (const t of targets) await t.service.stop()
    for (const drop of drops) await drop()
    await admin.end()
  }
}

await main()

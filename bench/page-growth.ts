/**
 * The 60-post channel page at 1,000 and at 100,000 posts: does its throughput stay flat as the data grows?
 *
 *   node --import tsx bench/page-growth.ts [service directory] [--seconds 10] [--rounds 3]
 *
 * Starts two service processes (from the given checkout, this one by default) on two fresh databases of the same
 * PostgreSQL: one whose channel holds 1,000 posts, one whose channel holds 100,000 (plus 20,000 posts elsewhere),
 * written by bulk SQL with a reply in every tenth post, then ANALYZEd. wrk then asks each for
 * GET /api/v4/channels/{id}/posts?page=0&per_page=60, alternating between the two (so that the load of the machine
 * weighs on both alike), and the script prints requests per second and latency per round, the medians, and their
 * ratio as JSON, with how many database connections were busy meanwhile (sampled every 50 ms). The databases are
 * dropped at the end. Needs wrk on PATH and PostgreSQL at BENCH_PG_URL (postgres://postgres@127.0.0.1:5432/postgres
 * by default). The service's own settings come from the environment (e.g. SERVICE_DB_POOL__MAX_CONNECTIONS).
 * BENCH_KEEP=1 keeps the two databases (their names are printed) for EXPLAIN.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { promisify } from "node:util"
import pg from "pg"

const args = process.argv.slice(2)
const option = (name: string, fallback: number) => {
  const at = args.indexOf(`--${name}`)
  return at === -1 ? fallback : Number(args[at + 1])
}
const serviceDir = resolve(args.find((a, i) => !a.startsWith("--") && !args[i - 1]?.startsWith("--")) ?? ".")
const seconds = option("seconds", 10)
const rounds = option("rounds", 3)
const adminUrl = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"

const freePort = () =>
  new Promise<number>((done, fail) => {
    const server = createServer()
    server.on("error", fail)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => done(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

const withAdmin = async <A>(url: string, run: (client: pg.Client) => Promise<A>) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await run(client)
  } finally {
    await client.end()
  }
}

const dbUrl = (name: string) => {
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return url.toString()
}

interface Instance {
  readonly label: string
  readonly posts: number
  readonly database: string
  readonly url: string
  readonly process: ChildProcess
  readonly dataDir: string
  path?: string
  token?: string
}

const start = async (label: string, posts: number): Promise<Instance> => {
  const database = `bench_page_${randomBytes(4).toString("hex")}_${label}`
  await withAdmin(adminUrl, (c) => c.query(`CREATE DATABASE ${database}`))
  const port = await freePort()
  const dataDir = mkdtempSync(join(tmpdir(), "bench-page-"))
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: serviceDir,
    env: {
      ...process.env,
      SERVICE_DATABASE_URL: dbUrl(database),
      SERVICE_PORT: String(port),
      SERVICE_HOST: "127.0.0.1",
      SERVICE_DATA_DIR: dataDir,
      SERVICE_LOG_LEVEL: "Error",
      SERVICE_SECURITY_RATE_LIMIT_ENABLED: "false",
      // Reading the page is what is compared, not answering it from memory.
      SERVICE_PAGE_CACHE: "false"
    },
    stdio: ["ignore", "ignore", "inherit"]
  })
  return { label, posts, database, url: `http://127.0.0.1:${port}`, process: child, dataDir }
}

const ready = async (instance: Instance) => {
  for (let i = 0; i < 300; i++) {
    try {
      const res = await fetch(`${instance.url}/api/v4/system/ping`)
      if (res.ok) return
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200))
  }
  throw new Error(`${instance.label}: the service did not start`)
}

const populate = async (instance: Instance) => {
  const call = async <A>(path: string, body: unknown, token?: string): Promise<{ body: A; token: string }> => {
    const res = await fetch(`${instance.url}/api/v4${path}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...(token === undefined ? {} : { Authorization: `Bearer ${token}` }) },
      body: JSON.stringify(body)
    })
    if (!res.ok) throw new Error(`${instance.label}: POST ${path} answered ${res.status}: ${await res.text()}`)
    return { body: (await res.json()) as A, token: res.headers.get("token") ?? token ?? "" }
  }
  const password = "correct-horse-battery"
  await call("/users", { username: "bench", email: "bench@example.com", password })
  const login = await call<{ id: string }>("/users/login", { login_id: "bench", password })
  const user = login.body
  const token = login.token
  const team = (await call<{ id: string }>("/teams", { name: "bench", display_name: "Bench", type: "O" }, token)).body
  const channel = (await call<{ id: string }>("/channels", { team_id: team.id, name: "page", display_name: "Page", type: "O" }, token)).body
  const base = Date.now() - 1_000_000_000
  await withAdmin(dbUrl(instance.database), async (c) => {
    await c.query(`
      INSERT INTO channels (id, create_at, update_at, team_id, type, display_name, name)
      SELECT 'c' || lpad(g::text, 25, '0'), ${base}, ${base}, '${team.id}', 'O', 'Other ' || g, 'other-' || g
      FROM generate_series(1, 200) g`)
    if (instance.posts > 1000) {
      await c.query(`
        INSERT INTO posts (id, create_at, update_at, user_id, channel_id, message)
        SELECT 'x' || lpad(g::text, 25, '0'), ${base} + g, ${base} + g, '${user.id}',
               'c' || lpad((g % 200 + 1)::text, 25, '0'), 'elsewhere ' || g
        FROM generate_series(1, 20000) g`)
    }
    await c.query(`
      INSERT INTO posts (id, create_at, update_at, user_id, channel_id, root_id, message)
      SELECT 'p' || lpad(g::text, 25, '0'), ${base} + g * 10, ${base} + g * 10, '${user.id}', '${channel.id}',
             CASE WHEN g % 10 = 5 THEN 'p' || lpad((g - 5)::text, 25, '0') ELSE '' END, 'message number ' || g
      FROM generate_series(1, ${instance.posts}) g;
      INSERT INTO threads (post_id, channel_id, reply_count, last_reply_at, participants)
      SELECT 'p' || lpad(g::text, 25, '0'), '${channel.id}', 1, ${base} + (g + 5) * 10, '["${user.id}"]'
      FROM generate_series(1, ${instance.posts}) g WHERE g % 10 = 0;
      -- Thread roots are flagged (migrations/0330) in checkouts that have the column.
      DO $$ BEGIN
        IF EXISTS (SELECT 1 FROM information_schema.columns WHERE table_name = 'posts' AND column_name = 'has_thread') THEN
          UPDATE posts SET has_thread = true WHERE id IN (SELECT post_id FROM threads);
        END IF;
      END $$;
      ANALYZE`)
  })
  instance.path = `/api/v4/channels/${channel.id}/posts?page=0&per_page=60`
  instance.token = token
  const res = await fetch(`${instance.url}${instance.path}`, { headers: { Authorization: `Bearer ${instance.token}` } })
  const body = (await res.json()) as { order: Array<string> }
  if (body.order.length !== 60) throw new Error(`${instance.label}: expected a page of 60 posts, got ${body.order.length}`)
}

interface Run {
  readonly rps: number
  readonly p50: number
  readonly p99: number
  /** Connections of the service's database running a statement, sampled every 50 ms: mean and highest. */
  readonly activeMean: number
  readonly activeMax: number
}

const ms = (text: string) => {
  const m = text.match(/([\d.]+)(us|ms|s)/)
  if (m === null) return NaN
  const n = Number(m[1])
  return m[2] === "us" ? n / 1000 : m[2] === "s" ? n * 1000 : n
}

/** Samples how many of the database's connections are busy while `during` runs (pool sizing evidence). */
const sampleActive = async <A>(database: string, during: Promise<A>) => {
  const client = new pg.Client({ connectionString: adminUrl })
  await client.connect()
  const samples: Array<number> = []
  let done = false
  const finished = during.finally(() => {
    done = true
  })
  try {
    while (!done) {
      const { rows } = await client.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND state = 'active'",
        [database]
      )
      samples.push(rows[0].n)
      await new Promise((r) => setTimeout(r, 50))
    }
    return { value: await finished, mean: samples.reduce((a, b) => a + b, 0) / Math.max(1, samples.length), max: Math.max(0, ...samples) }
  } finally {
    await client.end()
  }
}

const wrk = async (instance: Instance): Promise<Run> => {
  const { value: { stdout }, mean, max } = await sampleActive(instance.database, promisify(execFile)("wrk", [
    "-t2", "-c20", `-d${seconds}s`, "--latency", "-H", `Authorization: Bearer ${instance.token}`, `${instance.url}${instance.path}`
  ]))
  const rps = Number(stdout.match(/Requests\/sec:\s+([\d.]+)/)?.[1])
  const p50 = ms(stdout.match(/50%\s+(\S+)/)?.[1] ?? "")
  const p99 = ms(stdout.match(/99%\s+(\S+)/)?.[1] ?? "")
  if (/Non-2xx/.test(stdout)) throw new Error(`${instance.label}: wrk saw errors\n${stdout}`)
  return { rps, p50, p99, activeMean: Math.round(mean * 100) / 100, activeMax: max }
}

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

const main = async () => {
  const instances = [await start("small", 1000), await start("large", 100_000)]
  try {
    for (const instance of instances) {
      await ready(instance)
      await populate(instance)
    }
    const results = new Map<string, Array<Run>>(instances.map((i) => [i.label, []]))
    for (const instance of instances) await wrk({ ...instance }).catch(() => undefined) // warm-up
    for (let round = 1; round <= rounds; round++) {
      for (const instance of round % 2 === 1 ? instances : [...instances].reverse()) {
        const run = await wrk(instance)
        results.get(instance.label)!.push(run)
        console.log(`round ${round} ${instance.label} (${instance.posts} posts): ${run.rps.toFixed(0)} req/s, p50 ${run.p50} ms, p99 ${run.p99} ms, busy connections mean ${run.activeMean} max ${run.activeMax}`)
      }
    }
    const summary = Object.fromEntries(instances.map((i) => {
      const runs = results.get(i.label)!
      return [i.label, { posts: i.posts, rps: median(runs.map((r) => r.rps)), p50: median(runs.map((r) => r.p50)), p99: median(runs.map((r) => r.p99)), activeMean: median(runs.map((r) => r.activeMean)), activeMax: Math.max(...runs.map((r) => r.activeMax)) }]
    }))
    console.log(JSON.stringify({ serviceDir, seconds, rounds, ...summary, ratio: summary.large.rps / summary.small.rps }))
  } finally {
    for (const instance of instances) {
      instance.process.kill("SIGTERM")
      await new Promise((r) => instance.process.once("exit", r))
      rmSync(instance.dataDir, { recursive: true, force: true })
      if (process.env.BENCH_KEEP === "1") console.log(`kept database ${instance.database} (${instance.posts} posts) for EXPLAIN`)
      else await withAdmin(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${instance.database}`))
    }
  }
}

await main()

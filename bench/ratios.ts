/**
 * Per-request overhead (issue 10): three requests of the service against bare baselines doing the same work, measured
 * in the same run with wrk, interleaved (service, bare, service, bare, ...) and repeated; the ratio of each pair is
 * service req/s over bare req/s, and the figure is the median of the pairs. Target: every ratio >= 0.5.
 *
 *   GET /api/v4/users/me           vs node:http answering the same JSON
 *   GET /api/v4/channels/{id}/posts (60-post page) vs node:http + pg running one SELECT
 *   POST /api/v4/posts             vs node:http + pg running one INSERT
 *
 *   node --import tsx bench/ratios.ts
 *
 * Environment: BENCH_PAIRS (3), BENCH_SECONDS per run (10), BENCH_WARMUP_SECONDS (3), BENCH_CONNECTIONS (50),
 * BENCH_THREADS (2), BENCH_POSTS in the channel before the page is read (1000), BENCH_ONLY=me,page,post to run some,
 * BENCH_LOG_LEVEL (the service's, default info as in production), BENCH_NODE_ARGS (e.g. --cpu-prof), BENCH_PG_URL.
 * Prints a table per request and a JSON summary on the last line. For the page it also prints planning and execution
 * time per statement (bench/StatementTimes.ts): from pg_stat_statements over the page's runs when PostgreSQL loads it,
 * else EXPLAIN (ANALYZE) of the page's statement and of the bare SELECT, each run as a prepared statement.
 */
import { rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { newId } from "../layers/Crypto.ts"
import { ADMIN_URL, machine, median, processTree, type Running, scratchDatabase, sessionToken, startBare, startService, treeReading, wrk, wrkPath, type WrkResult } from "./lib.ts"
import { BARE_PAGE_SELECT } from "./BarePage.ts"
import * as StatementTimes from "./StatementTimes.ts"

const PAIRS = Number(process.env.BENCH_PAIRS ?? 3)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? 3)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
const THREADS = Number(process.env.BENCH_THREADS ?? 2)
const POSTS = Number(process.env.BENCH_POSTS ?? 1000)
const ONLY = (process.env.BENCH_ONLY ?? "me,page,post").split(",")

/** One user in one team and one channel holding POSTS posts, written with bulk SQL, then ANALYZE. */
const seed = async (databaseUrl: string) => {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  const at = Date.now() - POSTS * 1000
  const userId = newId()
  const teamId = newId()
  const channelId = newId()
  await client.query(`INSERT INTO users (id, create_at, update_at, username, email, first_name, last_name) VALUES ($1, $2, $2, 'bench', 'bench@bench.test', 'Bench', 'User')`, [userId, at])
  await client.query(`INSERT INTO teams (id, create_at, update_at, name, display_name, type) VALUES ($1, $2, $2, 'bench', 'Bench', 'O')`, [teamId, at])
  await client.query(`INSERT INTO team_members (team_id, user_id, roles, create_at) VALUES ($1, $2, 'team_user', $3)`, [teamId, userId, at])
  await client.query(
    `INSERT INTO channels (id, create_at, update_at, team_id, type, name, display_name, last_post_at, last_root_post_at, total_msg_count, total_msg_count_root)
     VALUES ($1, $2, $2, $3, 'O', 'bench', 'Bench', $4, $4, $5, $5)`,
    [channelId, at, teamId, at + POSTS * 1000, POSTS]
  )
  await client.query(`INSERT INTO channel_members (channel_id, user_id, roles) VALUES ($1, $2, 'channel_user')`, [channelId, userId])
  // Ids as the service makes them (26 characters): md5 gives 32 hex characters, cut to 26.
  await client.query(
    `INSERT INTO posts (id, create_at, update_at, user_id, channel_id, message)
     SELECT substr(md5(random()::text || i::text), 1, 26), $1::bigint + i * 1000, $1::bigint + i * 1000, $2, $3,
            'bench message number ' || i || ' with a few more words, as chat messages have'
     FROM generate_series(1, $4::int) AS i`,
    [at, userId, channelId, POSTS]
  )
  await client.query("ANALYZE")
  const token = await sessionToken(client, userId)
  await client.end()
  return { userId, teamId, channelId, token }
}

interface Measured extends WrkResult {
  /** CPU time (user + system) of the server's processes per request, in microseconds. */
  readonly cpuUs: number
}

interface Pair {
  readonly service: Measured
  readonly bare: Measured
  readonly ratio: number
}

/**
 * wrk against one server, with the CPU its processes used meanwhile: throughput depends on what else the machine
 * runs, CPU per request much less, so it is the figure to compare changes with on a busy machine.
 */
const measured = (server: Running, load: (seconds: number) => WrkResult) => (seconds: number): Measured => {
  const pids = processTree(server.pid)
  const before = treeReading(pids).cpu
  const result = load(seconds)
  const cpu = treeReading(pids).cpu - before
  return { ...result, cpuUs: result.requests > 0 ? (cpu * 1e6) / result.requests : Number.NaN }
}

const stats = (values: ReadonlyArray<number>) => ({
  min: Math.min(...values),
  median: median(values),
  max: Math.max(...values)
})

const fmt = (n: number, digits = 0) => Number.isFinite(n) ? n.toFixed(digits) : "-"

const compare = (name: string, service: (seconds: number) => Measured, bare: (seconds: number) => Measured) => {
  console.log(`\n${name}: warming up both servers (${WARMUP} s each)`)
  service(WARMUP)
  bare(WARMUP)
  const pairs: Array<Pair> = []
  for (let i = 0; i < PAIRS; i++) {
    const s = service(SECONDS)
    const b = bare(SECONDS)
    pairs.push({ service: s, bare: b, ratio: s.rps / b.rps })
    console.log(
      `  pair ${i + 1}: service ${fmt(s.rps)} req/s (p50 ${fmt(s.p50, 1)} ms, p99 ${fmt(s.p99, 1)} ms, errors ${s.errors + s.non2xx}, ${fmt(s.cpuUs)} µs CPU/request); ` +
        `bare ${fmt(b.rps)} req/s (p50 ${fmt(b.p50, 1)} ms, p99 ${fmt(b.p99, 1)} ms, errors ${b.errors + b.non2xx}, ${fmt(b.cpuUs)} µs CPU/request); ratio ${fmt(s.rps / b.rps, 3)}`
    )
  }
  const summary = {
    name,
    service: { rps: stats(pairs.map((p) => p.service.rps)), cpuUs: stats(pairs.map((p) => p.service.cpuUs)), p99: stats(pairs.map((p) => p.service.p99)), errors: pairs.reduce((a, p) => a + p.service.errors + p.service.non2xx, 0) },
    bare: { rps: stats(pairs.map((p) => p.bare.rps)), cpuUs: stats(pairs.map((p) => p.bare.cpuUs)), p99: stats(pairs.map((p) => p.bare.p99)), errors: pairs.reduce((a, p) => a + p.bare.errors + p.bare.non2xx, 0) },
    ratio: stats(pairs.map((p) => p.ratio))
  }
  console.table({
    "service req/s": { min: fmt(summary.service.rps.min), median: fmt(summary.service.rps.median), max: fmt(summary.service.rps.max) },
    "bare req/s": { min: fmt(summary.bare.rps.min), median: fmt(summary.bare.rps.median), max: fmt(summary.bare.rps.max) },
    "service p99 ms": { min: fmt(summary.service.p99.min, 1), median: fmt(summary.service.p99.median, 1), max: fmt(summary.service.p99.max, 1) },
    "bare p99 ms": { min: fmt(summary.bare.p99.min, 1), median: fmt(summary.bare.p99.median, 1), max: fmt(summary.bare.p99.max, 1) },
    "service µs CPU/req": { min: fmt(summary.service.cpuUs.min), median: fmt(summary.service.cpuUs.median), max: fmt(summary.service.cpuUs.max) },
    "bare µs CPU/req": { min: fmt(summary.bare.cpuUs.min), median: fmt(summary.bare.cpuUs.median), max: fmt(summary.bare.cpuUs.max) },
    ratio: { min: fmt(summary.ratio.min, 3), median: fmt(summary.ratio.median, 3), max: fmt(summary.ratio.max, 3) }
  })
  console.log(`  ${name}: ratio ${fmt(summary.ratio.median, 3)} (target >= 0.5): ${summary.ratio.median >= 0.5 ? "met" : "NOT met"}`)
  return summary
}

export const runRatios = async () => {
  wrkPath()
  const database = await scratchDatabase()
  const started: Array<Running> = []
  const results: Array<ReturnType<typeof compare> & { statements?: ReadonlyArray<StatementTimes.StatementTime> }> = []
  const before = machine()
  const captureFile = join(tmpdir(), `bench-statements-${process.pid}.jsonl`)
  try {
    // Planning and execution time per statement of the page (issue 31): from pg_stat_statements when the server
    // loads it, else the service records its first statements and the page's is EXPLAINed (StatementTimes.ts).
    const statsLoaded = await StatementTimes.hasPgStatStatements(ADMIN_URL)
    if (statsLoaded) await StatementTimes.track(database.url, database.name)
    const service = statsLoaded || !ONLY.includes("page")
      ? await startService(database.url)
      : await startService(database.url, { BENCH_CAPTURE_FILE: captureFile }, undefined, "bench/CaptureStatements.ts")
    started.push(service)
    const data = await seed(database.url)
    const auth = [`Authorization: Bearer ${data.token}`]
    const run = (url: string, seconds: number, extra: { headers?: ReadonlyArray<string>; script?: string } = {}) =>
      wrk(url, { seconds, connections: CONNECTIONS, threads: THREADS, ...extra })
    console.log(
      `per-request overhead: wrk -t${THREADS} -c${CONNECTIONS}, ${SECONDS} s per run, ${PAIRS} interleaved pairs; ` +
        `channel of ${POSTS} posts; machine ${before.cores} cores (${before.model}), load ${before.load}`
    )
    if (ONLY.includes("me")) {
      const res = await fetch(`${service.url}/api/v4/users/me`, { headers: { Authorization: `Bearer ${data.token}` } })
      if (res.status !== 200) throw new Error(`GET /users/me answered ${res.status}: ${await res.text()}`)
      const bare = await startBare("me", { BARE_BODY: await res.text() })
      started.push(bare)
      results.push(compare(
        "GET /api/v4/users/me",
        measured(service, (seconds) => run(`${service.url}/api/v4/users/me`, seconds, { headers: auth })),
        measured(bare, (seconds) => run(`${bare.url}/me`, seconds))
      ))
      await bare.stop()
    }
    if (ONLY.includes("page")) {
      const path = `/api/v4/channels/${data.channelId}/posts?page=0&per_page=60`
      const res = await fetch(`${service.url}${path}`, { headers: { Authorization: `Bearer ${data.token}` } })
      const body = await res.json() as { order: Array<string> }
      if (res.status !== 200 || body.order.length !== 60) throw new Error(`the channel page answered ${res.status} with ${body.order?.length} posts`)
      // The page's statement, as the request above sent it; then the service runs without the recorder.
      const pageStatement = StatementTimes.captured(captureFile).find((st) => st.values.includes(data.channelId))
      if (!statsLoaded) process.kill(service.pid, "SIGUSR2")
      const bare = await startBare("page", { BARE_DATABASE_URL: database.url, BARE_CHANNEL_ID: data.channelId })
      started.push(bare)
      if (statsLoaded) await StatementTimes.reset(database.url)
      const pageResult = compare(
        "GET 60-post channel page",
        measured(service, (seconds) => run(`${service.url}${path}`, seconds, { headers: auth })),
        measured(bare, (seconds) => run(`${bare.url}${path}`, seconds))
      )
      await bare.stop()
      const statements = statsLoaded
        ? await StatementTimes.report(database.url)
        : [
          ...(pageStatement === undefined ? [] : [await StatementTimes.explainTimes(database.url, pageStatement)]),
          await StatementTimes.explainTimes(database.url, { text: BARE_PAGE_SELECT, values: [data.channelId] })
        ]
      StatementTimes.printTimes(statsLoaded ? "the page run's statements" : "the page's statement, then the bare SELECT", statements)
      results.push({ ...pageResult, statements })
    }
    if (ONLY.includes("post")) {
      const body = JSON.stringify({ channel_id: data.channelId, message: "a benchmark message of ordinary length, nothing to mention" })
      const script = join(tmpdir(), `bench-post-${process.pid}.lua`)
      writeFileSync(script, `wrk.method = "POST"\nwrk.body = ${JSON.stringify(body)}\nwrk.headers["Content-Type"] = "application/json"\n`)
      const res = await fetch(`${service.url}/api/v4/posts`, { method: "POST", headers: { Authorization: `Bearer ${data.token}`, "Content-Type": "application/json" }, body })
      if (res.status !== 201) throw new Error(`POST /posts answered ${res.status}: ${await res.text()}`)
      const bare = await startBare("post", { BARE_DATABASE_URL: database.url, BARE_USER_ID: data.userId })
      started.push(bare)
      results.push(compare(
        "POST /api/v4/posts",
        measured(service, (seconds) => run(`${service.url}/api/v4/posts`, seconds, { headers: auth, script })),
        measured(bare, (seconds) => run(`${bare.url}/api/v4/posts`, seconds, { script }))
      ))
      await bare.stop()
    }
  } finally {
    for (const s of started.reverse()) await s.stop()
    await database.drop()
    rmSync(captureFile, { force: true })
  }
  const summary = { benchmark: "ratios", machine: before, loadAfter: machine().load, pairs: PAIRS, seconds: SECONDS, connections: CONNECTIONS, posts: POSTS, results }
  console.log(JSON.stringify(summary))
  return summary
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runRatios().then(() => process.exit(0), (error) => {
    console.error(error)
    process.exit(1)
  })
}

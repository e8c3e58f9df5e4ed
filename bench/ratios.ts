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
 *
 * The pairs and their report are bench/Pairs.ts's, the channel, its seeding and the page's check bench/ChannelPage.ts's
 * (shared with bench/pagescale.ts, which measures the page in channels of 100,000 and 1,000,000 posts).
 */
import { rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { beforePagePairs, capturedPageStatement, checkPage, pagePath, pageStatementTimes, seedChannel, startPageService } from "./ChannelPage.ts"
import { ADMIN_URL, machine, type Running, scratchDatabase, startBare, wrkPath } from "./lib.ts"
import { compare as compareAll, type Measured, measured, pairSettings, type Side, type Stats, wrkLoad } from "./Pairs.ts"
import * as StatementTimes from "./StatementTimes.ts"

const POSTS = Number(process.env.BENCH_POSTS ?? 1000)
const ONLY = (process.env.BENCH_ONLY ?? "me,page,post").split(",")

interface Result {
  readonly name: string
  readonly service: Side
  readonly bare: Side
  readonly ratio: Stats
  readonly statements?: ReadonlyArray<StatementTimes.StatementTime>
}

/** One request against its bare baseline (bench/Pairs.ts), as { name, service, bare, ratio }. */
const compare = (name: string, service: (seconds: number) => Measured, bare: (seconds: number) => Measured): Result => {
  const compared = compareAll(name, service, [{ label: "bare", run: bare, target: 0.5 }], pairSettings())
  const [b] = compared.baselines
  return { name, service: compared.service, bare: b.bare, ratio: b.ratio }
}

export const runRatios = async () => {
  wrkPath()
  const settings = pairSettings()
  const database = await scratchDatabase()
  const started: Array<Running> = []
  const results: Array<Result> = []
  const before = machine()
  const captureFile = join(tmpdir(), `bench-statements-${process.pid}.jsonl`)
  const script = join(tmpdir(), `bench-post-${process.pid}.lua`)
  try {
    // Planning and execution time per statement of the page (issue 31): from pg_stat_statements when the server
    // loads it, else the service records its first statements and the page's is EXPLAINed (StatementTimes.ts).
    const statsLoaded = await StatementTimes.hasPgStatStatements(ADMIN_URL)
    if (statsLoaded) await StatementTimes.track(database.url, database.name)
    const { service, stopCapture } = await startPageService(database.url, statsLoaded || !ONLY.includes("page") ? undefined : captureFile)
    started.push(service)
    const data = await seedChannel(database.url, POSTS)
    const auth = [`Authorization: Bearer ${data.token}`]
    console.log(
      `per-request overhead: wrk -t${settings.threads} -c${settings.connections}, ${settings.seconds} s per run, ${settings.pairs} interleaved pairs; ` +
        `channel of ${POSTS} posts; machine ${before.cores} cores (${before.model}), load ${before.load}`
    )
    if (ONLY.includes("me")) {
      const res = await fetch(`${service.url}/api/v4/users/me`, { headers: { Authorization: `Bearer ${data.token}` } })
      if (res.status !== 200) throw new Error(`GET /users/me answered ${res.status}: ${await res.text()}`)
      const bare = await startBare("me", { BARE_BODY: await res.text() })
      started.push(bare)
      results.push(compare(
        "GET /api/v4/users/me",
        measured(service, wrkLoad(settings, `${service.url}/api/v4/users/me`, { headers: auth })),
        measured(bare, wrkLoad(settings, `${bare.url}/me`))
      ))
      await bare.stop()
    }
    if (ONLY.includes("page")) {
      const path = pagePath(data.channelId)
      await checkPage(service, data)
      // The page's statement, as the request above sent it; then the service runs without the recorder.
      const pageStatement = capturedPageStatement(captureFile, data.channelId)
      stopCapture()
      const bare = await startBare("page", { BARE_DATABASE_URL: database.url, BARE_CHANNEL_ID: data.channelId })
      started.push(bare)
      await beforePagePairs(database.url, statsLoaded)
      const pageResult = compare(
        "GET 60-post channel page",
        measured(service, wrkLoad(settings, `${service.url}${path}`, { headers: auth })),
        measured(bare, wrkLoad(settings, `${bare.url}${path}`))
      )
      await bare.stop()
      const statements = await pageStatementTimes(database.url, statsLoaded, pageStatement, data.channelId)
      results.push({ ...pageResult, statements })
    }
    if (ONLY.includes("post")) {
      const body = JSON.stringify({ channel_id: data.channelId, message: "a benchmark message of ordinary length, nothing to mention" })
      writeFileSync(script, `wrk.method = "POST"\nwrk.body = ${JSON.stringify(body)}\nwrk.headers["Content-Type"] = "application/json"\n`)
      const res = await fetch(`${service.url}/api/v4/posts`, { method: "POST", headers: { Authorization: `Bearer ${data.token}`, "Content-Type": "application/json" }, body })
      if (res.status !== 201) throw new Error(`POST /posts answered ${res.status}: ${await res.text()}`)
      const bare = await startBare("post", { BARE_DATABASE_URL: database.url, BARE_USER_ID: data.userId })
      started.push(bare)
      results.push(compare(
        "POST /api/v4/posts",
        measured(service, wrkLoad(settings, `${service.url}/api/v4/posts`, { headers: auth, script })),
        measured(bare, wrkLoad(settings, `${bare.url}/api/v4/posts`, { script }))
      ))
      await bare.stop()
    }
  } finally {
    for (const s of started.reverse()) await s.stop()
    await database.drop()
    rmSync(captureFile, { force: true })
    rmSync(script, { force: true })
  }
  const summary = {
    benchmark: "ratios",
    machine: before,
    loadAfter: machine().load,
    pairs: settings.pairs,
    seconds: settings.seconds,
    connections: settings.connections,
    posts: POSTS,
    results
  }
  console.log(JSON.stringify(summary))
  return summary
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runRatios().then(() => process.exit(0), (error) => {
    console.error(error)
    process.exit(1)
  })
}

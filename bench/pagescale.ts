/**
 * The 60-post channel page in large channels (issue 31: the page at >= 0.5 of one prepared SELECT at 100,000 and
 * 1,000,000 posts). For each size of BENCH_PAGE_SCALES, a scratch database with one channel of that many posts
 * (bench/ChannelPage.ts: bulk SQL in batches of 100,000 with progress, then ANALYZE), the service on it at log level
 * warn (whatever BENCH_LOG_LEVEL says: the comparison is with servers that log nothing), and two bare baselines
 * (bench/bare.ts), measured in interleaved rounds (bench/Pairs.ts: one SELECT, service, same statement):
 *
 *   one SELECT      node:http + pg running one prepared SELECT of the 61 newest posts, answered as a post list
 *                   (bench/BarePage.ts; the baseline of the target: page / one SELECT >= 0.5 at each size)
 *   same statement  node:http + pg running, as a named prepared statement, exactly the statement the service sent for
 *                   the page (recorded by bench/CaptureStatements.ts, with its values), answered with its rows as
 *                   JSON: page / same statement is what the service's own JavaScript (edge, auth, access, hydration,
 *                   logging) costs above its SQL
 *
 * Per size: the rounds, min / median / max of both ratios, of each server's req/s, p99 and CPU per request, then
 * planning and execution time per run of the page's statement and of the bare SELECT (bench/StatementTimes.ts). The
 * database is dropped before the next size. Prints a summary table and a JSON summary on the last line.
 *
 *   node --import tsx bench/pagescale.ts        (or BENCH_SUITE=pagescale npm run bench)
 *
 * Environment: BENCH_PAGE_SCALES (posts per channel, "100000,1000000"), and bench/Pairs.ts's BENCH_PAIRS (3),
 * BENCH_SECONDS (10), BENCH_WARMUP_SECONDS (3), BENCH_CONNECTIONS (50), BENCH_THREADS (2); bench/lib.ts's BENCH_PG_URL,
 * BENCH_WORKERS, BENCH_NODE_ARGS, BENCH_SERVICE_ENTRY.
 */
import { rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { beforePagePairs, capturedPageStatement, checkPage, pagePath, pageStatementTimes, seedChannel, startPageService } from "./ChannelPage.ts"
import { ADMIN_URL, machine, type Running, scratchDatabase, startBare, wrkPath } from "./lib.ts"
import { compare, fmt, measured, type PairSettings, pairSettings, type Side, type Stats, wrkLoad } from "./Pairs.ts"
import * as StatementTimes from "./StatementTimes.ts"

const TARGET = 0.5
const LOG_LEVEL = "warn"

export interface PageAtScale {
  readonly posts: number
  readonly seedSeconds: number
  readonly service: Side
  readonly oneSelect: { readonly bare: Side; readonly ratio: Stats; readonly met: boolean }
  readonly sameStatement: { readonly bare: Side; readonly ratio: Stats }
  readonly statements: ReadonlyArray<StatementTimes.StatementTime>
}

const measureSize = async (posts: number, settings: PairSettings, statsLoaded: boolean): Promise<PageAtScale> => {
  const database = await scratchDatabase()
  const started: Array<Running> = []
  const captureFile = join(tmpdir(), `bench-pagescale-${process.pid}-${posts}.jsonl`)
  const statementFile = join(tmpdir(), `bench-pagescale-${process.pid}-${posts}.json`)
  try {
    console.log(`\nchannel of ${posts} posts (scratch database ${database.name})`)
    if (statsLoaded) await StatementTimes.track(database.url, database.name)
    // The recorder is always loaded: the same-statement baseline needs the page's statement.
    const { service, stopCapture } = await startPageService(database.url, captureFile, { SERVICE_LOG_LEVEL: LOG_LEVEL })
    started.push(service)
    const channel = await seedChannel(database.url, posts, true)
    await checkPage(service, channel)
    const pageStatement = capturedPageStatement(captureFile, channel.channelId)
    stopCapture()
    if (pageStatement === undefined) throw new Error(`the page's statement was not recorded in ${captureFile}`)
    writeFileSync(statementFile, JSON.stringify(pageStatement))
    const path = pagePath(channel.channelId)
    const oneSelect = await startBare("page", { BARE_DATABASE_URL: database.url, BARE_CHANNEL_ID: channel.channelId })
    started.push(oneSelect)
    const sameStatement = await startBare("statement", { BARE_DATABASE_URL: database.url, BARE_STATEMENT_FILE: statementFile })
    started.push(sameStatement)
    const res = await fetch(`${sameStatement.url}${path}`)
    const rows = await res.json() as unknown
    if (res.status !== 200 || !Array.isArray(rows) || rows.length === 0) {
      throw new Error(`the same-statement baseline answered ${res.status}: ${JSON.stringify(rows).slice(0, 300)}`)
    }
    await beforePagePairs(database.url, statsLoaded)
    const compared = compare(
      `GET 60-post channel page, ${posts} posts`,
      measured(service, wrkLoad(settings, `${service.url}${path}`, { headers: [`Authorization: Bearer ${channel.token}`] })),
      [
        { label: "one SELECT", run: measured(oneSelect, wrkLoad(settings, `${oneSelect.url}${path}`)), target: TARGET },
        { label: "same statement", run: measured(sameStatement, wrkLoad(settings, `${sameStatement.url}${path}`)) }
      ],
      settings
    )
    const [select, same] = compared.baselines
    const statements = await pageStatementTimes(database.url, statsLoaded, pageStatement, channel.channelId)
    return {
      posts,
      seedSeconds: channel.seedSeconds,
      service: compared.service,
      oneSelect: { bare: select.bare, ratio: select.ratio, met: select.met === true },
      sameStatement: { bare: same.bare, ratio: same.ratio },
      statements
    }
  } finally {
    for (const s of started.reverse()) await s.stop()
    await database.drop()
    rmSync(captureFile, { force: true })
    rmSync(statementFile, { force: true })
  }
}

export const runPageScale = async () => {
  wrkPath()
  const settings = pairSettings()
  const scales = (process.env.BENCH_PAGE_SCALES ?? "100000,1000000").split(",").filter((s) => s.trim() !== "").map(Number)
  if (scales.some((n) => !(Number.isInteger(n) && n >= 61))) throw new Error(`BENCH_PAGE_SCALES must list post counts of at least 61: ${process.env.BENCH_PAGE_SCALES}`)
  const before = machine()
  // With pg_stat_statements the service's and the same-statement baseline's runs of the page's statement are one
  // entry (same text); without it (this machine) the times come from EXPLAIN on a connection of their own.
  const statsLoaded = await StatementTimes.hasPgStatStatements(ADMIN_URL)
  console.log(
    `the 60-post channel page at ${scales.join(", ")} posts, service at log level ${LOG_LEVEL} (not BENCH_LOG_LEVEL), ` +
      `against one prepared SELECT and against the same statement bare; wrk -t${settings.threads} -c${settings.connections}, ` +
      `${settings.seconds} s per run, ${settings.pairs} interleaved rounds (one SELECT, service, same statement); ` +
      `machine ${before.cores} cores (${before.model}), load ${before.load}`
  )
  const sizes: Array<PageAtScale> = []
  for (const posts of scales) sizes.push(await measureSize(posts, settings, statsLoaded))
  const range = (s: Stats) => `${fmt(s.median, 3)} (${fmt(s.min, 3)}–${fmt(s.max, 3)})`
  console.log(`\nthe page at scale (log level ${LOG_LEVEL}; median of ${settings.pairs} rounds, min–max; CPU per request in µs)`)
  console.table(Object.fromEntries(sizes.map((s) => [
    `${s.posts} posts`,
    {
      "page / one SELECT": range(s.oneSelect.ratio),
      "page / same statement": range(s.sameStatement.ratio),
      "CPU service": fmt(s.service.cpuUs.median),
      "CPU one SELECT": fmt(s.oneSelect.bare.cpuUs.median),
      "CPU same statement": fmt(s.sameStatement.bare.cpuUs.median),
      [`target >= ${TARGET}`]: s.oneSelect.met ? "met" : "NOT met"
    }
  ])))
  const met = sizes.every((s) => s.oneSelect.met)
  const summary = {
    benchmark: "pagescale",
    machine: before,
    loadAfter: machine().load,
    logLevel: LOG_LEVEL,
    pairs: settings.pairs,
    seconds: settings.seconds,
    connections: settings.connections,
    target: `page / one SELECT >= ${TARGET} at each size`,
    met,
    sizes
  }
  console.log(`  page / one SELECT >= ${TARGET} at ${scales.join(", ")} posts: ${met ? "met" : "NOT met"}`)
  console.log(JSON.stringify(summary))
  return summary
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runPageScale().then(() => process.exit(0), (error) => {
    console.error(error)
    process.exit(1)
  })
}

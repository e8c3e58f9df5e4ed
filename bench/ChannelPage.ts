/**
 * The 60-post channel page as bench/ratios.ts and bench/pagescale.ts measure it: a scratch database seeded with one
 * user in one team and one channel of N posts (bulk SQL, then ANALYZE), the service started on it (optionally with
 * bench/CaptureStatements.ts preloaded, to learn the page's statement), the page checked once, and the planning and
 * execution time of its statement and of the bare SELECT (bench/StatementTimes.ts).
 */
import pg from "pg"
import { newId } from "../layers/Crypto.ts"
import { BARE_PAGE_SELECT } from "./BarePage.ts"
import { type Running, sessionToken, startService } from "./lib.ts"
import * as StatementTimes from "./StatementTimes.ts"

export interface SeededChannel {
  readonly userId: string
  readonly teamId: string
  readonly channelId: string
  readonly token: string
  /** Seconds the posts took to write and ANALYZE. */
  readonly seedSeconds: number
}

/** Posts are written this many per statement, so that a large channel prints its progress. */
const BATCH = 100_000

/**
 * One user in one team and one channel holding `posts` posts, written with bulk SQL (a statement per BATCH posts,
 * progress printed when `progress` and more than one batch), then ANALYZE.
 */
export const seedChannel = async (databaseUrl: string, posts: number, progress = false): Promise<SeededChannel> => {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    const started = Date.now()
    const at = Date.now() - posts * 1000
    const userId = newId()
    const teamId = newId()
    const channelId = newId()
    // Nothing here needs to survive a crash of PostgreSQL: commits need not wait for the disk.
    await client.query("SET synchronous_commit = off")
    await client.query(`INSERT INTO users (id, create_at, update_at, username, email, first_name, last_name) VALUES ($1, $2, $2, 'bench', 'bench@bench.test', 'Bench', 'User')`, [userId, at])
    await client.query(`INSERT INTO teams (id, create_at, update_at, name, display_name, type) VALUES ($1, $2, $2, 'bench', 'Bench', 'O')`, [teamId, at])
    await client.query(`INSERT INTO team_members (team_id, user_id, roles, create_at) VALUES ($1, $2, 'team_user', $3)`, [teamId, userId, at])
    await client.query(
      `INSERT INTO channels (id, create_at, update_at, team_id, type, name, display_name, last_post_at, last_root_post_at, total_msg_count, total_msg_count_root)
       VALUES ($1, $2, $2, $3, 'O', 'bench', 'Bench', $4, $4, $5, $5)`,
      [channelId, at, teamId, at + posts * 1000, posts]
    )
    await client.query(`INSERT INTO channel_members (channel_id, user_id, roles) VALUES ($1, $2, 'channel_user')`, [channelId, userId])
    for (let from = 1; from <= posts; from += BATCH) {
      const to = Math.min(posts, from + BATCH - 1)
      // Ids as the service makes them (26 characters): md5 gives 32 hex characters, cut to 26.
      await client.query(
        `INSERT INTO posts (id, create_at, update_at, user_id, channel_id, message)
         SELECT substr(md5(random()::text || i::text), 1, 26), $1::bigint + i * 1000, $1::bigint + i * 1000, $2, $3,
                'bench message number ' || i || ' with a few more words, as chat messages have'
         FROM generate_series($4::int, $5::int) AS i`,
        [at, userId, channelId, from, to]
      )
      if (progress && posts > BATCH) console.log(`  seeding: ${to} of ${posts} posts written (${((Date.now() - started) / 1000).toFixed(0)} s)`)
    }
    await client.query("ANALYZE")
    const seedSeconds = (Date.now() - started) / 1000
    if (progress) console.log(`  seeded ${posts} posts and analysed in ${seedSeconds.toFixed(1)} s`)
    const token = await sessionToken(client, userId)
    return { userId, teamId, channelId, token, seedSeconds }
  } finally {
    await client.end()
  }
}

export const pagePath = (channelId: string) => `/api/v4/channels/${channelId}/posts?page=0&per_page=60`

/**
 * The service on `databaseUrl`; with `captureFile`, bench/CaptureStatements.ts preloaded to record the statements it
 * sends (`stopCapture` takes the recorder out before the measured runs). Its page cache is off
 * (`BENCH_PAGE_CACHE=true` turns it on): wrk asks for the same page over and over, which the cache would answer from
 * memory, and the ratios are about reading the page (the load simulation measures the cache as clients meet it).
 */
export const startPageService = async (databaseUrl: string, captureFile?: string, env: Record<string, string> = {}) => {
  const withCache = { SERVICE_PAGE_CACHE: process.env.BENCH_PAGE_CACHE ?? "false", ...env }
  const service: Running = captureFile === undefined
    ? await startService(databaseUrl, withCache)
    : await startService(databaseUrl, { ...withCache, BENCH_CAPTURE_FILE: captureFile }, undefined, "bench/CaptureStatements.ts")
  return { service, stopCapture: () => captureFile === undefined ? undefined : process.kill(service.pid, "SIGUSR2") }
}

/** One page request, which must answer 60 posts (and, under the recorder, sends the page's statement). */
export const checkPage = async (service: Running, channel: SeededChannel) => {
  const res = await fetch(`${service.url}${pagePath(channel.channelId)}`, { headers: { Authorization: `Bearer ${channel.token}` } })
  const body = await res.json() as { order?: Array<string> }
  if (res.status !== 200 || body.order?.length !== 60) throw new Error(`the channel page answered ${res.status} with ${body.order?.length} posts`)
}

/** The page's statement as the service sent it (the first recorded statement naming the channel). */
export const capturedPageStatement = (captureFile: string, channelId: string) =>
  StatementTimes.captured(captureFile).find((st) => st.values.includes(channelId))

/** With pg_stat_statements, the extension's counts are reset before the pairs (see `pageStatementTimes`). */
export const beforePagePairs = async (databaseUrl: string, statsLoaded: boolean) => {
  if (statsLoaded) await StatementTimes.reset(databaseUrl)
}

/**
 * Planning and execution time per run, printed and returned: from pg_stat_statements the run's top statements (since
 * `beforePagePairs`), else EXPLAIN (ANALYZE) of the page's statement and of the bare SELECT as prepared statements.
 */
export const pageStatementTimes = async (
  databaseUrl: string,
  statsLoaded: boolean,
  pageStatement: StatementTimes.CapturedStatement | undefined,
  channelId: string
) => {
  const statements = statsLoaded
    ? await StatementTimes.report(databaseUrl)
    : [
      ...(pageStatement === undefined ? [] : [await StatementTimes.explainTimes(databaseUrl, pageStatement)]),
      await StatementTimes.explainTimes(databaseUrl, { text: BARE_PAGE_SELECT, values: [channelId] })
    ]
  StatementTimes.printTimes(statsLoaded ? "the page run's statements" : "the page's statement, then the bare SELECT", statements)
  return statements
}

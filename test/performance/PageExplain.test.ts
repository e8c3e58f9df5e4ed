import type { Channel } from "@mattermost/types/channels"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Captured, literal, type PlanNode, statementsDuring } from "../support/CapturedSql.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { channelIn, type Member, teamWith } from "../posts/Fixture.ts"

/**
 * The channel page costs one statement whatever the channel's size (issue 31): the 60 posts, their threads' counters
 * and the caller's membership of them, reactions, emojis, files, acknowledgements and priorities, read by key for the
 * page's posts only. The statements each page variant really sends (text and values, captured at pg.Client#query
 * while the route is called through Client4) are EXPLAINed (ANALYZE, BUFFERS) on the same database: the buffers they
 * touch must stay within a bound set by the page, not the channel, at 100,000 posts in the channel and, with
 * PAGE_EXPLAIN_MILLION=1 (about three more minutes of bulk writes, so not in `npm test`), at 1,000,000.
 *
 * And the statement keeps its generic plan: run as the service runs it (a named prepared statement on one
 * connection) more than five times, pg_prepared_statements must count generic plans, so PostgreSQL stops planning it
 * on every run (src/posts/PostRepo.ts windowSelect says how the statement is shaped for that).
 *
 * The data, by bulk SQL and ANALYZE (autovacuum may be off): 200 other channels of 100 posts, and the channel, whose
 * every tenth post from the fifth answers the root five before it; its roots with replies have a thread row, some
 * followed by the reader; one post in 20 has a reaction, one in 50 a file, one in 40 a priority with an
 * acknowledgement. Growth adds older posts, so the first page lists the same 60 posts at both sizes.
 */

let server: TestServer
let admin: pg.Client
let owner: Member
let bob: Member
let big: Channel
const base = Date.now() - 1_000_000_000
const PER_PAGE = 60
/**
 * Buffers per listed post a page statement may touch: a handful per post (the walk, its thread and membership, a
 * reaction, a file, an acknowledgement, a priority, each by index), plus the replies of the threads it shows.
 */
const BUFFERS_PER_POST = 12

const bulk = (text: string) => admin.query(text)

/** Posts `prefix || g` of the channel for g in [from, to], `at(g)` their time, with their threads and metadata. */
const channelPosts = async (prefix: string, from: number, to: number, at: (g: string) => string) => {
  const id = (g: string) => `'${prefix}' || lpad((${g})::text, 25, '0')`
  const series = `generate_series(${from}, ${to}) g`
  await bulk(`
    INSERT INTO posts (id, create_at, update_at, user_id, channel_id, root_id, message, has_reactions, file_ids,
                       has_priority, has_acknowledgements, has_thread)
    SELECT ${id("g")}, ${at("g")}, ${at("g")}, '${owner.user.id}', '${big.id}',
           CASE WHEN g % 10 = 5 THEN ${id("g - 5")} ELSE '' END, 'message ' || g, g % 20 = 3,
           CASE WHEN g % 50 = 7 THEN jsonb_build_array('f${prefix}' || lpad(g::text, 24, '0')) ELSE '[]' END,
           g % 40 = 0, g % 40 = 0, g % 10 = 0
    FROM ${series};
    INSERT INTO threads (post_id, channel_id, reply_count, last_reply_at, participants)
    SELECT ${id("g")}, '${big.id}', 1, ${at("g + 5")}, '["${bob.user.id}"]' FROM ${series} WHERE g % 10 = 0;
    INSERT INTO thread_memberships (post_id, user_id, last_viewed, last_updated)
    SELECT ${id("g")}, '${bob.user.id}', ${base}, ${base} FROM ${series} WHERE g % 30 = 0;
    INSERT INTO reactions (post_id, user_id, emoji_name, channel_id, create_at, update_at)
    SELECT ${id("g")}, '${bob.user.id}', 'smile', '${big.id}', ${base}, ${base} FROM ${series} WHERE g % 20 = 3;
    INSERT INTO file_infos (id, creator_id, post_id, channel_id, create_at, update_at, path, name, size)
    SELECT 'f${prefix}' || lpad(g::text, 24, '0'), '${owner.user.id}', ${id("g")}, '${big.id}', ${base}, ${base},
           'files/${prefix}' || g, 'file' || g || '.txt', 100
    FROM ${series} WHERE g % 50 = 7;
    INSERT INTO post_priority (post_id, channel_id, priority, requested_ack)
    SELECT ${id("g")}, '${big.id}', 'important', true FROM ${series} WHERE g % 40 = 0;
    INSERT INTO post_acknowledgements (post_id, user_id, acknowledged_at)
    SELECT ${id("g")}, '${bob.user.id}', ${base} FROM ${series} WHERE g % 40 = 0;
    UPDATE channels SET total_msg_count = total_msg_count + ${to - from + 1} WHERE id = '${big.id}';
    ANALYZE`)
}

const variants = (): ReadonlyArray<readonly [string, () => Promise<unknown>]> => [
  ["page 0", () => bob.client.getPosts(big.id, 0, PER_PAGE)],
  ["page 1", () => bob.client.getPosts(big.id, 1, PER_PAGE)],
  ["collapsed threads, page 0", () => bob.client.getPosts(big.id, 0, PER_PAGE, false, true, true)],
  ["collapsed threads, page 1", () => bob.client.getPosts(big.id, 1, PER_PAGE, false, true, true)]
]

/**
 * The statements a page request sent: those naming the channel (a background job of the server, such as the
 * scheduled posts' poll, may send its own meanwhile).
 */
const captured = async (run: () => Promise<unknown>) =>
  (await statementsDuring(run)).statements.filter((s) => s.values.includes(big.id))

interface Explained {
  readonly plan: PlanNode
  readonly buffers: number
}

/** EXPLAIN (ANALYZE, BUFFERS) of a captured statement, as a generic plan (what the service runs) or a custom one. */
const explain = async (s: Captured, mode: "custom" | "generic"): Promise<Explained> => {
  await admin.query(`PREPARE page_statement AS ${s.text}`)
  try {
    await admin.query(`SET plan_cache_mode = ${mode === "custom" ? "force_custom_plan" : "force_generic_plan"}`)
    const res = await admin.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE page_statement(${s.values.map(literal).join(", ")})`)
    const plan = (res.rows[0]["QUERY PLAN"] as Array<{ Plan: PlanNode }>)[0].Plan
    // A node's buffers include its children's, init plans and CTEs too: the top node's are the statement's.
    return { plan, buffers: (plan["Shared Hit Blocks"] ?? 0) + (plan["Shared Read Blocks"] ?? 0) }
  } finally {
    await admin.query("DEALLOCATE page_statement")
    await admin.query("RESET plan_cache_mode")
  }
}

/** Buffers per variant and plan mode; every variant must be one statement. */
const pageBuffers = async () => {
  const out: Record<string, number> = {}
  for (const [name, run] of variants()) {
    const statements = await captured(run)
    expect(statements.map((s) => s.text.trim().slice(0, 40)), name).toHaveLength(1)
    for (const mode of ["generic", "custom"] as const) out[`${name} (${mode})`] = (await explain(statements[0], mode)).buffers
  }
  return out
}

/**
 * The page statement run as the service runs it, a named prepared statement on one connection, for several readers'
 * pages: how many generic and custom plans PostgreSQL made for it.
 */
const plansOf = async (runs: ReadonlyArray<Captured>) => {
  const client = new pg.Client({ connectionString: server.databaseUrl })
  await client.connect()
  try {
    for (const s of runs) await client.query({ name: "page", text: s.text, values: [...s.values] })
    const { rows } = await client.query<{ generic_plans: string; custom_plans: string }>(
      "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = 'page'"
    )
    return { generic: Number(rows[0].generic_plans), custom: Number(rows[0].custom_plans) }
  } finally {
    await client.end()
  }
}

const bound = PER_PAGE * BUFFERS_PER_POST

const expectBounded = (buffers: Record<string, number>) => {
  for (const [name, n] of Object.entries(buffers)) expect(n, name).toBeLessThanOrEqual(bound)
}

let at100k: Record<string, number> = {}

beforeAll(async () => {
  // Without the page cache: a page answered from it runs no statement once the reader's access row is known
  // (src/posts/PageReaders.ts), and the page's own statement is what is explained and counted here.
  server = await startServer({ env: { SERVICE_PAGE_CACHE: "false" } })
  const made = await teamWith(server, 1)
  owner = made.owner
  bob = made.members[0]
  big = await channelIn(owner, made.team, "O", [bob])
  admin = new pg.Client({ connectionString: server.databaseUrl })
  await admin.connect()
  await bulk(`
    INSERT INTO channels (id, create_at, update_at, team_id, type, display_name, name)
    SELECT 'c' || lpad(g::text, 25, '0'), ${base}, ${base}, '${made.team.id}', 'O', 'Other ' || g, 'other-' || g
    FROM generate_series(1, 200) g;
    INSERT INTO posts (id, create_at, update_at, user_id, channel_id, message)
    SELECT 'x' || lpad(g::text, 25, '0'), ${base} + g, ${base} + g, '${owner.user.id}',
           'c' || lpad((g % 200 + 1)::text, 25, '0'), 'elsewhere ' || g
    FROM generate_series(1, 20000) g`)
  await channelPosts("p", 1, 100_000, (g) => `${base} + (${g}) * 10`)
}, 180_000)

afterAll(async () => {
  await admin?.end()
  await server?.close()
})

describe("the channel page at 100,000 posts", () => {
  it("is one statement per variant, touching buffers bounded by the page, as generic and as custom plan", async () => {
    const { rows } = await admin.query("SELECT count(*)::int AS n, pg_relation_size('posts') / 8192 AS pages FROM posts WHERE channel_id = $1", [big.id])
    expect(rows[0].n).toBeGreaterThanOrEqual(100_000)
    // Reading the channel whole would be far beyond the bound.
    expect(Number(rows[0].pages)).toBeGreaterThan(bound * 3)
    at100k = await pageBuffers()
    console.log(`page statement buffers at 100,000 posts: ${JSON.stringify(at100k)}`)
    expectBounded(at100k)
  })

  it("keeps a generic plan when run more than five times on one connection", async () => {
    const runs: Array<Captured> = []
    for (let i = 0; i < 4; i++) {
      for (const page of [0, 1]) runs.push(...await captured(() => bob.client.getPosts(big.id, page, PER_PAGE)))
    }
    const plans = await plansOf(runs)
    expect(plans.generic + plans.custom).toBe(8)
    // PostgreSQL tries five custom plans, then keeps the generic one as long as it costs no more.
    expect(plans.custom).toBeLessThanOrEqual(5)
    expect(plans.generic).toBeGreaterThanOrEqual(3)
    const collapsed: Array<Captured> = []
    for (let i = 0; i < 4; i++) {
      for (const page of [0, 1]) collapsed.push(...await captured(() => bob.client.getPosts(big.id, page, PER_PAGE, false, true, true)))
    }
    expect((await plansOf(collapsed)).generic).toBeGreaterThanOrEqual(3)
  })
})

describe.runIf(process.env.PAGE_EXPLAIN_MILLION === "1")("the channel page at 1,000,000 posts", () => {
  beforeAll(async () => {
    await channelPosts("o", 1, 900_000, (g) => `${base} - (${g}) * 10`)
  }, 1_800_000)

  it("touches the buffers it did at 100,000 posts plus the indexes' extra level, within the page's bound", async () => {
    const { rows } = await admin.query("SELECT count(*)::int AS n FROM posts WHERE channel_id = $1", [big.id])
    expect(rows[0].n).toBeGreaterThanOrEqual(1_000_000)
    const at1m = await pageBuffers()
    console.log(`page statement buffers at 1,000,000 posts: ${JSON.stringify(at1m)}`)
    expectBounded(at1m)
    // The same 60 posts: only the indexes' depth grows, one level more adding a buffer to each index descent, of
    // which a listed post costs two or three (its thread, its membership, its thread's replies). Measured: 345 -> 482
    // buffers for page 0, 198 -> 273 with collapsed threads.
    for (const [name, n] of Object.entries(at1m)) expect(n, name).toBeLessThanOrEqual(at100k[name] + 3 * PER_PAGE)
  })

  it("keeps a generic plan", async () => {
    const runs: Array<Captured> = []
    for (let i = 0; i < 4; i++) {
      for (const page of [0, 1]) runs.push(...await captured(() => bob.client.getPosts(big.id, page, PER_PAGE)))
    }
    expect((await plansOf(runs)).generic).toBeGreaterThanOrEqual(3)
  }, 120_000)
})

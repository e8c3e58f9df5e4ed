import type { Channel } from "@mattermost/types/channels"
import type { Post } from "@mattermost/types/posts"
import { Effect } from "effect"
import * as path from "node:path"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Cache } from "../../layers/Cache.ts"
import { exportTo } from "../../src/imports/Exporter.ts"
import { type Captured, literal, type PlanNode, planNodes, statementsDuring } from "../support/CapturedSql.ts"
import { tempDir } from "../support/Cleanup.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { channelIn, type Member, say, teamWith } from "../posts/Fixture.ts"

/**
 * The hot routes' statements keep their generic plans (issue 31, "plans that stay planned"). Every parameterised
 * statement runs as a named prepared statement (layers/ServiceClient.ts); PostgreSQL plans its first five runs on a
 * connection with the values (custom plans), then keeps the generic plan only if it is costed no higher than they
 * were. A statement whose custom plans see something the generic plan cannot (an array's length, a channel's row
 * count, a time's place in the histogram) and cost less for it is planned again on every run, and for the service's
 * statements that planning cost about as much as the run or more (figures in docs/performance.md).
 *
 * The routes are called through Client4 eight times each while the statements the server sends are captured (text
 * and values, at pg.Client#query); each statement text is then replayed as the service runs it, a named prepared
 * statement on one connection, with the values of those eight calls (writes in a savepoint rolled back), and
 * pg_prepared_statements must count generic plans: at most the five custom plans PostgreSQL tries first. The table
 * printed gives, per statement, the plans made and the planning and execution time of a further run (EXPLAIN
 * ANALYZE EXECUTE).
 *
 * The data, by bulk SQL and ANALYZE (autovacuum may be off): a channel of 50,000 posts (every tenth from the fifth a
 * reply, its root marked has_thread; threads, followers, reactions, files, priorities, acknowledgements, pins) and
 * 30,000 posts in 200 other channels, written in time order so that the channels' posts lie interleaved in the table
 * as they do in use (the planner costs a channel's index scans by how its rows lie), 3,000 more users with statuses,
 * 6,000 sessions, 30,000 channel memberships and 9,000 saved posts.
 */

let server: TestServer
let admin: pg.Client
let owner: Member
let bob: Member
let teamId: string
let big: Channel
let thread: Post
/** The statements of an export run before the growth (the reply and file lookups of its first page of roots). */
let exported: Array<Captured> = []
const base = Date.now() - 1_000_000_000
const id = (prefix: string, g: number | string) => `'${prefix}' || lpad((${g})::text, 25, '0')`
const bulkId = (prefix: string, n: number) => `${prefix}${String(n).padStart(25, "0")}`

const bulk = (text: string) => admin.query(text)

interface Replayed {
  readonly generic: number
  readonly custom: number
  readonly planMs: number
  readonly execMs: number
}

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

const timesOf = (res: pg.QueryResult) => {
  const out = (res.rows[0]["QUERY PLAN"] as Array<{ "Planning Time": number; "Execution Time"?: number; Plan: PlanNode }>)[0]
  return { plan: out["Planning Time"], exec: out["Execution Time"] ?? NaN, root: out.Plan }
}

/**
 * Runs of one statement text replayed as the service runs them: a named prepared statement on one connection, each
 * run in a savepoint rolled back (a write leaves nothing; one that cannot run again, such as an insert of the same
 * ids, fails after it was planned, which is what is counted). Then three EXPLAIN (ANALYZE) EXECUTE of the last run's
 * values for the times (a write that cannot run again gets its planning time from EXPLAIN without ANALYZE).
 */
const replay = async (runs: ReadonlyArray<Captured>): Promise<Replayed> => {
  const client = new pg.Client({ connectionString: server.databaseUrl })
  await client.connect()
  try {
    await client.query("BEGIN")
    for (const s of runs) {
      await client.query("SAVEPOINT run")
      await client.query({ name: "hot", text: s.text, values: [...s.values] }).catch(() => undefined)
      await client.query("ROLLBACK TO SAVEPOINT run")
    }
    const { rows } = await client.query<{ generic_plans: string; custom_plans: string }>(
      "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = 'hot'"
    )
    const plan: Array<number> = []
    const exec: Array<number> = []
    const args = runs[runs.length - 1].values.map(literal).join(", ")
    for (let i = 0; i < 3; i++) {
      await client.query("SAVEPOINT run")
      const res = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE hot(${args})`).catch(() => undefined)
      await client.query("ROLLBACK TO SAVEPOINT run")
      const times = timesOf(res ?? await client.query(`EXPLAIN (SUMMARY, FORMAT JSON) EXECUTE hot(${args})`))
      plan.push(times.plan)
      exec.push(times.exec)
    }
    await client.query("ROLLBACK")
    return { generic: Number(rows[0].generic_plans), custom: Number(rows[0].custom_plans), planMs: median(plan), execMs: median(exec) }
  } finally {
    await client.end()
  }
}

const label = (text: string) => text.replace(/\s+/g, " ").trim().slice(0, 80)

interface Measured extends Replayed {
  readonly route: string
  readonly statement: string
  readonly text: string
  /** The runs replayed: the captured ones, repeated up to eight when fewer. */
  readonly calls: number
}

/**
 * A route called eight times (`call(i)` may vary its values), its statements grouped by text and each replayed. A
 * text seen in fewer than half the calls is a background job's that ran meanwhile (the scheduled posts' poll), not
 * the route's, and is left out.
 */
const measure = async (route: string, call: (i: number) => Promise<unknown>): Promise<Array<Measured>> => {
  const byText = new Map<string, Array<Captured>>()
  for (let i = 0; i < 8; i++) {
    const { statements } = await statementsDuring(() => call(i))
    for (const s of statements) {
      if (s.values.length === 0) continue
      byText.set(s.text, [...byText.get(s.text) ?? [], s])
    }
  }
  const out: Array<Measured> = []
  for (const [text, runs] of byText) {
    if (runs.length < 4) continue
    // A statement some calls send twice or not at all is replayed eight times or more all the same.
    const replayed = runs.length >= 8 ? runs : Array.from({ length: 8 }, (_, i) => runs[i % runs.length])
    out.push({ route, statement: label(text), text, calls: replayed.length, ...await replay(replayed) })
  }
  return out
}

const print = (rows: ReadonlyArray<Measured>) =>
  console.table(rows.map((r) => ({
    route: r.route,
    statement: r.statement,
    runs: r.generic + r.custom,
    generic: r.generic,
    custom: r.custom,
    "plan ms": r.planMs.toFixed(3),
    "exec ms": Number.isNaN(r.execMs) ? "(write)" : r.execMs.toFixed(3)
  })))

/** Rows a plan reads from a table (posts unless named): what each scan returns plus what its filters threw away, every loop. */
const rowsExamined = (root: PlanNode, relation = "posts"): number =>
  planNodes(root)
    .filter((n) => n["Relation Name"] === relation)
    .reduce((sum, n) => {
      const node = n as PlanNode & { "Actual Loops"?: number; "Rows Removed by Filter"?: number }
      return sum + ((node["Actual Rows"] ?? 0) + (node["Rows Removed by Filter"] ?? 0)) * (node["Actual Loops"] ?? 1)
    }, 0)

/** EXPLAIN of a captured statement as its custom or its generic plan (ANALYZE runs it, for reads). */
const explain = async (s: Captured, mode: "custom" | "generic", analyze = false): Promise<PlanNode> => {
  await admin.query("BEGIN")
  try {
    await admin.query(`SET LOCAL plan_cache_mode = ${mode === "custom" ? "force_custom_plan" : "force_generic_plan"}`)
    await admin.query(`PREPARE explained AS ${s.text}`)
    return timesOf(await admin.query(`EXPLAIN (${analyze ? "ANALYZE, " : ""}FORMAT JSON) EXECUTE explained(${s.values.map(literal).join(", ")})`)).root
  } finally {
    await admin.query("ROLLBACK")
    await admin.query("DEALLOCATE ALL")
  }
}

beforeAll(async () => {
  server = await startServer()
  const made = await teamWith(server, 1)
  owner = made.owner
  bob = made.members[0]
  teamId = made.team.id
  big = await channelIn(owner, made.team, "O", [bob])
  admin = new pg.Client({ connectionString: server.databaseUrl })
  await admin.connect()
  const o = owner.user.id
  const b = bob.user.id

  // An export while the tables are small, its statements kept for the plans on the grown tables: 250 roots older than
  // everything else, each with two replies, so the first page of roots is a full one (200).
  await bulk(`
    INSERT INTO posts (id, create_at, update_at, user_id, channel_id, root_id, message, has_thread)
    SELECT ${id("e", "g")}, ${base} - 10000 + g, ${base} - 10000 + g, '${o}', '${big.id}',
           CASE WHEN g % 3 = 0 THEN '' ELSE ${id("e", "g - g % 3")} END, 'exported ' || g, g % 3 = 0
    FROM generate_series(3, 752) g`)
  const file = path.join(tempDir("hot-plans-export-"), "export.zip")
  exported = (await statementsDuring(() => server.runtime.runPromise(exportTo(file)))).statements

  await bulk(`
    INSERT INTO users (id, create_at, update_at, username, email)
    SELECT 'u' || lpad(g::text, 25, '0'), ${base}, ${base}, 'bulk' || g, 'bulk' || g || '@example.com'
    FROM generate_series(1, 3000) g;
    INSERT INTO team_members (team_id, user_id, create_at)
    SELECT '${teamId}', 'u' || lpad(g::text, 25, '0'), ${base} FROM generate_series(1, 3000) g;
    INSERT INTO statuses (user_id, status, last_activity_at)
    SELECT 'u' || lpad(g::text, 25, '0'), 'online', ${base} FROM generate_series(1, 3000) g;
    INSERT INTO sessions (id, user_id, create_at, expires_at, last_activity_at)
    SELECT 's' || lpad(g::text, 25, '0'), 'u' || lpad((g % 3000 + 1)::text, 25, '0'), ${base}, ${base} * 2, ${base}
    FROM generate_series(1, 6000) g;
    INSERT INTO channels (id, create_at, update_at, team_id, type, display_name, name, total_msg_count)
    SELECT 'c' || lpad(g::text, 25, '0'), ${base}, ${base}, '${teamId}', 'O', 'Other ' || g, 'other-' || g, 150
    FROM generate_series(1, 200) g;
    INSERT INTO channel_members (channel_id, user_id, notify_props)
    SELECT 'c' || lpad(((g * 7 + k * 13) % 200 + 1)::text, 25, '0'), 'u' || lpad(g::text, 25, '0'), '{"mark_unread":"all"}'
    FROM generate_series(1, 3000) g, generate_series(1, 10) k
    ON CONFLICT DO NOTHING;
    INSERT INTO channel_members (channel_id, user_id, notify_props)
    SELECT 'c' || lpad(g::text, 25, '0'), '${b}', '{"mark_unread":"all"}' FROM generate_series(1, 200, 4) g;
    INSERT INTO channel_members (channel_id, user_id, notify_props)
    SELECT '${big.id}', 'u' || lpad(g::text, 25, '0'), '{"mark_unread":"all"}' FROM generate_series(1, 500) g;
    INSERT INTO posts (id, create_at, update_at, user_id, channel_id, root_id, message, has_reactions, file_ids,
                       has_priority, has_acknowledgements, is_pinned, has_thread)
    SELECT * FROM (
      SELECT ${id("p", "g")}, ${base} + g * 10 AS at, ${base} + g * 10,
             CASE WHEN g % 3 = 0 THEN '${o}' ELSE 'u' || lpad((g % 500 + 1)::text, 25, '0') END,
             '${big.id}', CASE WHEN g % 10 = 5 THEN ${id("p", "g - 5")} ELSE '' END, 'message ' || g, g % 20 = 3,
             CASE WHEN g % 50 = 7 THEN jsonb_build_array(${id("f", "g")}) ELSE '[]' END,
             g % 40 = 0, g % 40 = 0, g % 500 = 1, g % 10 = 0
      FROM generate_series(1, 50000) g
      UNION ALL
      SELECT ${id("x", "g")}, ${base} + g * 16 + 3, ${base} + g * 16 + 3, 'u' || lpad((g % 3000 + 1)::text, 25, '0'),
             'c' || lpad((g % 200 + 1)::text, 25, '0'), '', 'elsewhere ' || g, false, '[]', false, false, false, false
      FROM generate_series(1, 30000) g
    ) interleaved ORDER BY at;
    INSERT INTO threads (post_id, channel_id, reply_count, last_reply_at, participants)
    SELECT ${id("p", "g")}, '${big.id}', 1, ${base} + (g + 5) * 10, '["${b}"]' FROM generate_series(10, 50000, 10) g;
    INSERT INTO thread_memberships (post_id, user_id, last_viewed, last_updated)
    SELECT ${id("p", "g")}, 'u' || lpad(((g + k * 331) % 3000 + 1)::text, 25, '0'), ${base}, ${base}
    FROM generate_series(10, 50000, 10) g, generate_series(1, 3) k;
    INSERT INTO thread_memberships (post_id, user_id, last_viewed, last_updated)
    SELECT ${id("p", "g")}, '${b}', ${base}, ${base} FROM generate_series(30, 50000, 30) g;
    INSERT INTO reactions (post_id, user_id, emoji_name, channel_id, create_at, update_at)
    SELECT ${id("p", "g")}, '${b}', 'smile', '${big.id}', ${base}, ${base} FROM generate_series(3, 50000, 20) g;
    INSERT INTO file_infos (id, creator_id, post_id, channel_id, create_at, update_at, path, name, size)
    SELECT ${id("f", "g")}, '${o}', ${id("p", "g")}, '${big.id}', ${base}, ${base}, 'files/' || g, 'file' || g || '.txt', 100
    FROM generate_series(7, 50000, 50) g;
    INSERT INTO post_priority (post_id, channel_id, priority, requested_ack)
    SELECT ${id("p", "g")}, '${big.id}', 'important', true FROM generate_series(40, 50000, 40) g;
    INSERT INTO post_acknowledgements (post_id, user_id, acknowledged_at)
    SELECT ${id("p", "g")}, '${b}', ${base} FROM generate_series(40, 50000, 40) g;
    INSERT INTO preferences (user_id, category, name, value)
    SELECT 'u' || lpad(g::text, 25, '0'), 'flagged_post', ${id("x", "g * 3 + k")}, 'true'
    FROM generate_series(1, 3000) g, generate_series(1, 3) k;
    INSERT INTO preferences (user_id, category, name, value)
    SELECT '${b}', 'flagged_post', ${id("p", "g")}, 'true' FROM generate_series(1, 50000, 250) g;
    UPDATE channels SET total_msg_count = total_msg_count + 50750 WHERE id = '${big.id}';
    UPDATE channel_members SET last_viewed_at = ${base} + 25000 * 10 WHERE channel_id = '${big.id}' AND user_id = '${b}';
    ANALYZE`)
  // A thread through the API, newer than the bulk posts.
  thread = await say(owner, big.id, "a thread")
  for (let i = 0; i < 5; i++) await say(i % 2 === 0 ? bob : owner, big.id, `reply ${i}`, thread.id)
  await admin.query("ANALYZE")
}, 120_000)

afterAll(async () => {
  await admin?.end()
  await server?.close()
})

describe("hot statements at 80,000 posts", () => {
  it("each hot route's statements keep a generic plan when run eight times as a named statement", async () => {
    const { rows } = await admin.query("SELECT count(*)::int AS n FROM posts")
    expect(rows[0].n).toBeGreaterThanOrEqual(80_000)
    const c = bob.client
    const me = bob.user.id
    const someUsers = (i: number) => Array.from({ length: 5 + i * 7 }, (_, k) => bulkId("u", k * 37 + i + 1))
    const routes: ReadonlyArray<readonly [string, (i: number) => Promise<unknown>]> = [
      ["thread", () => c.getPostThread(thread.id, true, false)],
      ["thread, collapsed threads", () => c.getPostThread(thread.id, true, true, true)],
      ["threads of bulk posts", (i) => c.getPostThread(bulkId("p", 10 * (i + 100)), true, true, true)],
      ["posts since", () => c.getPostsSince(big.id, Date.now() - 60_000)],
      ["posts since, collapsed threads", () => c.getPostsSince(big.id, Date.now() - 60_000, true, true, true)],
      ["posts around the last unread", () => c.getPostsUnread(big.id, me, 30, 30)],
      ["posts around the last unread, collapsed threads", () => c.getPostsUnread(big.id, me, 30, 30, true, true, true)],
      ["pinned", () => c.getPinnedPosts(big.id)],
      ["saved", () => c.getFlaggedPosts(me, undefined, teamId, 0, 60)],
      ["team unreads", () => c.getMyTeamUnreads(false)],
      ["view", (i) => c.viewMyChannel(i % 2 === 0 ? big.id : bulkId("c", 1 + 4 * i))],
      ["root post", (i) => c.createPost({ channel_id: big.id, message: `hello @${owner.username} ${i}` } as Post)],
      ["reply", (i) => c.createPost({ channel_id: big.id, message: `hello @${owner.username} ${i}`, root_id: thread.id } as Post)],
      ["statuses by ids", (i) => c.getStatusesByIds(someUsers(i))],
      // A page from the cache whose caller has no kept access row: a user event (the owner's nickname) forgets every
      // kept row, so each call after the first checks access for the asked channel and nine others in one statement
      // (Access.readerGates).
      ["a cached page's access check", async (i) => {
        await owner.client.patchMe({ nickname: `plans ${i}` })
        return c.getPosts(big.id, 0, 60)
      }]
    ]
    const measured: Array<Measured> = []
    for (const [route, call] of routes) {
      const rows = await measure(route, call)
      expect(rows.length, route).toBeGreaterThan(0)
      measured.push(...rows)
    }
    print(measured)
    // The cached page's check was sent (and so replayed above): the statement of the caller's recently viewed channels.
    expect(measured.some((m) => m.route === "a cached page's access check" && /ORDER BY cm0\.last_viewed_at DESC LIMIT 9/.test(m.text))).toBe(true)
    const replanned = measured.filter((m) => m.generic + m.custom !== m.calls || m.custom > 5 || m.generic < m.calls - 5)
    expect(replanned.map((m) => `${m.route}: ${m.statement} (${m.custom} custom plans of ${m.calls})`)).toEqual([])
  }, 180_000)

  it("posts since: the newest 1,000 changed posts, whether a few, exactly 1,000, 1,001 or the whole channel changed", async () => {
    // The n-th most recent change of the channel: asking since then finds about n posts changed.
    const nthChange = async (n: number) =>
      Number((await admin.query("SELECT update_at FROM posts WHERE channel_id = $1 ORDER BY update_at DESC OFFSET $2 LIMIT 1", [big.id, n - 1]))
        .rows[0].update_at)
    const expected = async (since: number, rootsOnly: boolean) =>
      (await admin.query(
        `SELECT id FROM posts WHERE channel_id = $1 AND update_at >= $2 ${rootsOnly ? "AND root_id = ''" : ""}
         ORDER BY create_at DESC, id DESC LIMIT 1000`,
        [big.id, since]
      )).rows.map((r) => r.id)
    for (const since of [await nthChange(20), await nthChange(1000), await nthChange(1001), base]) {
      for (const rootsOnly of [false, true]) {
        const list = await bob.client.getPostsSince(big.id, since, true, rootsOnly, rootsOnly)
        const want = await expected(since, rootsOnly)
        expect(want.length).toBeGreaterThan(0)
        expect(list.order, `since ${since}, collapsed threads ${rootsOnly}`).toEqual(want)
      }
    }
  })

  it("posts since long ago: the same statement and plan, reading about the limit's rows rather than the channel", async () => {
    const recent = (await statementsDuring(() => bob.client.getPostsSince(big.id, Date.now() - 60_000))).statements
    const old = (await statementsDuring(() => bob.client.getPostsSince(big.id, base))).statements
    const since = (list: ReadonlyArray<Captured>) => list.filter((s) => s.values.includes(big.id))
    expect(since(recent)).toHaveLength(1)
    expect(since(old)).toHaveLength(1)
    expect(since(old)[0].text).toBe(since(recent)[0].text)
    // Replayed as the service runs it: the recent ones, then the old one, whose answer is the newest 1,000 posts.
    const runs = [...Array.from({ length: 6 }, () => since(recent)[0]), since(old)[0], since(old)[0]]
    const plans = await replay(runs)
    expect(plans.generic).toBeGreaterThanOrEqual(3)
    for (const mode of ["generic", "custom"] as const) {
      const examined = rowsExamined(await explain(since(old)[0], mode, true))
      console.log(`posts since long ago (${mode} plan): ${examined} posts rows examined`)
      // The range up to the limit (1,001 rows), the walk of the newest 1,000, their roots and the replies of their
      // threads, as hydrated: a few thousand, where the channel holds 50,000.
      expect(examined, mode).toBeLessThanOrEqual(5_000)
    }
  }, 60_000)

  it("the session activity write keeps a generic plan for batches of one to three sessions", async () => {
    const me = bob.user.id
    const [session] = await bob.client.getSessions(me)
    // As if the session had been idle for a while: the stored activity and the cached copy both old.
    await admin.query("UPDATE sessions SET last_activity_at = 1 WHERE id = $1", [session.id])
    await server.runtime.runPromise(Effect.flatMap(Cache, (cache) => cache.del(`session:${session.id}`)))
    const { statements } = await statementsDuring(async () => {
      await bob.client.getMe()
      await expect.poll(async () =>
        Number((await admin.query("SELECT last_activity_at FROM sessions WHERE id = $1", [session.id])).rows[0].last_activity_at)
      ).toBeGreaterThan(1)
    })
    const write = statements.find((s) => /^\s*UPDATE sessions SET last_activity_at/.test(s.text))
    expect(write).toBeDefined()
    // The flush writes the sessions that became due meanwhile: mostly a few.
    const sessions = Array.from({ length: 8 }, (_, i) => Array.from({ length: 1 + i % 3 }, (_, k) => bulkId("s", 1 + i * 3 + k)))
    const runs = sessions.map((ids) => ({ text: write!.text, values: write!.values.map((v) => Array.isArray(v) ? ids : v) }))
    const plans = await replay(runs)
    console.log(`session activity write: ${JSON.stringify(plans)}`)
    expect(plans.generic).toBeGreaterThanOrEqual(3)
  })

  it("a reply naming one user looks up that user's membership, not every member of the channel", async () => {
    const reply = async (message: string) =>
      (await statementsDuring(() => bob.client.createPost({ channel_id: big.id, message, root_id: thread.id } as Post))).statements
        .find((s) => /ignore_channel_mentions/.test(s.text))
    const named = await reply(`thanks @${owner.username}`)
    const everyone = await reply("thanks @channel")
    expect(named).toBeDefined()
    expect(everyone).toBeDefined()
    const { rows } = await admin.query("SELECT count(*)::int AS n FROM channel_members WHERE channel_id = $1", [big.id])
    expect(rows[0].n).toBeGreaterThanOrEqual(500)
    for (const mode of ["generic", "custom"] as const) {
      // The named user and the root's author: a key lookup each, whatever the channel's size.
      expect(rowsExamined(await explain(named!, mode, true), "channel_members"), `named, ${mode} plan`).toBeLessThanOrEqual(4)
    }
    // @channel needs every member (whether each allows channel mentions): the check above is not vacuous.
    expect(rowsExamined(await explain(everyone!, "custom", true), "channel_members")).toBeGreaterThanOrEqual(500)
  })

  it("the export's lookups of a page's replies and files use their partial indexes", async () => {
    // One array of ids each (anyText), so one statement text whatever the page's length.
    const replies = exported.find((s) => /FROM posts WHERE root_id = ANY/.test(s.text))
    const files = exported.find((s) => /FROM file_infos WHERE post_id = ANY/.test(s.text))
    expect(replies?.values.find(Array.isArray)).toHaveLength(200)
    expect(files).toBeDefined()
    for (const mode of ["generic", "custom"] as const) {
      const replyPlan = planNodes(await explain(replies!, mode))
      expect(replyPlan.some((n) => n["Index Name"] === "posts_root_create_idx"), `replies, ${mode} plan`).toBe(true)
      expect(replyPlan.filter((n) => n["Node Type"] === "Seq Scan").map((n) => n["Relation Name"]), `replies, ${mode} plan`).toEqual([])
    }
    // The files' lookup names the page's posts and replies (about 600 here), for which reading the 1,000 files whole
    // may rightly be cheaper; the generic plan, which knows no values, shows the index can be used.
    const filePlan = planNodes(await explain(files!, "generic"))
    expect(filePlan.some((n) => n["Index Name"] === "file_infos_post_idx"), "files, generic plan").toBe(true)
  })
})

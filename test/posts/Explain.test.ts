import type { Channel } from "@mattermost/types/channels"
import type { Post } from "@mattermost/types/posts"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Captured, literal, type PlanNode, planNodes, statementsDuring } from "../support/CapturedSql.ts"
import { newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { channelIn, type Member, say, teamWith } from "./Fixture.ts"

/**
 * Hot queries stay flat as the data grows. The server runs in this process, so the statements each hot route really
 * sends (text and values) are captured at pg.Client#query while the route is called through Client4; each is then
 * EXPLAINed on the same database, as a custom plan (the values known) and as a generic plan (what a prepared
 * statement may switch to), and no plan may read a large table (posts, users, channel_members, channels, threads,
 * memberships, files...) with a sequential scan.
 *
 * The data: a channel whose newest posts are written first (1,000 of them), so its first page can be measured; then
 * 99,000 older posts of that channel, 20,000 posts in 200 other channels, 3,000 more users in 51 teams, 2,000 more
 * channels, 91,000 more channel memberships, 30,000 thread followers, 10,000 files, 9,000 saved posts and 3,000
 * statuses, all by bulk SQL, and ANALYZE (autovacuum may be off). The first page is the same 60 posts before and
 * after the growth, so the posts rows its statements examine must not grow.
 */

let server: TestServer
let admin: pg.Client
let owner: Member
let bob: Member
let teamId: string
let big: Channel
let thread: Post
/** Base time of the bulk posts: older than every post made through the API. */
const base = Date.now() - 1_000_000_000

const hot = (): ReadonlyArray<readonly [string, () => Promise<unknown>]> => {
  const c = bob.client
  const id = big.id
  const me = bob.user.id
  const get = async (path: string) => {
    const res = await fetch(`${server.url}/api/v4${path}`, { headers: { Authorization: `Bearer ${c.getToken()}` } })
    expect(res.status).toBe(200)
    return res.json()
  }
  return [
    ["channel page", () => c.getPosts(id, 0, 60)],
    ["channel page, collapsed threads", () => c.getPosts(id, 0, 60, false, true, true)],
    ["channel page 3", () => c.getPosts(id, 3, 60)],
    ["posts before", () => c.getPostsBefore(id, thread.id, 0, 60)],
    ["posts after", () => c.getPostsAfter(id, `p${"500".padStart(25, "0")}`, 0, 60)],
    ["posts since", () => c.getPostsSince(id, Date.now() - 60_000)],
    ["posts around the last unread", () => c.getPostsUnread(id, me, 60, 60)],
    ["thread", () => c.getPostThread(thread.id)],
    ["pinned", () => c.getPinnedPosts(id)],
    ["channel stats", () => c.getChannelStats(id, true)],
    ["channel unread", () => get(`/users/${me}/channels/${id}/unread`)],
    ["channel member", () => c.getChannelMember(id, me)],
    ["team unreads", () => c.getMyTeamUnreads(false)],
    ["my team members", () => c.getMyTeamMembers()],
    ["my channels", () => c.getMyChannels(teamId)],
    ["my channel members", () => c.getMyChannelMembers(teamId)],
    ["all channel members", () => c.getAllChannelsMembers(me, 0, 200)],
    ["user threads", () => c.getUserThreads(me, teamId, { perPage: 25, extended: true })],
    ["user threads, unread", () => c.getUserThreads(me, teamId, { perPage: 25, unread: true })],
    ["user thread", () => c.getUserThread(me, teamId, thread.id, true)],
    ["channel members", () => c.getChannelMembers(id, 0, 60)],
    ["profiles in channel", () => c.getProfilesInChannel(id, 0, 60)],
    ["channel timezones", () => c.getChannelTimezones(id)],
    ["saved posts", () => c.getFlaggedPosts(me, undefined, teamId, 0, 60)],
    ["search", () => c.searchPostsWithParams(teamId, { terms: "needle", is_or_search: false, page: 0, per_page: 60 })]
  ]
}

/**
 * Tables that hold thousands of rows here and grow with use. Small ones (teams, emoji) may be read whole: the planner
 * rightly does so while they are small.
 */
const guarded = new Set([
  "posts", "users", "channel_members", "channels", "team_members", "threads", "thread_memberships", "reactions",
  "file_infos", "preferences", "statuses"
])

/** Rows a plan reads from posts: what comes out of each posts scan plus what its filters threw away, every loop. */
const postsRowsExamined = (root: PlanNode): number =>
  planNodes(root)
    .filter((n) => n["Relation Name"] === "posts")
    .reduce((sum, n) => {
      const node = n as PlanNode & { "Actual Loops"?: number; "Rows Removed by Filter"?: number; "Rows Removed by Index Recheck"?: number }
      const perLoop = (node["Actual Rows"] ?? 0) + (node["Rows Removed by Filter"] ?? 0) + (node["Rows Removed by Index Recheck"] ?? 0)
      return sum + perLoop * (node["Actual Loops"] ?? 1)
    }, 0)

const isExplainable = (s: Captured) => /^\s*(SELECT|WITH|UPDATE|INSERT|DELETE)\b/i.test(s.text) && /\bFROM\b|\bINTO\b|\bUPDATE\b/i.test(s.text)

/** A plan as indented lines of node type, relation and index, for failure messages. */
const outline = (node: PlanNode, depth = 0): string =>
  [`${"  ".repeat(depth)}${node["Node Type"]} ${node["Relation Name"] ?? ""} ${node["Index Name"] ?? ""}`.trimEnd(),
    ...(node.Plans ?? []).map((child) => outline(child, depth + 1))].join("\n")

let prepared = 0
/** EXPLAIN of a captured statement as a custom or generic plan; ANALYZE runs it (reads only). */
const explain = async (s: Captured, mode: "custom" | "generic", analyze = false): Promise<PlanNode> => {
  const options = analyze ? "ANALYZE, BUFFERS, FORMAT JSON" : "FORMAT JSON"
  if (s.values.length === 0) {
    const res = await admin.query(`EXPLAIN (${options}) ${s.text}`)
    return (res.rows[0]["QUERY PLAN"] as Array<{ Plan: PlanNode }>)[0].Plan
  }
  const name = `explained_${(prepared += 1)}`
  await admin.query(`PREPARE ${name} AS ${s.text}`)
  try {
    await admin.query(`SET plan_cache_mode = ${mode === "custom" ? "force_custom_plan" : "force_generic_plan"}`)
    const res = await admin.query(`EXPLAIN (${options}) EXECUTE ${name}(${s.values.map(literal).join(", ")})`)
    return (res.rows[0]["QUERY PLAN"] as Array<{ Plan: PlanNode }>)[0].Plan
  } finally {
    await admin.query(`DEALLOCATE ${name}`)
    await admin.query("RESET plan_cache_mode")
  }
}

const capture = async (run: () => Promise<unknown>) => (await statementsDuring(run)).statements.filter(isExplainable)

/** The rows the first page's reads examine in posts, per statement. */
const pageCost = async () => {
  const statements = (await capture(() => bob.client.getPosts(big.id, 0, 60))).filter((s) => /^\s*(SELECT|WITH)\b/i.test(s.text))
  let rows = 0
  for (const s of statements) rows += postsRowsExamined(await explain(s, "custom", true))
  return rows
}

const bulk = async (text: string) => {
  await admin.query(text)
}

let rowsAtSmall = 0

beforeAll(async () => {
  // Without the page cache: a page answered from it runs no statement once the reader's access row is known
  // (src/posts/PageReaders.ts), and every page's statement, the access check included, is what is explained here.
  server = await startServer({ env: { SERVICE_PAGE_CACHE: "false" } })
  await newUser(server.url, "sysadmin")
  const made = await teamWith(server, 1)
  owner = made.owner
  bob = made.members[0]
  teamId = made.team.id
  big = await channelIn(owner, made.team, "O", [bob])
  admin = new pg.Client({ connectionString: server.databaseUrl })
  await admin.connect()

  // The newest posts: 1,000 by bulk SQL (every tenth, from the sixth, a reply to the root five before it), then a
  // thread, a reaction and a pin through the API so the page carries metadata.
  await bulk(`
    INSERT INTO posts (id, create_at, update_at, user_id, channel_id, root_id, message, has_thread)
    SELECT 'p' || lpad(g::text, 25, '0'), ${base} + g * 1000, ${base} + g * 1000, '${owner.user.id}', '${big.id}',
           CASE WHEN g % 10 = 5 THEN 'p' || lpad((g - 5)::text, 25, '0') ELSE '' END, 'message ' || g, g % 10 = 0
    FROM generate_series(1, 1000) g;
    INSERT INTO threads (post_id, channel_id, reply_count, last_reply_at, participants)
    SELECT 'p' || lpad(g::text, 25, '0'), '${big.id}', 1, ${base} + (g + 5) * 1000, '["${owner.user.id}"]'
    FROM generate_series(1, 1000) g WHERE g % 10 = 0;
    UPDATE channels SET total_msg_count = total_msg_count + 1000 WHERE id = '${big.id}';
    ANALYZE`)
  thread = await say(owner, big.id, "a needle in the haystack")
  await say(bob, big.id, "first reply", thread.id)
  await say(owner, big.id, "second reply", thread.id)
  await bob.client.addReaction(bob.user.id, thread.id, "+1")
  await owner.client.pinPost(thread.id)
  await admin.query("ANALYZE")
  rowsAtSmall = await pageCost()

  // Growth: older posts of the channel, other channels with members and posts, more users.
  await bulk(`
    INSERT INTO users (id, create_at, update_at, username, email, delete_at)
    SELECT 'u' || lpad(g::text, 25, '0'), ${base}, ${base}, 'bulk' || g, 'bulk' || g || '@example.com',
           CASE WHEN g % 50 = 0 THEN ${base} ELSE 0 END
    FROM generate_series(1, 3000) g;
    INSERT INTO team_members (team_id, user_id, create_at)
    SELECT '${teamId}', 'u' || lpad(g::text, 25, '0'), ${base} FROM generate_series(1, 3000) g;
    INSERT INTO channels (id, create_at, update_at, team_id, type, display_name, name)
    SELECT 'c' || lpad(g::text, 25, '0'), ${base}, ${base}, '${teamId}', 'O', 'Bulk ' || g, 'bulk-' || g
    FROM generate_series(1, 200) g;
    INSERT INTO channel_members (channel_id, user_id, notify_props)
    SELECT 'c' || lpad(((g * 7 + k * 6) % 200 + 1)::text, 25, '0'), 'u' || lpad(g::text, 25, '0'), '{"mark_unread":"all"}'
    FROM generate_series(1, 3000) g, generate_series(1, 30) k
    ON CONFLICT DO NOTHING;
    INSERT INTO channel_members (channel_id, user_id, notify_props)
    SELECT '${big.id}', 'u' || lpad(g::text, 25, '0'), '{"mark_unread":"all"}' FROM generate_series(1, 1000) g;
    INSERT INTO posts (id, create_at, update_at, user_id, channel_id, root_id, message, has_thread)
    SELECT 'o' || lpad(g::text, 25, '0'), ${base} - g * 10, ${base} - g * 10, 'u' || lpad((g % 1000 + 1)::text, 25, '0'),
           '${big.id}', CASE WHEN g % 10 = 5 THEN 'o' || lpad((g + 5)::text, 25, '0') ELSE '' END, 'older ' || g, g % 10 = 0
    FROM generate_series(1, 99000) g;
    INSERT INTO threads (post_id, channel_id, reply_count, last_reply_at, participants)
    SELECT 'o' || lpad(g::text, 25, '0'), '${big.id}', 1, ${base} - (g - 5) * 10, '[]'
    FROM generate_series(1, 99000) g WHERE g % 10 = 0;
    INSERT INTO posts (id, create_at, update_at, user_id, channel_id, message)
    SELECT 'x' || lpad(g::text, 25, '0'), ${base} + g, ${base} + g, 'u' || lpad((g % 3000 + 1)::text, 25, '0'),
           'c' || lpad((g % 200 + 1)::text, 25, '0'), 'elsewhere ' || g
    FROM generate_series(1, 20000) g;
    INSERT INTO reactions (post_id, user_id, emoji_name, channel_id, create_at, update_at)
    SELECT 'o' || lpad(g::text, 25, '0'), 'u' || lpad((g % 1000 + 1)::text, 25, '0'), 'smile', '${big.id}', ${base}, ${base}
    FROM generate_series(1, 99000, 20) g;
    UPDATE channels SET total_msg_count = total_msg_count + 99000 WHERE id = '${big.id}';
    INSERT INTO teams (id, create_at, update_at, display_name, name)
    SELECT 't' || lpad(g::text, 25, '0'), ${base}, ${base}, 'Other ' || g, 'other-' || g FROM generate_series(1, 50) g;
    INSERT INTO team_members (team_id, user_id, create_at)
    SELECT 't' || lpad(((g + k) % 50 + 1)::text, 25, '0'), 'u' || lpad(g::text, 25, '0'), ${base}
    FROM generate_series(1, 3000) g, generate_series(1, 3) k;
    INSERT INTO channels (id, create_at, update_at, team_id, type, display_name, name)
    SELECT 'd' || lpad(g::text, 25, '0'), ${base}, ${base}, 't' || lpad((g % 50 + 1)::text, 25, '0'), 'O', 'Far ' || g, 'far-' || g
    FROM generate_series(1, 2000) g;
    INSERT INTO thread_memberships (post_id, user_id, last_viewed, last_updated)
    SELECT 'o' || lpad(g::text, 25, '0'), 'u' || lpad(((g + k * 331) % 3000 + 1)::text, 25, '0'), ${base}, ${base}
    FROM generate_series(10, 99000, 10) g, generate_series(1, 3) k;
    INSERT INTO file_infos (id, creator_id, post_id, channel_id, create_at, update_at, path, name, size)
    SELECT 'f' || lpad(g::text, 25, '0'), 'u' || lpad((g % 3000 + 1)::text, 25, '0'), 'x' || lpad((g * 2)::text, 25, '0'),
           'c' || lpad((g * 2 % 200 + 1)::text, 25, '0'), ${base}, ${base}, 'files/' || g, 'file' || g || '.txt', 100
    FROM generate_series(1, 10000) g;
    INSERT INTO preferences (user_id, category, name, value)
    SELECT 'u' || lpad(g::text, 25, '0'), 'flagged_post', 'o' || lpad((g * 3 + k)::text, 25, '0'), 'true'
    FROM generate_series(1, 3000) g, generate_series(1, 3) k;
    INSERT INTO statuses (user_id, status, last_activity_at)
    SELECT 'u' || lpad(g::text, 25, '0'), 'online', ${base} FROM generate_series(1, 3000) g;
    ANALYZE`)
}, 240_000)

afterAll(async () => {
  await admin?.end()
  await server?.close()
})

describe("hot queries at 100,000 posts", () => {
  it("the channel holds the posts the test means", async () => {
    const { rows } = await admin.query("SELECT count(*)::int AS n FROM posts WHERE channel_id = $1", [big.id])
    expect(rows[0].n).toBeGreaterThanOrEqual(100_000)
  })

  it("no hot route reads a large table (posts, users, channel_members and the like) with a sequential scan", async () => {
    const failures: Array<string> = []
    let checked = 0
    for (const [route, run] of hot()) {
      const statements = await capture(run)
      expect(statements.length, route).toBeGreaterThan(0)
      for (const s of statements) {
        for (const mode of ["custom", "generic"] as const) {
          const plan = await explain(s, mode)
          checked += 1
          const scans = planNodes(plan).filter((n) => n["Node Type"] === "Seq Scan" && guarded.has(n["Relation Name"] ?? ""))
          if (scans.length > 0) {
            failures.push(`${route} (${mode} plan) scans ${scans.map((n) => n["Relation Name"]).join(", ")}:\n${s.text.trim()}\n${outline(plan)}`)
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(40)
    expect(failures).toEqual([])
  })

  it("a search for a rare word examines a few posts rows, not every post of the searched channels", async () => {
    const statements = (await capture(() => bob.client.searchPostsWithParams(teamId, { terms: "needle", is_or_search: false, page: 0, per_page: 60 })))
      .filter((s) => /^\s*(SELECT|WITH)\b/i.test(s.text))
    const examined = []
    for (const s of statements) examined.push(postsRowsExamined(await explain(s, "custom", true)))
    expect(examined.length).toBeGreaterThan(0)
    expect(Math.max(...examined)).toBeLessThanOrEqual(400)
  })

  it("the first page examines no more posts rows with 100,000 posts in the channel than with 1,000", async () => {
    const rowsAtLarge = await pageCost()
    console.log(`posts rows examined by the first page: ${rowsAtSmall} at 1,000 posts, ${rowsAtLarge} at 100,000`)
    expect(rowsAtSmall).toBeGreaterThan(0)
    // The page's 60 posts, its neighbours, their roots and the replies of their threads (about 180 rows): bounded by
    // the page, not the table. (At 1,000 posts the planner may rightly read the small table whole.)
    expect(rowsAtLarge).toBeLessThanOrEqual(rowsAtSmall * 1.1)
    expect(rowsAtLarge).toBeLessThanOrEqual(400)
  })
})

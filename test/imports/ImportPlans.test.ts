import { readFile } from "node:fs/promises"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { ImportJob } from "../../schemas/BulkImport.ts"
import { type Captured, literal, type PlanNode, planNodes, statementsDuring } from "../support/CapturedSql.ts"
import { newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { writeLargeSlackZip } from "./SlackLargeExport.ts"

/**
 * An import's statements cost what its batch holds, not what the tables hold (issue 30: a 100,000-message Slack
 * import slowed from hundreds of lines a second to ten and stopped on the statement timeout, because each batch's
 * thread refresh read every post once per thread root, and the lookup of posts already there turned into a hash join
 * over every root post when the planner still had the statistics of the empty tables).
 *
 * The server runs in this process, on tables grown by bulk SQL to 30,000 posts in 100 channels, 3,000 threads, 6,000 thread
 * followers and 3,000 reactions and not analyzed afterwards (autovacuum may be off: the statistics are still those of
 * the empty tables that the migrations analyzed). A small Slack export is imported as a job of the admin API while
 * the statements the server sends are captured; each is then EXPLAINed, as a custom and as a generic plan (what a
 * prepared statement may switch to), and run under EXPLAIN ANALYZE in a transaction rolled back. No plan may read
 * those tables with a sequential scan, and none may examine more of their rows than a batch can account for.
 */

let server: TestServer
let admin: pg.Client
let token: string

/** Tables grown here, as an import grows them. */
const grown = new Set(["posts", "threads", "thread_memberships", "reactions"])
/**
 * Rows of the grown tables one statement may examine: a batch of 100 lines (roots with their replies, reactions and
 * followers) reads a few hundred, an end-of-import statement reads the imported channels' 1,500 posts; all far below
 * the 30,000 the tables hold.
 */
const MAX_ROWS_EXAMINED = 5_000

const isExplainable = (s: Captured) => /^\s*(SELECT|WITH|UPDATE|INSERT|DELETE)\b/i.test(s.text) && /\bFROM\b|\bINTO\b|\bUPDATE\b/i.test(s.text)

/** A plan as indented lines of node type, relation and index, for failure messages. */
const outline = (node: PlanNode, depth = 0): string =>
  [`${"  ".repeat(depth)}${node["Node Type"]} ${node["Relation Name"] ?? ""} ${node["Index Name"] ?? ""}`.trimEnd(),
    ...(node.Plans ?? []).map((child) => outline(child, depth + 1))].join("\n")

/** Rows a plan reads from the grown tables: what each scan returns plus what its filters threw away, every loop. */
const rowsExamined = (root: PlanNode): number =>
  planNodes(root)
    .filter((n) => grown.has(n["Relation Name"] ?? ""))
    .reduce((sum, n) => {
      const node = n as PlanNode & { "Actual Loops"?: number; "Rows Removed by Filter"?: number; "Rows Removed by Index Recheck"?: number }
      const perLoop = (node["Actual Rows"] ?? 0) + (node["Rows Removed by Filter"] ?? 0) + (node["Rows Removed by Index Recheck"] ?? 0)
      return sum + perLoop * (node["Actual Loops"] ?? 1)
    }, 0)

let prepared = 0
/**
 * EXPLAIN of a captured statement as a custom or generic plan. With `analyze` it runs, in a transaction rolled back;
 * a write that cannot run twice (an insert of the same ids) gives undefined.
 */
const explain = async (s: Captured, mode: "custom" | "generic", analyze: boolean): Promise<PlanNode | undefined> => {
  const name = `import_plan_${(prepared += 1)}`
  await admin.query("BEGIN")
  try {
    await admin.query(`SET LOCAL plan_cache_mode = ${mode === "custom" ? "force_custom_plan" : "force_generic_plan"}`)
    await admin.query(`PREPARE ${name} AS ${s.text}`)
    const options = analyze ? "ANALYZE, FORMAT JSON" : "FORMAT JSON"
    const res = await admin.query(`EXPLAIN (${options}) EXECUTE ${name}(${s.values.map(literal).join(", ")})`)
    return (res.rows[0]["QUERY PLAN"] as Array<{ Plan: PlanNode }>)[0].Plan
  } catch (error) {
    if (analyze && (error as { code?: string }).code === "23505") return undefined
    throw error
  } finally {
    await admin.query("ROLLBACK")
    await admin.query(`DEALLOCATE ALL`)
  }
}

const call = (method: string, route: string, body?: BodyInit, contentType?: string) =>
  fetch(`${server.url}${route}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(contentType === undefined ? {} : { "Content-Type": contentType }) },
    body
  })

/** Uploads the export as an import job and waits for it to end. */
const importJob = async (zip: string) => {
  const started = await call("POST", "/api/v1/admin/import?format=slack&team=planned", await readFile(zip), "application/zip")
  expect(started.status, await started.clone().text()).toBe(201)
  const { id } = await started.json() as ImportJob
  let job: ImportJob | undefined
  await expect.poll(async () => {
    job = await (await call("GET", `/api/v1/admin/import/${id}`)).json() as ImportJob
    return job.status
  }, { timeout: 120_000, interval: 100 }).toMatch(/succeeded|failed/)
  return job!
}

beforeAll(async () => {
  server = await startServer()
  token = (await newUser(server.url, "sysadmin")).client.getToken()
  admin = new pg.Client({ connectionString: server.databaseUrl })
  await admin.connect()
  // Other channels' history: every tenth post a reply to the root before it, a thread per root with replies,
  // two followers each, a reaction on every tenth post. No ANALYZE afterwards, on purpose (see above).
  const base = Date.now() - 1_000_000_000
  const id = (prefix: string, g: string) => `'${prefix}' || lpad((${g})::text, 25, '0')`
  // 100 channels of 300 posts, ten consecutive posts in the same channel.
  const channel = (g: string) => id("c", `(${g}) / 10 % 100`)
  await admin.query(`
    INSERT INTO channels (id, create_at, update_at, team_id, type, display_name, name)
    SELECT ${id("c", "g")}, ${base}, ${base}, '', 'O', 'Ballast ' || g, 'ballast-' || g FROM generate_series(0, 99) g;
    INSERT INTO posts (id, create_at, update_at, user_id, channel_id, root_id, message)
    SELECT ${id("b", "g")}, ${base} + g, ${base} + g, ${id("u", "g % 50")}, ${channel("g")},
           CASE WHEN g % 10 = 9 THEN ${id("b", "g - 1")} ELSE '' END, 'ballast ' || g
    FROM generate_series(0, 29999) g;
    INSERT INTO threads (post_id, channel_id, reply_count, last_reply_at, participants)
    SELECT ${id("b", "g - 1")}, ${channel("g")}, 1, ${base} + g, '[]' FROM generate_series(9, 29999, 10) g;
    UPDATE posts SET has_thread = true WHERE id IN (SELECT post_id FROM threads);
    INSERT INTO thread_memberships (post_id, user_id, last_viewed, last_updated)
    SELECT ${id("b", "g - 1")}, ${id("u", "(g + k) % 50")}, ${base}, ${base} FROM generate_series(9, 29999, 10) g, generate_series(1, 2) k;
    INSERT INTO reactions (post_id, user_id, emoji_name, channel_id, create_at, update_at)
    SELECT ${id("b", "g")}, ${id("u", "g % 50")}, 'smile', ${channel("g")}, ${base}, ${base} FROM generate_series(5, 29999, 10) g`)
}, 120_000)

afterAll(async () => {
  await admin?.end()
  await server?.close()
})

describe("a Slack import into tables that hold 30,000 posts", { timeout: 240_000 }, () => {
  it("reads, per statement, what its batch touches: no sequential scan, no plan over the whole table", async () => {
    const zip = await writeLargeSlackZip({ messages: 1_500, channels: 4, people: 12 })
    const { value: job, statements } = await statementsDuring(() => importJob(zip))
    expect(job.status, job.error).toBe("succeeded")
    expect((job.created.post ?? 0) + (job.created.reply ?? 0) + (job.created.direct_post ?? 0)).toBe(1_500)

    // One of each statement text, with its largest values (the fullest batch: a plan may change with the number of
    // keys), planned on the statistics the import left, as its later batches are.
    const size = (s: Captured) => JSON.stringify(s.values).length
    const largest = new Map<string, Captured>()
    for (const s of statements.filter(isExplainable)) {
      const seen = largest.get(s.text)
      if (seen === undefined || size(s) > size(seen)) largest.set(s.text, s)
    }
    const distinct = [...largest.values()]
    expect(distinct.some((s) => /INSERT INTO threads/.test(s.text)), "the thread refresh was captured").toBe(true)
    const failures: Array<string> = []
    for (const s of distinct) {
      for (const mode of ["custom", "generic"] as const) {
        const ran = await explain(s, mode, true)
        const plan = ran ?? (await explain(s, mode, false))!
        const scans = planNodes(plan).filter((n) => n["Node Type"] === "Seq Scan" && grown.has(n["Relation Name"] ?? ""))
        if (scans.length > 0) failures.push(`${mode} plan scans ${scans.map((n) => n["Relation Name"]).join(", ")}:\n${s.text.trim()}\n${outline(plan)}`)
        const examined = ran === undefined ? 0 : rowsExamined(ran)
        if (examined > MAX_ROWS_EXAMINED) failures.push(`${mode} plan examines ${examined} rows:\n${s.text.trim()}\n${outline(plan)}`)
      }
    }
    expect(failures).toEqual([])
  })
})

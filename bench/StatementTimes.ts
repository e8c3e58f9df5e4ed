/**
 * Planning and execution time per statement (issue 31: planning a statement again on every run cost more than
 * running it). Two ways, whichever the PostgreSQL under the bench allows:
 *
 * - pg_stat_statements, when the server loads it (`shared_preload_libraries`; loading it needs a restart, so the
 *   bench never does it): the extension is created in the scratch database and planning is tracked for its sessions
 *   (`track`, before the service connects); `report` reads calls, plans, and mean planning and execution time of the
 *   statements run since `reset`.
 * - Otherwise EXPLAIN: the service runs with bench/CaptureStatements.ts preloaded, which records its first statements;
 *   `explainTimes` runs the chosen one as the service does (a prepared statement on one connection, more than the five
 *   runs after which PostgreSQL may keep a generic plan), then EXPLAIN (ANALYZE) EXECUTE, whose Planning Time is what
 *   each run pays to get its plan: a fraction of a millisecond when the generic plan is kept, the whole planning
 *   when it is made again.
 */
import { existsSync, readFileSync } from "node:fs"
import pg from "pg"
import { literal } from "../test/support/CapturedSql.ts"
import { median } from "./lib.ts"

export interface StatementTime {
  readonly statement: string
  readonly calls: number
  /** How many runs were planned (pg_stat_statements) or how many custom plans were made (EXPLAIN). */
  readonly plans: number
  /** Planning time per run, in milliseconds (all planning over all runs). */
  readonly planMs: number
  readonly execMs: number
  readonly source: "pg_stat_statements" | "EXPLAIN ANALYZE"
}

const withClient = async <A>(url: string, run: (client: pg.Client) => Promise<A>) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await run(client)
  } finally {
    await client.end()
  }
}

/** The first words of a statement, on one line, to name it in a report. */
const label = (text: string) => text.replace(/\s+/g, " ").trim().slice(0, 90)

export const hasPgStatStatements = (adminUrl: string) =>
  withClient(adminUrl, async (c) =>
    (await c.query<{ shared_preload_libraries: string }>("SHOW shared_preload_libraries")).rows[0].shared_preload_libraries
      .split(",").map((s) => s.trim()).includes("pg_stat_statements"))

/** The extension in `database`, planning tracked for sessions that connect from now on. */
export const track = (databaseUrl: string, database: string) =>
  withClient(databaseUrl, async (c) => {
    await c.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
    await c.query(`ALTER DATABASE ${database} SET pg_stat_statements.track_planning = on`)
  })

export const reset = (databaseUrl: string) => withClient(databaseUrl, (c) => c.query("SELECT pg_stat_statements_reset()"))

/** The `limit` statements of the database that took the most time since `reset`. */
export const report = (databaseUrl: string, limit = 5): Promise<ReadonlyArray<StatementTime>> =>
  withClient(databaseUrl, async (c) => {
    // Planning per run (total over calls), as each run pays it: a statement planned once per connection costs little.
    const { rows } = await c.query<{ query: string; calls: string; plans: string; plan_per_call: number; mean_exec_time: number }>(
      `SELECT query, calls, plans, total_plan_time / calls AS plan_per_call, mean_exec_time FROM pg_stat_statements
       WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query NOT LIKE '%pg_stat_statements%'
       ORDER BY total_plan_time + total_exec_time DESC LIMIT $1`,
      [limit]
    )
    return rows.map((r) => ({
      statement: label(r.query),
      calls: Number(r.calls),
      plans: Number(r.plans),
      planMs: r.plan_per_call,
      execMs: r.mean_exec_time,
      source: "pg_stat_statements" as const
    }))
  })

export interface CapturedStatement {
  readonly text: string
  readonly values: ReadonlyArray<unknown>
}

/** What bench/CaptureStatements.ts wrote to `file`. */
export const captured = (file: string): ReadonlyArray<CapturedStatement> =>
  existsSync(file)
    ? readFileSync(file, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as CapturedStatement)
    : []

/**
 * A statement run `runs` times as a prepared statement on one connection (plan_cache_mode as the server has it),
 * then `samples` times under EXPLAIN (ANALYZE): median planning and execution time, and the custom plans made.
 */
export const explainTimes = (databaseUrl: string, s: CapturedStatement, runs = 10, samples = 7): Promise<StatementTime> =>
  withClient(databaseUrl, async (c) => {
    const args = s.values.map(literal).join(", ")
    await c.query(`PREPARE timed AS ${s.text}`)
    for (let i = 0; i < runs; i++) await c.query(`EXECUTE timed(${args})`)
    const plan: Array<number> = []
    const exec: Array<number> = []
    for (let i = 0; i < samples; i++) {
      const res = await c.query(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE timed(${args})`)
      const out = (res.rows[0]["QUERY PLAN"] as Array<{ "Planning Time": number; "Execution Time": number }>)[0]
      plan.push(out["Planning Time"])
      exec.push(out["Execution Time"])
    }
    const { rows } = await c.query<{ custom_plans: string }>("SELECT custom_plans FROM pg_prepared_statements WHERE name = 'timed'")
    await c.query("DEALLOCATE timed")
    return {
      statement: label(s.text),
      calls: runs + samples,
      plans: Number(rows[0].custom_plans),
      planMs: median(plan),
      execMs: median(exec),
      source: "EXPLAIN ANALYZE" as const
    }
  })

export const printTimes = (title: string, times: ReadonlyArray<StatementTime>) => {
  console.log(`  ${title} (${times[0]?.source ?? "none"}; plans: ${times[0]?.source === "EXPLAIN ANALYZE" ? "custom plans made" : "runs planned"})`)
  console.table(Object.fromEntries(times.map((t, i) => [
    `${i + 1}`,
    { statement: t.statement.slice(0, 60), calls: t.calls, plans: t.plans, "plan ms/run": t.planMs.toFixed(3), "exec ms/run": t.execMs.toFixed(3) }
  ])))
}

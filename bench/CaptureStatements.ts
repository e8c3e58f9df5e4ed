/**
 * Preloaded into the service by the bench (`node --import tsx --import ./bench/CaptureStatements.ts src/main.ts`)
 * when PostgreSQL has no pg_stat_statements: appends the first BENCH_CAPTURE_COUNT (default 50) parameterised
 * statements the service sends (text and values, one JSON object a line) to BENCH_CAPTURE_FILE, then takes itself
 * out of the way, so that the measured requests run on the unwrapped driver. The bench then EXPLAINs the page's
 * statement on its own connection (bench/StatementTimes.ts). Every statement goes through pg.Client#query, as
 * test/support/CapturedSql.ts relies on too.
 */
import { appendFileSync } from "node:fs"
import pg from "pg"

const file = process.env.BENCH_CAPTURE_FILE
if (file !== undefined && file !== "") {
  let left = Number(process.env.BENCH_CAPTURE_COUNT ?? 50)
  const original = pg.Client.prototype.query
  pg.Client.prototype.query = function(this: pg.Client, ...args: Array<unknown>) {
    const [first] = args
    if (first !== null && typeof first === "object" && typeof (first as { text?: unknown }).text === "string") {
      const config = first as { text: string; values?: Array<unknown> }
      if (Array.isArray(config.values) && config.values.length > 0) {
        appendFileSync(file, `${JSON.stringify({ text: config.text, values: config.values })}\n`)
        left -= 1
        if (left <= 0) pg.Client.prototype.query = original
      }
    }
    return (original as (...a: Array<unknown>) => unknown).apply(this, args)
  } as typeof pg.Client.prototype.query
}

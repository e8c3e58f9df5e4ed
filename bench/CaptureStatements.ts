/**
 * Preloaded into the service by the bench (`node --import tsx --import ./bench/CaptureStatements.ts src/main.ts`)
 * when PostgreSQL has no pg_stat_statements: appends each distinct parameterised statement the service sends (its
 * text and first values, one JSON object a line) to BENCH_CAPTURE_FILE, up to BENCH_CAPTURE_COUNT (default 200)
 * texts; background polls repeat their text and so do not use that up. SIGUSR2 takes the wrapper out, so that the
 * measured requests run on the unwrapped driver. The bench then EXPLAINs the page's statement on its own connection
 * (bench/StatementTimes.ts). Every statement goes through pg.Client#query, as test/support/CapturedSql.ts relies on.
 */
import { appendFileSync } from "node:fs"
import pg from "pg"

const file = process.env.BENCH_CAPTURE_FILE
if (file !== undefined && file !== "") {
  const limit = Number(process.env.BENCH_CAPTURE_COUNT ?? 200)
  const seen = new Set<string>()
  const original = pg.Client.prototype.query
  const restore = () => {
    pg.Client.prototype.query = original
  }
  process.once("SIGUSR2", restore)
  pg.Client.prototype.query = function(this: pg.Client, ...args: Array<unknown>) {
    const [first] = args
    if (first !== null && typeof first === "object" && typeof (first as { text?: unknown }).text === "string") {
      const config = first as { text: string; values?: Array<unknown> }
      if (Array.isArray(config.values) && config.values.length > 0 && !seen.has(config.text)) {
        seen.add(config.text)
        appendFileSync(file, `${JSON.stringify({ text: config.text, values: config.values })}\n`)
        if (seen.size >= limit) restore()
      }
    }
    return (original as (...a: Array<unknown>) => unknown).apply(this, args)
  } as typeof pg.Client.prototype.query
}

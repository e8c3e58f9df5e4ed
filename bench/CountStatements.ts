/**
 * Preloaded into the service by the load simulation when BENCH_LOAD_COUNT_STATEMENTS=1: counts the statements the
 * service sends to PostgreSQL, by text, between two SIGUSR2 signals (the first starts a count, the second writes it
 * to BENCH_COUNT_FILE as JSON `{ texts: { [text]: calls } }` and stops counting), so that the bench can report
 * statements per request and which ones. Every statement goes through pg.Client#query (as
 * test/support/CapturedSql.ts relies on); counting costs a Map update per statement, so CPU figures of a counted run
 * are not the ones to quote.
 */
import { writeFileSync } from "node:fs"
import pg from "pg"

const file = process.env.BENCH_COUNT_FILE
if (file !== undefined && file !== "") {
  let counts: Map<string, number> | undefined
  process.on("SIGUSR2", () => {
    if (counts === undefined) {
      counts = new Map()
      return
    }
    writeFileSync(file, JSON.stringify({ texts: Object.fromEntries(counts) }))
    counts = undefined
  })
  const original = pg.Client.prototype.query
  pg.Client.prototype.query = function(this: pg.Client, ...args: Array<unknown>) {
    if (counts !== undefined) {
      const [first] = args
      const text = typeof first === "string" ? first : first !== null && typeof first === "object" ? String((first as { text?: unknown }).text) : "?"
      counts.set(text, (counts.get(text) ?? 0) + 1)
    }
    return (original as (...a: Array<unknown>) => unknown).apply(this, args)
  } as typeof pg.Client.prototype.query
}

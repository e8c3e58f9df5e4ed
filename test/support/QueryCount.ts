import pg from "pg"

/**
 * The SQL the in-process server sends while `run` runs: every statement goes through pg.Client#query, which is
 * wrapped for that time only. Used to prove an endpoint costs the same number of queries whatever the data size.
 */
export const queriesDuring = async <A>(run: () => Promise<A>): Promise<{ readonly value: A; readonly queries: Array<string> }> => {
  const queries: Array<string> = []
  const original = pg.Client.prototype.query
  pg.Client.prototype.query = function(this: pg.Client, ...args: Array<unknown>) {
    const first = args[0]
    queries.push(typeof first === "string" ? first : String((first as { text?: string })?.text ?? ""))
    return (original as (...a: Array<unknown>) => unknown).apply(this, args)
  } as typeof pg.Client.prototype.query
  try {
    return { value: await run(), queries }
  } finally {
    pg.Client.prototype.query = original
  }
}

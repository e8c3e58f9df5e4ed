import { statementsDuring } from "./CapturedSql.ts"

/**
 * The SQL the in-process server sends while `run` runs: every statement goes through pg.Client#query, which is
 * wrapped for that time only. Used to prove an endpoint costs the same number of queries whatever the data size.
 */
export const queriesDuring = async <A>(run: () => Promise<A>): Promise<{ readonly value: A; readonly queries: Array<string> }> => {
  const { value, statements } = await statementsDuring(run)
  return { value, queries: statements.map((s) => s.text) }
}

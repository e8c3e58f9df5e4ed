import { createHash } from "node:crypto"
import pg from "pg"
import { MAX_BIND_PARAMETERS, TooManyBindParameters } from "./DbFailures.ts"

/**
 * The pg client of the pool, for the service's own statements (those with parameters; every feature query has some):
 *
 * - They run as named prepared statements. @effect/sql-pg sends every statement unnamed, so PostgreSQL parses,
 *   analyses and plans it again on each call: for the service's typical statement (an access check with a few
 *   EXISTS, a hydrating join) that is several times the cost of running it (measured: 670 µs unnamed against 130 µs
 *   prepared for the channel access check). pg prepares a named statement once per connection and then only binds
 *   and executes it; naming is all it needs. Names come from a hash of the text, remembered for up to MAX_NAMED
 *   distinct texts per process so that text built with a varying number of placeholders cannot make each
 *   connection keep statements without bound; past that, the rest run unnamed. SERVICE_DB_PREPARED_STATEMENTS=false
 *   turns this off (a pooler in transaction mode that cannot keep prepared statements, such as PgBouncer before 1.21).
 * - They get a client-side timeout (`queryTimeoutMs`): an answer that never comes (a server that stopped
 *   responding) fails the statement. PostgreSQL's own statement_timeout cancels slow ones first.
 *
 * - A statement with more parameters than the protocol carries fails here, before anything is sent
 *   (`TooManyBindParameters`): node-postgres would send a Bind message PostgreSQL rejects as a protocol violation.
 *
 * Text without parameters (migrations: several statements at once, long index builds) runs as pg would run it, with
 * no client-side timeout; migrations lift the server's timeout for their transaction.
 */
export const MAX_NAMED = 2000

const names = new Map<string, string>()

const nameFor = (text: string): string | undefined => {
  const known = names.get(text)
  if (known !== undefined) return known
  if (names.size >= MAX_NAMED) return undefined
  const name = `s_${createHash("sha1").update(text).digest("base64url")}`
  names.set(text, name)
  return name
}

export const serviceClient = (options: { readonly prepare: boolean; readonly queryTimeoutMs: number }) =>
  class ServiceClient extends pg.Client {
    // pg's overloads are many; only (text, values[, callback]) with values is changed, everything else passes as is.
    override query(...args: Array<any>): any {
      const [text, values] = args
      if (typeof text === "string" && Array.isArray(values) && values.length > MAX_BIND_PARAMETERS) {
        const error = new TooManyBindParameters(values.length)
        const callback = args.find((a) => typeof a === "function") as ((e: Error) => void) | undefined
        if (callback === undefined) return Promise.reject(error)
        process.nextTick(() => callback(error))
        return undefined
      }
      if (typeof text === "string" && Array.isArray(values) && values.length > 0) {
        const name = options.prepare ? nameFor(text) : undefined
        const config = name === undefined
          ? { text, values, query_timeout: options.queryTimeoutMs }
          : { name, text, values, query_timeout: options.queryTimeoutMs }
        return (super.query as (...a: Array<unknown>) => unknown)(config, ...args.slice(2))
      }
      return (super.query as (...a: Array<unknown>) => unknown)(...args)
    }
  }

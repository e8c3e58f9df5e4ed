/**
 * Which database failures mean "PostgreSQL cannot be reached" and which mean "PostgreSQL refused this statement".
 *
 * Only the first kind says anything about the dependency: it counts toward the breaker, is retried on reads and
 * answers 503. The second kind is the request's own (a value out of range, a statement too deep or too large, a
 * constraint, a statement cancelled by statement_timeout...): PostgreSQL answered, so the next statement of another
 * user will be answered too. Counting those toward the breaker let one member open it for everybody (issue 25: a
 * list of 70,000 ids became a Bind message PostgreSQL rejected with SQLSTATE 08P01, which the old rule, "any class
 * 08", took for a lost connection).
 */

/** The protocol carries a statement's parameter count in 16 bits; node-postgres does not check it. */
export const MAX_BIND_PARAMETERS = 65_535

/**
 * A statement with more parameters than the protocol carries, refused before it is sent. Sent anyway, node-postgres
 * would write the count modulo 65,536 and PostgreSQL answer 08P01 ("bind message has N parameter formats but 0
 * parameters"), a protocol violation the statement caused, not the connection.
 */
export class TooManyBindParameters extends Error {
  /** program_limit_exceeded: what PostgreSQL answers for a statement beyond its limits, so it is handled as one. */
  readonly code = "54000"
  constructor(readonly count: number) {
    super(`statement has ${count} bind parameters; PostgreSQL's protocol carries at most ${MAX_BIND_PARAMETERS}`)
    this.name = "TooManyBindParameters"
  }
}

/**
 * SQLSTATEs that PostgreSQL sends when it will not serve any connection (shutting down, starting up, recovering, too
 * many clients) or when a connection broke; 08P01, the protocol violation a statement causes, is not one of them.
 */
const UNAVAILABLE_STATES = new Set(["57P01", "57P02", "57P03", "53300", "08000", "08001", "08003", "08004", "08006"])

/** Node's socket errors: the server or the way to it is gone. */
const SOCKET_ERROR = /^(ECONN|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN)/

/** node-postgres's own words for a connection that broke, never answered, or could not be had in time. */
const DRIVER_CONNECTION_MESSAGE =
  /Connection terminated|Query read timeout|timeout exceeded when trying to connect|connection error and is not queryable|Client was closed and is not queryable/i

const SQLSTATE = /^[0-9A-Z]{5}$/

/** The error and the errors it wraps (DbError ► SqlError ► the driver's), outermost first. */
const chain = (error: unknown): Array<unknown> => {
  const out: Array<unknown> = []
  let current: unknown = error
  while (current !== undefined && current !== null && out.length < 8) {
    out.push(current)
    current = (current as { cause?: unknown }).cause
  }
  return out
}

/** The SQLSTATE PostgreSQL answered with, if it answered; "" otherwise. */
export const sqlStateOf = (error: unknown): string => {
  for (const e of chain(error)) {
    const code = (e as { code?: unknown }).code
    if (typeof code === "string" && SQLSTATE.test(code)) return code
  }
  return ""
}

/** True when the failure says PostgreSQL or the connection to it is unavailable (see the module comment). */
export const isConnectionFailure = (error: unknown): boolean => {
  for (const e of chain(error)) {
    if (e instanceof TooManyBindParameters) return false
    // @effect/sql's wrapper when no connection could be checked out of the pool, whatever the reason beneath.
    if ((e as { _tag?: unknown })._tag === "SqlError" && /^(Failed to acquire connection|Connection error)/.test(String((e as { message?: unknown }).message))) return true
    const code = (e as { code?: unknown }).code
    if (typeof code === "string" && code !== "") {
      if (SQLSTATE.test(code)) return UNAVAILABLE_STATES.has(code)
      if (SOCKET_ERROR.test(code)) return true
    }
    if (e instanceof Error && DRIVER_CONNECTION_MESSAGE.test(e.message)) return true
  }
  return false
}

/**
 * A statement PostgreSQL refused because of what the request put in it: a value it cannot take (class 22), a
 * statement too large or too deep for it (class 54: too many parameters, stack depth), or a protocol violation the
 * statement caused (08P01). The request's fault, answered 400; the decode boundary's limits keep these from happening.
 */
export const isRejectedInput = (error: unknown): boolean => {
  const state = sqlStateOf(error)
  return /^(22|54)/.test(state) || state === "08P01"
}

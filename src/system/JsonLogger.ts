import { Cause, FiberId, List, Logger } from "effect"
import { writeSync } from "node:fs"

/**
 * The service's log: one JSON object per line on stdout, the same fields as Effect's `Logger.json` (message,
 * logLevel, timestamp, cause, annotations, spans, fiberId), built and written more cheaply (issue 10). `Logger.json`
 * cost about 200 µs of CPU per request for the access log line: a generic cycle-safe stringify, then a synchronous
 * `console.log` write per line. Here the common line (a text message, annotations of plain values) is built with
 * `JSON.stringify` directly, and lines are written together once per turn of the event loop: still one line per log,
 * in order, but one write for all the lines of a burst of requests. Anything else (objects, errors, a cause) takes
 * Effect's own formatting, so no value is logged differently.
 */
const isPlain = (v: unknown) => {
  const t = typeof v
  return t === "string" || t === "number" || t === "boolean" || v === undefined || v === null
}

const effectJson = Logger.jsonLogger

/**
 * `FiberId.threadName`, without building a HashSet of one id for the common case (a single fiber's id): "#<id>".
 * The generic form cost about as much as the rest of the access line (issue 10, profile of GET /users/me).
 */
const threadName = (fiberId: FiberId.FiberId) =>
  fiberId._tag === "Runtime" ? `#${fiberId.id}` : FiberId.threadName(fiberId)

/** The ISO time of the last line's millisecond: thousands of lines a second share few milliseconds. */
let isoAt = Number.NaN
let iso = ""
const isoTime = (at: number) => {
  if (at !== isoAt) {
    iso = new Date(at).toISOString()
    isoAt = at
  }
  return iso
}

const line = (options: Logger.Logger.Options<unknown>): string => {
  const { annotations, cause, message } = options
  const text = Array.isArray(message) && message.length === 1 ? message[0] : message
  if (typeof text !== "string" || !Cause.isEmpty(cause) || List.isCons(options.spans)) return effectJson.log(options)
  const annotationsObj: Record<string, unknown> = {}
  for (const [k, v] of annotations) {
    if (!isPlain(v)) return effectJson.log(options)
    annotationsObj[k] = v
  }
  return JSON.stringify({
    message: text,
    logLevel: options.logLevel.label,
    timestamp: options.date.toISOString(),
    annotations: annotationsObj,
    spans: {},
    fiberId: threadName(options.fiberId)
  })
}

/** Lines waiting for the end of this turn of the event loop. */
let pending = ""
let scheduled = false
const MAX_PENDING = 64 * 1024

const flush = () => {
  scheduled = false
  if (pending === "") return
  const out = pending
  pending = ""
  process.stdout.write(out)
}

// Lines still pending when the process exits (a fatal error, process.exit) are written synchronously.
process.once("exit", () => {
  if (pending !== "") writeSync(1, pending)
  pending = ""
})

export const write = (text: string) => {
  pending += text + "\n"
  if (pending.length >= MAX_PENDING) return flush()
  if (!scheduled) {
    scheduled = true
    setImmediate(flush)
  }
}

/**
 * A line of plain values written directly, as `jsonLogger` would have written it from `Effect.log` with these
 * annotations (and no others, no spans, no cause): for the access log, which the caller only writes when the level
 * is enabled and this logger is the one installed.
 */
export const logLine = (message: string, logLevel: string, annotations: Record<string, string | number>, fiberId: FiberId.FiberId, at: number) =>
  write(JSON.stringify({
    message,
    logLevel,
    timestamp: isoTime(at),
    annotations,
    spans: {},
    fiberId: threadName(fiberId)
  }))

export const jsonLogger = Logger.make<unknown, void>((options) => write(line(options)))

/** Replaces the default logger, as `Logger.json` does. */
export const layer = Logger.replace(Logger.defaultLogger, jsonLogger)


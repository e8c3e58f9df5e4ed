import { HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Cause, Clock, Effect, type FiberId, FiberRef, HashMap, HashSet, type Logger, LogLevel, Metric, Option } from "effect"
import { AppConfig, type ResolvedConfig } from "../Config.ts"
import { newId } from "../../layers/Crypto.ts"
import { httpRequestDuration, httpRequestsTotal } from "../../layers/Metrics.ts"
import { jsonLogger, logLine } from "../system/JsonLogger.ts"
import { versionIdHeader } from "../system/Version.ts"
import { logFailure, render, toApiError } from "./ErrorResponse.ts"

/**
 * What every request passes through: a request id, CORS, error rendering, X-Version-Id on /api/v4, metrics and
 * one structured log line. No Cache-Control is added: clients read X-Version-Id only from responses without it.
 */
/** No CORS headers: one shared (frozen) object, which callers spread or compare with, rather than one per request. */
export const NO_CORS: Record<string, string> = Object.freeze({})

export const corsHeaders = (config: ResolvedConfig, origin: string | undefined): Record<string, string> => {
  if (origin === undefined) return NO_CORS
  const allowed = config.corsAllowedOrigins.includes(origin) || (!config.isProduction && config.corsAllowedOrigins.includes("*"))
  if (!allowed) return NO_CORS
  return {
    "access-control-allow-origin": origin,
    "access-control-allow-credentials": "true",
    "access-control-expose-headers": "Token, X-Request-Id, X-Version-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After",
    vary: "Origin"
  }
}

const preflight = (cors: Record<string, string>, request: HttpServerRequest.HttpServerRequest) =>
  HttpServerResponse.empty({
    status: 204,
    headers: {
      ...cors,
      "access-control-allow-methods": "GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS",
      "access-control-allow-headers": request.headers["access-control-request-headers"] ?? "Authorization, Content-Type, X-Requested-With, X-CSRF-Token",
      "access-control-max-age": "600"
    }
  })

/** The request counter per status, tagged once: tagging builds and hashes a new metric key each time. */
const requestsByStatus = new Map<number, Metric.Metric.Counter<number>>()
const requestsCounter = (status: number) => {
  let counter = requestsByStatus.get(status)
  if (counter === undefined) {
    counter = Metric.tagged(httpRequestsTotal, "status", String(status))
    requestsByStatus.set(status, counter)
  }
  return counter
}

/** The path of a request target (origin form, as Node hands it over) without parsing a whole URL per request. */
export const pathOf = (url: string) => {
  if (url.charCodeAt(0) !== 47 /* "/" */ || url.charCodeAt(1) === 47) return new URL(url, "http://localhost").pathname
  const query = url.indexOf("?")
  const raw = query === -1 ? url : url.slice(0, query)
  // Percent-encoded, backslashes, dot segments or a fragment: let URL normalise it as before.
  return /[%#\\]|\/\.\.?(?:\/|$)/.test(raw) ? new URL(url, "http://localhost").pathname : raw
}

export const edge = <E, R>(app: HttpApp.Default<E, R>) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const config = yield* AppConfig
    const requestId = newId()
    const started = yield* Clock.currentTimeMillis
    const path = pathOf(request.url)
    const cors = corsHeaders(config, request.headers["origin"])
    if (request.method === "OPTIONS" && request.headers["access-control-request-method"] !== undefined) {
      return preflight(cors, request)
    }
    // The request id reaches error bodies through `render` below; it is not put in the context, which would copy
    // the context's map of every service on each request (a profile's 3-4% of a cached /users/me, issue 10).
    const response = yield* app.pipe(
      Effect.catchAllCause((cause) => {
        if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
        const failure = Option.orElse(Cause.failureOption(cause), () => Cause.dieOption(cause))
        const error = toApiError(Option.getOrUndefined(failure))
        return Effect.as(logFailure(error, cause), render(error, path, requestId))
      })
    )
    const headers: Record<string, string> = { ...cors, "x-request-id": requestId }
    if (path.startsWith("/api/v4")) headers["x-version-id"] = versionIdHeader()
    const finished = yield* Clock.currentTimeMillis
    yield* finish(request.method, path, response.status, started, finished, requestId)
    return HttpServerResponse.setHeaders(response, headers)
  })

/**
 * How the access line is written, from the logging in force: not at all below the info level; directly by the
 * service's own JSON logger when it is the one installed (and no annotations are in force); else through Effect's
 * logging.
 */
export type AccessLog = "off" | "direct" | "effect"

export const accessLogOf = (
  level: LogLevel.LogLevel,
  loggers: HashSet.HashSet<Logger.Logger<unknown, any>>,
  annotations: HashMap.HashMap<string, unknown>
): AccessLog =>
  LogLevel.greaterThan(level, LogLevel.Info)
    ? "off"
    : HashSet.has(loggers, jsonLogger) && HashMap.size(annotations) === 0
    ? "direct"
    : "effect"

/**
 * Metrics and the access log line, in one step (issue 10). Through `Effect.logInfo`, `annotateLogs` and
 * `Logger.json` the line cost about as much CPU as the rest of a trivial Effect HTTP request (measured on a bare
 * @effect/platform server: 150 µs per request without the line, 300-360 µs with it): fiber references, annotation
 * maps, a cycle-safe stringify and one write per line. When the service's own JSON logger is installed, the line
 * is built and queued here directly, with the fields it would have had; otherwise (tests, other loggers) it is
 * returned as an effect to run, which goes through Effect's logging as before.
 */
export const recordRequest = (
  log: AccessLog,
  request: { readonly method: string; readonly path: string; readonly status: number; readonly requestId: string },
  started: number,
  finished: number,
  fiberId: FiberId.FiberId
): Effect.Effect<void> | undefined => {
  const durationMs = finished - started
  requestsCounter(request.status).unsafeUpdate(1, [])
  httpRequestDuration.unsafeUpdate(durationMs / 1000, [])
  if (log === "off") return undefined
  // The path only: query strings may carry codes and states that do not belong in logs.
  const annotations = { method: request.method, path: request.path, status: request.status, duration_ms: durationMs, request_id: request.requestId }
  if (log === "direct") {
    logLine("http request", "INFO", annotations, fiberId, finished)
    return undefined
  }
  return Effect.logInfo("http request").pipe(Effect.annotateLogs(annotations))
}

const finish = (method: string, path: string, status: number, started: number, finished: number, requestId: string) =>
  Effect.withFiberRuntime<void>((fiber) => {
    const log = accessLogOf(
      fiber.getFiberRef(FiberRef.currentMinimumLogLevel),
      fiber.getFiberRef(FiberRef.currentLoggers),
      fiber.getFiberRef(FiberRef.currentLogAnnotations)
    )
    return recordRequest(log, { method, path, status, requestId }, started, finished, fiber.id()) ?? Effect.void
  })

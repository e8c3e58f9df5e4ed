import { HttpServerError } from "@effect/platform"
import { Cause, Effect } from "effect"
import { CacheError } from "../../layers/Cache.ts"
import { DbError } from "../../layers/Db.ts"
import { isRejectedInput } from "../../layers/DbFailures.ts"
import { CircuitOpenError } from "../../layers/Resilience.ts"
import { type DomainError, isDomainError } from "../../schemas/Errors.ts"
import { ApiError } from "./ApiError.ts"
import { json } from "./Respond.ts"

/**
 * The one place errors become responses.
 * - /api/v4 and everything outside /api/v1: Mattermost's `{id, message, detailed_error, request_id, status_code}`.
 * - /api/v1: the native `{"error": {code, message, request_id, status}}`, documented in docs/api-v1.md.
 * - 429 anywhere: the specification's `{"error": {"code": "RATE_LIMIT_EXCEEDED", message, retry_after}}`; on /api/v4
 *   the Mattermost fields are added beside it so that Mattermost clients still read an error.
 */
const nativeCodes: Record<number, string> = {
  400: "BAD_REQUEST",
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_ALLOWED",
  409: "CONFLICT",
  413: "PAYLOAD_TOO_LARGE",
  429: "RATE_LIMIT_EXCEEDED",
  500: "INTERNAL_ERROR",
  501: "NOT_IMPLEMENTED",
  502: "BAD_GATEWAY",
  503: "SERVICE_UNAVAILABLE",
  504: "GATEWAY_TIMEOUT"
}

export const isNativePath = (path: string) => path === "/api/v1" || path.startsWith("/api/v1/")

/**
 * The one table from domain errors (schemas/Errors.ts) to statuses; the body keeps the error's Mattermost id and
 * message, and the native code of /api/v1 follows from the status (`nativeCodes`).
 */
export const domainStatus: Record<DomainError["_tag"], number> = {
  Invalid: 400,
  Unauthenticated: 401,
  Forbidden: 403,
  NotFound: 404,
  Conflict: 409,
  TooLarge: 413,
  Unavailable: 503,
  Disabled: 501,
  IntegrationFailed: 502,
  IntegrationTimeout: 504
}

export const toApiError = (error: unknown): ApiError => {
  if (error instanceof ApiError) return error
  if (isDomainError(error)) {
    return new ApiError({ status: domainStatus[error._tag], id: error.id, message: error.message, detailed: error.detailed })
  }
  if (HttpServerError.isServerError(error) && error._tag === "RouteNotFound") {
    return new ApiError({ status: 404, id: "api.context.404.app_error", message: "Sorry, we could not find the page." })
  }
  // A statement PostgreSQL refused for what the request put in it (SQLSTATE class 22: bad encoding, out of range,
  // NUL...; class 54 and 08P01: too large or too deep) is the request's fault, not an outage: a 400, so that clients
  // do not retry it and outage alerts stay quiet. The decode boundary refuses the known cases first
  // (src/http/StorableInput.ts, the lists' maxItems); this is the backstop for the rest.
  if (error instanceof DbError && isRejectedInput(error)) {
    return new ApiError({ status: 400, id: "api.context.invalid_param.app_error", message: "A value in the request cannot be stored." })
  }
  if (error instanceof DbError || error instanceof CacheError || error instanceof CircuitOpenError) {
    return new ApiError({ status: 503, id: "api.context.store_unavailable.app_error", message: "A storage backend is unavailable; please retry shortly." })
  }
  if (HttpServerError.isServerError(error) && error._tag === "RequestError") {
    return new ApiError({ status: 400, id: "api.context.invalid_body_param.app_error", message: "The request could not be read." })
  }
  return new ApiError({ status: 500, id: "api.context.internal.app_error", message: "An internal error occurred." })
}

/** The status, body and extra headers of an error's answer on `path`. */
export const errorAnswer = (error: ApiError, path: string, requestId: string) => {
  const headers = error.headers ?? {}
  if (error.status === 429) {
    const retryAfter = Number(headers["retry-after"] ?? "60")
    const rateBody = { error: { code: "RATE_LIMIT_EXCEEDED", message: error.message, retry_after: retryAfter } }
    const body = isNativePath(path)
      ? rateBody
      : { ...rateBody, id: "api.context.rate_limit_exceeded.app_error", message: error.message, detailed_error: "", request_id: requestId, status_code: 429 }
    return { status: 429, body, headers }
  }
  if (isNativePath(path)) {
    const code = nativeCodes[error.status] ?? "ERROR"
    return { status: error.status, body: { error: { code, id: error.id, message: error.message, request_id: requestId, status: error.status } }, headers }
  }
  return {
    status: error.status,
    body: {
      id: error.id,
      message: error.message,
      detailed_error: error.detailed ?? "",
      request_id: requestId,
      status_code: error.status
    },
    headers
  }
}

export const render = (error: ApiError, path: string, requestId: string) => {
  const answer = errorAnswer(error, path, requestId)
  return json(answer.body, answer.status, answer.headers)
}

/**
 * Logs what the client is not shown: the cause of a 5xx. A 501 is a deliberate answer, not a failure; a 502 or 504
 * is an integration that failed or was too slow (the server is fine), worth a warning without a stack.
 */
export const logFailure = (error: ApiError, cause: Cause.Cause<unknown>) =>
  error.status === 502 || error.status === 504
    ? Effect.logWarning("an integration failed", error.message, error.detailed ?? "")
    : error.status >= 500 && error.status !== 501 ? Effect.logError("request failed", cause) : Effect.void

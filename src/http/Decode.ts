import { HttpIncomingMessage, HttpRouter, HttpServerRequest } from "@effect/platform"
import { Effect, Option, ParseResult, Schema } from "effect"
import { ApiError, badRequest, payloadTooLarge } from "./ApiError.ts"
import { discardRest } from "./RequestBody.ts"

/**
 * Schema decoding at the edge. Every failure becomes a 400 with the Mattermost error body naming what was wrong,
 * never a 500.
 */

const describe = (error: ParseResult.ParseError) => ParseResult.TreeFormatter.formatErrorSync(error)

/** One line per issue, each naming its field: "password: is missing". */
const summarize = (error: ParseResult.ParseError) =>
  ParseResult.ArrayFormatter.formatErrorSync(error)
    .map((issue) => issue.path.length === 0 ? issue.message : `${issue.path.join(".")}: ${issue.message}`)
    .join("; ")

const invalid = (where: string) => (error: ParseResult.ParseError) =>
  new ApiError({
    status: 400,
    id: "api.context.invalid_param.app_error",
    message: `Invalid ${where}: ${summarize(error)}`,
    detailed: describe(error)
  })

/** No JSON body a client sends comes near this; uploads are multipart or raw and have their own limit. */
export const JSON_BODY_LIMIT = 8 * 1024 * 1024

/** Reads the raw body once; malformed JSON is a 400, an oversized body a 413. */
export const jsonBody: Effect.Effect<unknown, ApiError, HttpServerRequest.HttpServerRequest> = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  // Refused before reading, and the rest drained, so that the client gets the 413 rather than a reset connection.
  if (Number(request.headers["content-length"] ?? 0) > JSON_BODY_LIMIT) {
    yield* discardRest
    return yield* payloadTooLarge("api.context.request_body_too_large.app_error", "The request body is too large.")
  }
  const text = yield* request.text.pipe(
    HttpIncomingMessage.withMaxBodySize(Option.some(JSON_BODY_LIMIT)),
    Effect.mapError((e) =>
      /max.?body.?size|too large/i.test(String(e.cause ?? e.description ?? ""))
        ? payloadTooLarge("api.context.request_body_too_large.app_error", "The request body is too large.")
        : badRequest("api.context.invalid_body_param.app_error", "Unable to read the request body.")
    )
  )
  if (text.trim() === "") return yield* badRequest("api.context.invalid_body_param.app_error", "Invalid or missing request body.")
  return yield* Effect.try({
    try: () => JSON.parse(text) as unknown,
    catch: () => badRequest("api.context.invalid_body_param.app_error", "Malformed JSON in request body.")
  })
})

export const body = <A, I>(schema: Schema.Schema<A, I>) =>
  Effect.flatMap(jsonBody, (raw) => Effect.mapError(Schema.decodeUnknown(schema)(raw), invalid("request body")))

/** Query parameters; clients send empty strings for unset values, so optional fields should accept "". */
export const query = <A, I>(schema: Schema.Schema<A, I>) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const url = new URL(request.url, "http://localhost")
    const params: Record<string, string> = {}
    for (const [k, v] of url.searchParams) params[k] = v
    return Effect.mapError(Schema.decodeUnknown(schema)(params), invalid("query parameter"))
  })

export const params = <A, I>(schema: Schema.Schema<A, I>) =>
  Effect.flatMap(HttpRouter.params, (raw) => Effect.mapError(Schema.decodeUnknown(schema)(raw), invalid("URL parameter")))

/** A 26-character Mattermost id, as path and body fields carry them. */
export const Id = Schema.String.pipe(Schema.pattern(/^[a-z0-9]{26}$/, { message: () => "expected a 26-character id" }))

/** "true"/"false" query flags; anything else (including "") is false. */
export const QueryBool = Schema.transform(Schema.String, Schema.Boolean, {
  strict: true,
  decode: (s) => s === "true",
  encode: (b) => (b ? "true" : "false")
})

/** Integer query values; "" counts as absent. */
export const QueryInt = (fallback: number, bounds: { min?: number; max?: number } = {}) =>
  Schema.optionalWith(
    Schema.transformOrFail(Schema.String, Schema.Number, {
      strict: true,
      decode: (s, _, ast) => {
        if (s === "") return ParseResult.succeed(fallback)
        const n = Number(s)
        if (!Number.isInteger(n)) return ParseResult.fail(new ParseResult.Type(ast, s, "expected an integer"))
        if (bounds.min !== undefined && n < bounds.min) return ParseResult.fail(new ParseResult.Type(ast, s, `must be at least ${bounds.min}`))
        return ParseResult.succeed(bounds.max !== undefined ? Math.min(n, bounds.max) : n)
      },
      encode: (n) => ParseResult.succeed(String(n))
    }),
    { default: () => fallback }
  )

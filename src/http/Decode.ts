import { HttpIncomingMessage, HttpRouter, HttpServerRequest } from "@effect/platform"
import { Effect, Option, ParseResult, Schema } from "effect"
import { ApiError, badRequest, payloadTooLarge } from "./ApiError.ts"
import { MAX_QUOTE, summarize } from "./DecodeErrors.ts"
import { discardRest } from "./RequestBody.ts"
import { type InputProblem, jsonProblem, stringProblem } from "./StorableInput.ts"

/**
 * Schema decoding at the edge. Every failure becomes a 400 with the Mattermost error body naming what was wrong,
 * never a 500.
 */

const WHOLE = { "request body": "the request body", "query parameter": "the query", "URL parameter": "the URL" } as const
type Where = keyof typeof WHOLE

/** The 400: the message names the parameters and what they accept; detailed_error says the same at more length. */
const invalidWith = (where: Where, summary: string) =>
  new ApiError({
    status: 400,
    id: "api.context.invalid_param.app_error",
    message: `Invalid ${where}: ${summary}`,
    detailed: `The ${where === "request body" ? "request body" : `${where}s`} could not be accepted. ${summary}.`
  })

const invalid = (where: Where) => (error: ParseResult.ParseError) => invalidWith(where, summarize(error.issue, WHOLE[where]))

const storable = (where: Where, problem: InputProblem | undefined) =>
  problem === undefined ? Effect.void : Effect.fail(invalidWith(
    where,
    `${problem.path.length === 0 ? WHOLE[where] : problem.path.map((k) => String(k).slice(0, MAX_QUOTE)).join(".")} ${problem.text}`
  ))

/** String parameters (query, URL) a database could not store. */
const flatProblem = (values: Record<string, string>): InputProblem | undefined => {
  for (const [key, value] of Object.entries(values)) {
    const text = stringProblem(key) ?? stringProblem(value)
    if (text !== undefined) return { path: [key], text }
  }
  return undefined
}

/** No JSON body a client sends comes near this; uploads are multipart or raw and have their own limit. */
export const JSON_BODY_LIMIT = 8 * 1024 * 1024

/** A body that could not be read (the connection failed while it came). */
export const unreadableBody = () => badRequest("api.context.invalid_body_param.app_error", "Unable to read the request body.")

/** The raw body as text, at most `limit` bytes: an oversized body is a 413, one that could not be read a 400. */
export const textBody = (limit: number): Effect.Effect<string, ApiError, HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    // Refused before reading, and the rest drained, so that the client gets the 413 rather than a reset connection.
    if (Number(request.headers["content-length"] ?? 0) > limit) {
      yield* discardRest
      return yield* payloadTooLarge("api.context.request_body_too_large.app_error", "The request body is too large.")
    }
    return yield* request.text.pipe(
      HttpIncomingMessage.withMaxBodySize(Option.some(limit)),
      Effect.mapError((e) =>
        /max.?body.?size|too large/i.test(String(e.cause ?? e.description ?? ""))
          ? payloadTooLarge("api.context.request_body_too_large.app_error", "The request body is too large.")
          : unreadableBody()
      )
    )
  })

/** Reads the raw body once; malformed JSON is a 400, an oversized body a 413. */
export const jsonBody: Effect.Effect<unknown, ApiError, HttpServerRequest.HttpServerRequest> = Effect.flatMap(textBody(JSON_BODY_LIMIT), (text) => jsonText(text))

/** A body already read, as `jsonBody` takes it: blank is a 400, malformed JSON a 400, unstorable values a 400. */
export const jsonText = (text: string): Effect.Effect<unknown, ApiError> => {
  if (text.trim() === "") return Effect.fail(badRequest("api.context.invalid_body_param.app_error", "Invalid or missing request body."))
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return Effect.fail(badRequest("api.context.invalid_body_param.app_error", "Malformed JSON in request body."))
  }
  return Effect.as(storable("request body", jsonProblem(parsed)), parsed)
}

/** A body already read, decoded as `body` decodes it. */
export const bodyText = <A, I>(text: string, schema: Schema.Schema<A, I>, quick?: (raw: unknown) => A | undefined) =>
  Effect.flatMap(jsonText(text), (raw) => {
    // A hand-written decoder of the common shape may answer first (issue 10); it only ever accepts what the schema
    // would give the same value for, and anything else (every refusal included) goes to the schema, so the 400s
    // are the schema's.
    const decoded = quick?.(raw)
    return decoded !== undefined ? Effect.succeed(decoded) : Effect.mapError(Schema.decodeUnknown(schema)(raw), invalid("request body"))
  })

/**
 * `bodyText`'s answer without running anything, when the hand-written decoder takes the body (issue 10: the common
 * POST /posts); undefined for anything else (blank, malformed, unstorable, or a shape left to the schema), which
 * `bodyText` then decides as always.
 */
export const bodyTextNow = <A>(text: string, quick: (raw: unknown) => A | undefined): A | undefined => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return undefined
  }
  return jsonProblem(parsed) === undefined ? quick(parsed) : undefined
}

export const body = <A, I>(schema: Schema.Schema<A, I>) =>
  Effect.flatMap(jsonBody, (raw) => Effect.mapError(Schema.decodeUnknown(schema)(raw), invalid("request body")))

/** A schema's decode failure of a value already read (a body decoded in steps), as the same 400. */
export const invalidBody = invalid("request body")

/** Query parameters; clients send empty strings for unset values, so optional fields should accept "". */
export const query = <A, I>(schema: Schema.Schema<A, I>) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => queryOf(request.url, schema))

/** The query of a request target (`/path?a=b`), decoded as `query` decodes the request's. */
export const queryOf = <A, I>(url: string, schema: Schema.Schema<A, I>) => {
  const params: Record<string, string> = {}
  for (const [k, v] of new URL(url, "http://localhost").searchParams) params[k] = v
  return storable("query parameter", flatProblem(params)).pipe(
    Effect.zipRight(Effect.mapError(Schema.decodeUnknown(schema)(params), invalid("query parameter"))),
    // Numbers the schema made of strings ("1e400", a page past bigint): refused here rather than by the database.
    Effect.tap((decoded) => storable("query parameter", jsonProblem(decoded)))
  )
}

/** Queries remembered per schema (queryOfRemembered); each table is emptied when it reaches QUERY_MEMO_MAX. */
const rememberedQueries = new WeakMap<object, Map<string, unknown>>()
const QUERY_MEMO_MAX = 256
const QUERY_MEMO_LENGTH = 256

/**
 * `queryOf` for the hottest routes (src/http/FastPath.ts), remembered per schema and query text. Clients repeat a
 * handful of queries (`?page=0&per_page=60`), and decoding one through Schema (the URL parse, the parse effects, the
 * checks) was 15% of the CPU of a channel page answered from the page cache (`perf record`, 2026-11-28). Only for
 * schemas whose result depends on the text alone (no default read from a clock or a setting); only successes are
 * kept, frozen, since every request with that text shares them; texts longer than QUERY_MEMO_LENGTH are decoded each
 * time, so no one fills the table with long ones.
 */
export const queryOfRemembered = <A, I>(query: string, schema: Schema.Schema<A, I>) => {
  if (query.length > QUERY_MEMO_LENGTH) return queryOf(query, schema)
  let known = rememberedQueries.get(schema)
  if (known === undefined) rememberedQueries.set(schema, known = new Map())
  const hit = known.get(query)
  if (hit !== undefined) return Effect.succeed(hit as A)
  const table = known
  return Effect.tap(queryOf(query, schema), (decoded) => {
    if (table.size >= QUERY_MEMO_MAX) table.clear()
    table.set(query, typeof decoded === "object" && decoded !== null ? Object.freeze(decoded) : decoded)
  })
}

/** The remembered decoding of `query` for `schema` (queryOfRemembered), undefined when there is none yet. */
export const rememberedQuery = <A, I>(query: string, schema: Schema.Schema<A, I>): A | undefined =>
  rememberedQueries.get(schema)?.get(query) as A | undefined

export const params = <A, I>(schema: Schema.Schema<A, I>) =>
  Effect.flatMap(HttpRouter.params, (raw) =>
    Effect.zipRight(
      storable("URL parameter", flatProblem(raw as Record<string, string>)),
      Effect.mapError(Schema.decodeUnknown(schema)(raw), invalid("URL parameter"))
    ))

/** Shared with schemas/: declared once in schemas/Params.ts. */
export { Id, QueryBool, QueryInt } from "../../schemas/Params.ts"

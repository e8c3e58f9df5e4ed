import { HttpServerResponse } from "@effect/platform"
import { Effect, Either, Schema } from "effect"
import type { ParseOptions } from "effect/SchemaAST"

/**
 * JSON responses with `Content-Type` exactly `application/json`: Client4 parses a body only on strict equality.
 * Encoding happens once, here. The body stays a string with its Content-Length: Node joins it to the head and encodes
 * the text once, in one buffer (a byte array body would be encoded here first and sent as a second buffer).
 */
/**
 * A JSON answer already encoded (a channel page, cached as its text: src/posts/PageCache.ts): `json` and the fast
 * path send its text as it is.
 */
export class JsonText {
  /** The text, or its UTF-8 bytes when kept that way (a page from PageCache: written as is, no encoding per answer). */
  constructor(readonly text: string | Uint8Array) {}
}

/** The text of a JSON answer. */
export const jsonText = (body: unknown) => body instanceof JsonText ? body.text : JSON.stringify(body)

export const json = (body: unknown, status = 200, headers?: Record<string, string>) => {
  const text = jsonText(body)
  return HttpServerResponse.raw(text, { status, contentType: "application/json", contentLength: Buffer.byteLength(text), headers })
}

export const created = (body: unknown) => json(body, 201)

/** The standard body of Mattermost action endpoints. */
export const ok = () => json({ status: "OK" })

/** The same body with 201, for the uploads Mattermost answers that way (brand image). */
export const okCreated = () => json({ status: "OK" }, 201)

/**
 * Keys keep the order the value has (the mappers write them in Mattermost's order, which byte-for-byte tests
 * compare); a key the Schema does not declare is left out, so nothing undeclared reaches the wire.
 */
const ENCODE: ParseOptions = { propertyOrder: "original" }

type Encode = (value: unknown) => Either.Either<unknown, unknown>
const encoders = new WeakMap<Schema.Schema.Any, Encode>()
const arrays = new WeakMap<Schema.Schema.Any, Schema.Schema.Any>()

/**
 * One encoder per Schema, built on first use (ParseResult compiles the Schema's AST once and keeps it). Wire Schemas
 * have no asynchronous steps, so the synchronous Either encoder serves: it measured some 5 times cheaper per small
 * body than the Effect one, whose fiber steps cost more than the encoding.
 */
const encoderOf = (schema: Schema.Schema.Any): Encode => {
  let encode = encoders.get(schema)
  if (encode === undefined) encoders.set(schema, encode = Schema.encodeUnknownEither(schema as Schema.Schema<unknown, unknown, never>, ENCODE))
  return encode
}

const respond = (encoded: Either.Either<unknown, unknown>, status: number, headers: Record<string, string> | undefined) =>
  Either.isRight(encoded) ? Effect.succeed(json(encoded.right, status, headers)) : Effect.die(encoded.left)

/**
 * A JSON response whose body is the value encoded with its wire Schema (schemas/wire/ on /api/v4, schemas/native/ on
 * /api/v1, where it is also the Schema the OpenAPI document shows): the response contract is the Schema. A value the
 * Schema refuses is the server's bug, a defect (500), never a partial body.
 */
export const respondWith = <A, I>(schema: Schema.Schema<A, I, never>, value: A, status = 200, headers?: Record<string, string>) =>
  respond(encoderOf(schema)(value), status, headers)

/** `respondWith` for an array of values of one wire Schema. */
export const respondWithAll = <A, I>(
  schema: Schema.Schema<A, I, never>,
  values: ReadonlyArray<A>,
  status = 200,
  headers?: Record<string, string>
) => {
  let array = arrays.get(schema)
  if (array === undefined) arrays.set(schema, array = Schema.Array(schema))
  return respond(encoderOf(array)(values), status, headers)
}

import { Schema } from "effect"

/**
 * The error bodies of /api/v1, as src/http/ErrorResponse.ts renders them (docs/api-v1.md "Errors"). Described here
 * for the OpenAPI document; the edge builds them from ApiError and domain errors.
 */
export const NativeError = Schema.Struct({
  error: Schema.Struct({
    code: Schema.String.annotations({ description: "the class of error, from the HTTP status (BAD_REQUEST, NOT_FOUND, …)" }),
    id: Schema.String.annotations({ description: "the precise error, stable across releases" }),
    message: Schema.String,
    request_id: Schema.String.annotations({ description: "equals the response's X-Request-Id" }),
    status: Schema.Int
  })
}).annotations({ identifier: "NativeError", description: "Every /api/v1 error but 429" })

export const RateLimited = Schema.Struct({
  error: Schema.Struct({
    code: Schema.Literal("RATE_LIMIT_EXCEEDED"),
    message: Schema.String,
    retry_after: Schema.Int.annotations({ description: "seconds until the limit resets (also in Retry-After)" })
  })
}).annotations({ identifier: "RateLimited", description: "429: over a per-IP rate limit" })

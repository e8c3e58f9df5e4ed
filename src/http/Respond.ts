import { HttpServerResponse } from "@effect/platform"

/**
 * JSON responses with `Content-Type` exactly `application/json`: Client4 parses a body only on strict equality.
 * Encoding happens once, here. The body stays a string with its Content-Length: Node joins it to the head and encodes
 * the text once, in one buffer (a byte array body would be encoded here first and sent as a second buffer).
 */
export const json = (body: unknown, status = 200, headers?: Record<string, string>) => {
  const text = JSON.stringify(body)
  return HttpServerResponse.raw(text, { status, contentType: "application/json", contentLength: Buffer.byteLength(text), headers })
}

export const created = (body: unknown) => json(body, 201)

/** The standard body of Mattermost action endpoints. */
export const ok = () => json({ status: "OK" })

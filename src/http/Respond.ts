import { HttpServerResponse } from "@effect/platform"

/**
 * JSON responses with `Content-Type` exactly `application/json`: Client4 parses a body only on strict equality.
 * Encoding happens once, here.
 */
export const json = (body: unknown, status = 200, headers?: Record<string, string>) =>
  HttpServerResponse.text(JSON.stringify(body), { status, contentType: "application/json", headers })

export const created = (body: unknown) => json(body, 201)

/** The standard body of Mattermost action endpoints. */
export const ok = () => json({ status: "OK" })

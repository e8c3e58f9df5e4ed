import { Schema } from "effect"
import { Session as SessionSchema } from "../../schemas/wire/Session.ts"

/** A session as stored and as `GET /users/{id}/sessions` returns it (token blanked): the wire Schema. */
export const Session = SessionSchema
export type Session = typeof Session.Type

export const SessionJson = Schema.parseJson(Session)

export const DAY_MS = 24 * 60 * 60 * 1000
export const SessionLength = {
  web: 30 * DAY_MS,
  mobile: 180 * DAY_MS,
  sso: 30 * DAY_MS
} as const

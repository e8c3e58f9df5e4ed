import { HttpRouter } from "@effect/platform"
import { Effect, Option, Schema } from "effect"
import { Session } from "../../schemas/wire/Session.ts"
import { isId } from "../../schemas/Params.ts"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import { Sessions } from "../auth/Sessions.ts"
import { invalidParam, notFound } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { ok, respondWithAll } from "../http/Respond.ts"
import { selfOrAdminUserId } from "../access/UserParam.ts"
import { logSecurityEvent, SecurityEvent } from "../security/SecurityEvents.ts"

/** A user's sessions (tokens never shown), and revoking one or all of them: own or, for admins, anyone's. */

/** Who ended whose sessions, among the security events (the System Console's Health page lists them). */
const revoked = (details: Record<string, unknown>) =>
  Effect.flatMap(CurrentCaller, (caller) => logSecurityEvent(SecurityEvent.SessionsRevoked, { by_user_id: caller.userId, ...details }))

const SessionBody = Schema.Struct({ session_id: Schema.String })

const list = Effect.gen(function*() {
  const userId = yield* selfOrAdminUserId("this user")
  const sessions = yield* Sessions
  const rows = yield* sessions.listForUser(userId)
  return yield* respondWithAll(Session, rows.map((s) => ({ ...s, token: "" })))
})

const revokeOne = Effect.gen(function*() {
  const userId = yield* selfOrAdminUserId("this user")
  const { session_id } = yield* Decode.body(SessionBody)
  if (!isId(session_id)) return yield* invalidParam("session_id")
  const sessions = yield* Sessions
  const session = yield* sessions.get(session_id)
  if (Option.isNone(session) || session.value.user_id !== userId) {
    return yield* notFound("app.session.get.app_error", "Unable to find the session.")
  }
  yield* sessions.revoke(session_id)
  yield* revoked({ user_id: userId, sessions: 1 })
  return ok()
})

const revokeAll = Effect.gen(function*() {
  const userId = yield* selfOrAdminUserId("this user")
  const ended = yield* (yield* Sessions).revokeForUser(userId)
  yield* revoked({ user_id: userId, sessions: ended.length })
  return ok()
})

/**
 * Every session of every user ends, the caller's own included, as in Mattermost (the System Console's "Revoke All
 * Sessions"): each node closes the sockets of the ended sessions, and everyone signs in again.
 */
const revokeEveryone = Effect.gen(function*() {
  const ended = yield* (yield* Sessions).revokeAll
  yield* revoked({ user_id: "everyone", sessions: ended })
  return ok()
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.post("/api/v4/users/sessions/revoke/all", authed.admin(revokeEveryone)),
  HttpRouter.get("/api/v4/users/:user_id/sessions", authed(list)),
  HttpRouter.post("/api/v4/users/:user_id/sessions/revoke", authed(revokeOne)),
  HttpRouter.post("/api/v4/users/:user_id/sessions/revoke/all", authed(revokeAll))
)

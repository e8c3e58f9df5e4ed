import { Cookies, HttpServerRequest } from "@effect/platform"
import { Effect, Option } from "effect"
import { ApiError, sessionRequired } from "../http/ApiError.ts"
import { safeEqual } from "../../layers/Crypto.ts"
import type { DbError } from "../../layers/Db.ts"
import type { Session } from "./Session.ts"
import { Sessions } from "./Sessions.ts"

/** Who is calling, resolved once per request from the session the token names. */
export interface Caller {
  readonly session: Session
  readonly userId: string
  readonly roles: ReadonlyArray<string>
  readonly isSystemAdmin: boolean
  readonly tokenLocation: "cookie" | "header"
}

export const SESSION_COOKIE = "MMAUTHTOKEN"

/** Mattermost's order: the MMAUTHTOKEN cookie, then `Authorization: Bearer` (any case), then `Authorization: Token`. */
export const tokenFromRequest = (request: HttpServerRequest.HttpServerRequest): Option.Option<{ token: string; location: Caller["tokenLocation"] }> => {
  const cookie = request.cookies[SESSION_COOKIE]
  if (cookie !== undefined && cookie !== "") return Option.some({ token: cookie, location: "cookie" })
  const header = request.headers["authorization"] ?? ""
  const match = /^(bearer|token)\s+(\S+)\s*$/i.exec(header)
  return match ? Option.some({ token: match[2], location: "header" }) : Option.none()
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"])

/**
 * Cookie-authenticated writes must carry X-CSRF-Token equal to the session's csrf; as in Mattermost's default
 * (non-strict) mode, `X-Requested-With: XMLHttpRequest` also passes, because mobile native code sends jar cookies
 * without the token and browsers cannot set that header cross-origin without a CORS preflight.
 */
const checkCsrf = (request: HttpServerRequest.HttpServerRequest, session: Session) => {
  if (SAFE_METHODS.has(request.method)) return true
  const sent = request.headers["x-csrf-token"]
  if (sent !== undefined && session.props.csrf !== undefined && safeEqual(sent, session.props.csrf)) return true
  return request.headers["x-requested-with"] === "XMLHttpRequest"
}

const clearCookie = Cookies.serializeCookie(
  Cookies.unsafeMakeCookie(SESSION_COOKIE, "", { path: "/", maxAge: 0, httpOnly: true })
)

const toCaller = (session: Session, location: Caller["tokenLocation"]): Caller => {
  const roles = session.roles.split(" ").filter((r) => r !== "")
  return { session, userId: session.user_id, roles, isSystemAdmin: roles.includes("system_admin"), tokenLocation: location }
}

/** Spreading an error drops its message (Error's own property is not enumerable), hence the explicit fields. */
const expiredSession = (options: { readonly detailed?: string; readonly clearCookie?: boolean }) => {
  const base = sessionRequired()
  return new ApiError({
    status: base.status,
    id: base.id,
    message: base.message,
    detailed: options.detailed,
    headers: options.clearCookie ? { "set-cookie": clearCookie } : undefined
  })
}

/**
 * The caller, or None when the request carries no valid session (anonymous endpoints). A valid session cookie on a
 * write without the CSRF proof fails with 401 whatever the endpoint, as in Mattermost: the request is not anonymous,
 * it is a possible forgery.
 */
export const optionalCaller: Effect.Effect<Option.Option<Caller>, ApiError | DbError, HttpServerRequest.HttpServerRequest | Sessions> =
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const found = tokenFromRequest(request)
    if (Option.isNone(found)) return Option.none<Caller>()
    const sessions = yield* Sessions
    const session = yield* sessions.lookup(found.value.token)
    if (Option.isNone(session)) return Option.none<Caller>()
    if (found.value.location === "cookie" && !checkCsrf(request, session.value)) {
      return yield* expiredSession({ detailed: "Appears to be a CSRF attempt." })
    }
    yield* sessions.touch(session.value).pipe(Effect.ignore)
    return Option.some(toCaller(session.value, found.value.location))
  })

/** The caller; a missing, invalid or expired session (or a failed CSRF check) is the only 401. */
export const requireCaller = Effect.flatMap(optionalCaller, (caller) =>
  Option.match(caller, {
    onSome: Effect.succeed,
    onNone: () => Effect.fail(expiredSession({ clearCookie: true }))
  }))

export const requireSystemAdmin = Effect.flatMap(requireCaller, (caller) =>
  caller.isSystemAdmin
    ? Effect.succeed(caller)
    : Effect.fail(new ApiError({ status: 403, id: "api.context.permissions.app_error", message: "You do not have the appropriate permissions." })))

import { Cookies, HttpServerRequest } from "@effect/platform"
import { Effect, Either, Option } from "effect"
import { ApiError, sessionRequired } from "../http/ApiError.ts"
import { safeEqual } from "../../layers/Crypto.ts"
import type { DbError } from "../../layers/Db.ts"
import { RoleStore, type RoleSnapshot, type RoleStoreService } from "../system/RoleStore.ts"
import { checkMfa } from "./MfaEnforcement.ts"
import type { Session } from "./Session.ts"
import { Sessions, type SessionsService } from "./Sessions.ts"

/** Who is calling, resolved once per request from the session the token names. */
export interface Caller {
  readonly session: Session
  readonly userId: string
  /** The caller's system roles (the session's). */
  readonly roles: ReadonlyArray<string>
  /**
   * Whether the caller's system roles grant the permission, from this node's copy of the roles (src/system/RoleStore.ts).
   * A permission in a team or channel is `Access`'s: team and channel member roles count there too.
   */
  readonly can: (permission: string) => boolean
  /** Holds manage_system: what Mattermost's system admin checks ask. */
  readonly isSystemAdmin: boolean
  readonly tokenLocation: "cookie" | "header"
}

export const SESSION_COOKIE = "MMAUTHTOKEN"

/** The request's headers as Node hands them over (lower-case names), which is also what the platform's request holds. */
export type RawHeaders = Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

const header = (headers: RawHeaders, name: string) => {
  const value = headers[name]
  return typeof value === "string" ? value : undefined
}

/** Mattermost's order: the MMAUTHTOKEN cookie, then `Authorization: Bearer` (any case), then `Authorization: Token`. */
export const tokenFromHeaders = (headers: RawHeaders): Option.Option<{ token: string; location: Caller["tokenLocation"] }> => {
  const cookieHeader = header(headers, "cookie")
  // Parsed as the platform parses `request.cookies`, only when there is a Cookie header at all.
  const cookie = cookieHeader === undefined ? undefined : Cookies.parseHeader(cookieHeader)[SESSION_COOKIE]
  if (cookie !== undefined && cookie !== "") return Option.some({ token: cookie, location: "cookie" })
  const match = /^(bearer|token)\s+(\S+)\s*$/i.exec(header(headers, "authorization") ?? "")
  return match ? Option.some({ token: match[2], location: "header" }) : Option.none()
}

export const tokenFromRequest = (request: HttpServerRequest.HttpServerRequest) =>
  tokenFromHeaders(request.headers as RawHeaders)

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"])

/**
 * Cookie-authenticated writes must carry X-CSRF-Token equal to the session's csrf; as in Mattermost's default
 * (non-strict) mode, `X-Requested-With: XMLHttpRequest` also passes, because mobile native code sends jar cookies
 * without the token and browsers cannot set that header cross-origin without a CORS preflight.
 */
const checkCsrf = (method: string, headers: RawHeaders, session: Session) => {
  if (SAFE_METHODS.has(method)) return true
  const sent = header(headers, "x-csrf-token")
  if (sent !== undefined && session.props.csrf !== undefined && safeEqual(sent, session.props.csrf)) return true
  return header(headers, "x-requested-with") === "XMLHttpRequest"
}

const clearCookie = Cookies.serializeCookie(
  Cookies.unsafeMakeCookie(SESSION_COOKIE, "", { path: "/", maxAge: 0, httpOnly: true })
)

/** A caller of the session, its permissions read from the roles snapshot. */
export const makeCaller = (session: Session, location: Caller["tokenLocation"], snapshot: RoleSnapshot): Caller => {
  const roles = session.roles.split(" ").filter((r) => r !== "")
  const can = (permission: string) => snapshot.grants(roles, permission)
  return { session, userId: session.user_id, roles, can, isSystemAdmin: can("manage_system"), tokenLocation: location }
}

/**
 * The caller made once per session object, token location and roles snapshot: the session cache hands out the same
 * decoded object for as long as the session's cached text is unchanged (Sessions' memo), so a caller's repeated
 * requests share one immutable Caller instead of splitting its roles each time (issue 10). A changed session is a
 * new object; changed roles are a new snapshot, and the caller is made again.
 */
const callers = { cookie: new WeakMap<Session, Caller>(), header: new WeakMap<Session, Caller>() }
const snapshots = new WeakMap<Caller, RoleSnapshot>()
const toCaller = (session: Session, location: Caller["tokenLocation"], snapshot: RoleSnapshot): Caller => {
  const memo = callers[location]
  let caller = memo.get(session)
  if (caller === undefined || snapshots.get(caller) !== snapshot) {
    memo.set(session, caller = makeCaller(session, location, snapshot))
    snapshots.set(caller, snapshot)
  }
  return caller
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

/** What a found session makes of the request: its caller, or the 401 of a cookie write without the CSRF proof. */
const admit = (method: string, headers: RawHeaders, location: Caller["tokenLocation"], session: Session, snapshot: RoleSnapshot) =>
  location === "cookie" && !checkCsrf(method, headers, session)
    ? Either.left(expiredSession({ detailed: "Appears to be a CSRF attempt." }))
    : Either.right(toCaller(session, location, snapshot))

/**
 * The caller of a request given by its method and headers, or None when it carries no valid session (anonymous
 * endpoints). A valid session cookie on a write without the CSRF proof fails with 401 whatever the endpoint, as in
 * Mattermost: the request is not anonymous, it is a possible forgery.
 */
export const callerOf = (method: string, headers: RawHeaders): Effect.Effect<Option.Option<Caller>, ApiError | DbError, Sessions | RoleStore> =>
  Effect.gen(function*() {
    const found = tokenFromHeaders(headers)
    if (Option.isNone(found)) return Option.none<Caller>()
    const sessions = yield* Sessions
    const session = yield* sessions.lookup(found.value.token)
    if (Option.isNone(session)) return Option.none<Caller>()
    const caller = admit(method, headers, found.value.location, session.value, (yield* RoleStore).current())
    if (Either.isLeft(caller)) return yield* caller.left
    yield* sessions.touch(session.value).pipe(Effect.ignore)
    return Option.some(caller.right)
  })

/** The caller, as `callerOf`, of the request being served. */
export const optionalCaller: Effect.Effect<Option.Option<Caller>, ApiError | DbError, HttpServerRequest.HttpServerRequest | Sessions | RoleStore> =
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => callerOf(request.method, request.headers as RawHeaders))

/** None becomes the 401 (with the session cookie cleared): a missing, invalid or expired session. */
export const required = (caller: Option.Option<Caller>) =>
  Option.match(caller, {
    onSome: Effect.succeed,
    onNone: () => Effect.fail(expiredSession({ clearCookie: true }))
  })

/**
 * The caller; a missing, invalid or expired session (or a failed CSRF check) is the only 401, and a caller the
 * server's enforced second factor refuses is the 403 (MfaEnforcement.ts).
 */
export const requireCaller = Effect.flatMap(Effect.flatMap(optionalCaller, required), checkMfa)

/**
 * `requireCaller` decided without running anything, when the session is at hand in this process's memory and needs
 * no activity write: the caller, or the 401. Undefined when it cannot be decided so (no cached verification of the
 * token, a session cache that is not in memory or does not hold it, activity due): the caller then runs
 * `requireCaller`'s effect (`callerOf` + `required`), which decides the same way. An Either is also an effect.
 */
export const requiredCallerNow = (
  sessions: SessionsService,
  roles: RoleStoreService,
  method: string,
  headers: RawHeaders
): Either.Either<Caller, ApiError> | undefined => {
  const found = tokenFromHeaders(headers)
  if (Option.isNone(found)) return Either.left(expiredSession({ clearCookie: true }))
  const session = sessions.lookupNow(found.value.token)
  if (session === undefined) return undefined
  if (Option.isNone(session)) return Either.left(expiredSession({ clearCookie: true }))
  if (sessions.touchDue(session.value)) return undefined
  return admit(method, headers, found.value.location, session.value, roles.current())
}

export const requireSystemAdmin = Effect.flatMap(requireCaller, (caller) =>
  caller.isSystemAdmin
    ? Effect.succeed(caller)
    : Effect.fail(new ApiError({ status: 403, id: "api.context.permissions.app_error", message: "You do not have the appropriate permissions." })))

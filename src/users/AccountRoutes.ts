import { HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Clock, Effect, Option, Schema } from "effect"
import { DomainEvent } from "../../schemas/Events.ts"
import { User } from "../../schemas/wire/User.ts"
import { AppConfig } from "../Config.ts"
import { Crypto, newId } from "../../layers/Crypto.ts"
import { optionalCaller } from "../auth/Authenticate.ts"
import { authed, CurrentCaller, publicRoute } from "../auth/Guards.ts"
import { clientInfo } from "../auth/ClientInfo.ts"
import { clearSessionCookies, attachSessionCookies } from "../auth/SessionCookies.ts"
import { Sessions } from "../auth/Sessions.ts"
import { ApiError, badRequest, forbidden, notFound, unauthorized } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { ok, respondWith } from "../http/Respond.ts"
import { EventBus } from "../events/EventBus.ts"
import * as RateLimit from "../ratelimit/RateLimit.ts"
import { refuseWebPasswordLoginWhenSsoRequired } from "../sso/PasswordPolicy.ts"
import { noAccounts, siteSwitches } from "../system/ServerSettings.ts"
import * as TeamMemberRepo from "../teams/TeamMemberRepo.ts"
import * as TeamRepo from "../teams/TeamRepo.ts"
import * as TeamEvents from "../teams/TeamEvents.ts"
import * as SystemPosts from "../posts/SystemPosts.ts"
import { domainAllowed } from "../teams/TeamValidation.ts"
import * as Mfa from "../mfa/Mfa.ts"
import * as LoginAttempts from "./LoginAttempts.ts"
import { UserRepo } from "./UserRepo.ts"
import { DEFAULT_NOTIFY_PROPS, type UserRow } from "./UserRow.ts"
import { toWire } from "./UserWire.ts"
import { isValidEmail, passwordProblem, usernameProblem } from "./Validation.ts"
import { runtimeSettings, sessionLengthsMs } from "../system/RuntimeSettings.ts"

/** Sign-up, login, logout and the current user: the account surface of mattermost-compat.md section 2. */

const SignupBody = Schema.Struct({
  email: Schema.String,
  username: Schema.String,
  password: Schema.String,
  first_name: Schema.optionalWith(Schema.String, { default: () => "" }),
  last_name: Schema.optionalWith(Schema.String, { default: () => "" }),
  nickname: Schema.optionalWith(Schema.String, { default: () => "" }),
  locale: Schema.optionalWith(Schema.String, { default: () => "en" })
})

const LoginBody = Schema.Struct({
  login_id: Schema.optional(Schema.String),
  id: Schema.optional(Schema.String),
  password: Schema.optionalWith(Schema.String, { default: () => "" }),
  token: Schema.optional(Schema.String),
  device_id: Schema.optionalWith(Schema.String, { default: () => "" }),
  ldap_only: Schema.optional(Schema.Union(Schema.String, Schema.Boolean))
})

/** `iid`: the invite id of a team's invite link; the new account joins that team. */
const SignupQuery = Schema.Struct({ iid: Schema.optionalWith(Schema.String, { default: () => "" }) })

/**
 * Who may sign up (Mattermost's IsUserSignUpAllowed and CreateUserFromSignup): nobody while user creation is off
 * (501, as Mattermost); with an invite id, anyone the team's allowed domains admit; without one, anyone while the
 * server is open, else only the very first account. System admins create accounts whatever the switches say.
 * Answers the team an invite id names.
 */
const signupTeam = (iid: string, email: string) =>
  Effect.gen(function*() {
    const caller = yield* optionalCaller.pipe(Effect.orElseSucceed(() => Option.none()))
    if (Option.isSome(caller) && caller.value.isSystemAdmin) return yield* inviteTeam(iid, email)
    const switches = yield* siteSwitches
    if (!switches.enableUserCreation) {
      return yield* new ApiError({ status: 501, id: "api.user.create_user.signup_email_disabled.app_error", message: "User sign-up is disabled on this server." })
    }
    if (iid !== "") return yield* inviteTeam(iid, email)
    if (!switches.enableOpenServer && !(yield* noAccounts)) {
      return yield* forbidden("api.user.create_user.no_open_server", "This server does not allow open signups. Please speak with your Administrator to receive an invitation.")
    }
    return Option.none<InviteTeam>()
  })

interface InviteTeam {
  readonly id: string
}

const inviteTeam = (iid: string, email: string) =>
  Effect.gen(function*() {
    if (iid === "") return Option.none<InviteTeam>()
    const found = yield* TeamRepo.findByInviteId(iid)
    if (Option.isNone(found)) return yield* notFound("app.team.get_by_invite_id.finding.app_error", "Unable to find the existing team.")
    const team = found.value
    if (!domainAllowed(email, team.allowed_domains)) {
      return yield* badRequest("api.team.invite_members.invalid_email.app_error", `The email domain is not one of the team's allowed domains: ${team.allowed_domains.slice(0, 200)}`)
    }
    return Option.some<InviteTeam>({ id: team.id })
  })

const invalidCredentials = () =>
  unauthorized("api.user.login.invalid_credentials_email_username", "Enter a valid email or username and/or password.")

// Verifying against a real hash when the account does not exist keeps response times equal, so that logins do not
// reveal which accounts exist.
let dummyHash: string | undefined

const signup = Effect.gen(function*() {
  yield* RateLimit.enforce("auth")
  const input = yield* Decode.body(SignupBody)
  const username = input.username.trim()
  const email = input.email.trim()
  const problem = usernameProblem(username)
  if (problem !== undefined) return yield* badRequest("model.user.is_valid.username.app_error", problem)
  if (!isValidEmail(email)) return yield* badRequest("model.user.is_valid.email.app_error", "Invalid email address.")
  const settings = yield* runtimeSettings
  const weak = passwordProblem(input.password, settings.password, { username, email })
  if (weak !== undefined) return yield* badRequest(weak.id, weak.message)
  // TeamSettings.RestrictCreationToDomains binds every account made with an email, an administrator's too (Mattermost).
  if (!domainAllowed(email, settings.restrictCreationToDomains)) {
    return yield* badRequest("api.user.create_user.accepted_domain.app_error", "The email you provided does not belong to an accepted domain. Please contact your administrator or sign up with a different email.")
  }
  const { iid } = yield* Decode.query(SignupQuery)
  const team = yield* signupTeam(iid, email)
  const crypto = yield* Crypto
  const repo = yield* UserRepo
  const now = yield* Clock.currentTimeMillis
  const passwordHash = yield* crypto.hashPassword(input.password)
  const insert = repo.insert({
    id: newId(),
    now,
    username,
    email,
    passwordHash,
    emailVerified: false,
    firstName: input.first_name,
    lastName: input.last_name,
    nickname: input.nickname,
    locale: input.locale,
    authService: "",
    authData: null,
    notifyProps: { ...DEFAULT_NOTIFY_PROPS, first_name: "false" }
  }).pipe(
    Effect.catchIf((e) => e === "username_exists", () =>
      badRequest("app.user.save.username_exists.app_error", "An account with that username already exists.")),
    Effect.catchIf((e) => e === "email_exists", () =>
      badRequest("app.user.save.email_exists.app_error", "An account with that email already exists."))
  )
  // The account and its team membership are written together: no account is left behind without its team.
  const { row, join } = yield* TeamMemberRepo.createWithTeam(insert, Option.map(team, (t) => t.id), now)
  const bus = yield* EventBus
  const wire = toWire(row, "self")
  yield* bus.publish(DomainEvent.NewUser({ userId: row.id }), {})
  if (Option.isSome(team) && Option.isSome(join)) {
    yield* TeamEvents.joined(bus, team.value.id, join.value)
    yield* SystemPosts.joinedTeam(team.value.id, undefined, join.value.channels)
  }
  return yield* respondWith(User, wire, 201)
})

const login = Effect.gen(function*() {
  yield* RateLimit.enforce("auth")
  const input = yield* Decode.body(LoginBody)
  yield* refuseWebPasswordLoginWhenSsoRequired
  const loginId = (input.login_id ?? "").trim()
  if (loginId === "" && (input.id ?? "") === "") {
    return yield* badRequest("api.user.login.blank_login_id.app_error", "Login id is required.")
  }
  if (input.password === "") return yield* badRequest("api.user.login.blank_pwd.app_error", "Password field must not be blank.")
  const repo = yield* UserRepo
  const crypto = yield* Crypto
  const user = loginId !== "" ? yield* repo.findByLogin(loginId) : yield* repo.findById(input.id ?? "")
  if (Option.isNone(user) || user.value.password === "") {
    dummyHash ??= yield* crypto.hashPassword("timing-equaliser")
    yield* crypto.verifyPassword(input.password, dummyHash)
    return yield* invalidCredentials()
  }
  // Counted before the password is checked: a locked account is refused whatever the password (LoginAttempts.ts).
  const attempt = yield* LoginAttempts.begin(user.value)
  const valid = yield* crypto.verifyPassword(input.password, user.value.password)
  if (!valid) {
    yield* attempt.failed
    return yield* invalidCredentials()
  }
  if (Number(user.value.delete_at) > 0) {
    yield* attempt.release
    return yield* unauthorized("api.user.login.inactive.app_error", "Login failed because your account has been deactivated.")
  }
  // The second factor is asked only once the password was right, so that the question reveals nothing to a guesser.
  // As in Mattermost, a wrong code counts as a failed attempt; a missing one (the app asking whether a code is
  // needed) does not.
  yield* Mfa.checkLogin(user.value, input.token ?? "").pipe(
    Effect.catchTags({
      MissingCode: () =>
        Effect.zipRight(attempt.release, Effect.fail(unauthorized("mfa.validate_token.authenticate.app_error", "Invalid or missing MFA token."))),
      BadCode: () => Effect.zipRight(attempt.failed, Effect.fail(unauthorized("api.user.check_user_mfa.bad_code.app_error", "Invalid MFA token.")))
    })
  )
  const request = yield* HttpServerRequest.HttpServerRequest
  const info = clientInfo(request.headers["user-agent"] ?? "")
  const sessions = yield* Sessions
  const deviceId = input.device_id
  const lengths = sessionLengthsMs(yield* runtimeSettings)
  if (deviceId !== "") yield* sessions.revokeForUser(user.value.id, { deviceId })
  const { session, token } = yield* sessions.create({
    userId: user.value.id,
    roles: user.value.roles,
    deviceId,
    lengthMs: deviceId !== "" || info.isMobile ? lengths.mobile : lengths.web,
    // As Mattermost marks an app's session: the idle timeout spares it (Sessions.ts).
    props: { os: info.os, platform: info.platform, browser: info.browser, is_guest: "false", ...(info.isMobile ? { is_mobile: "true" } : {}) }
  })
  const now = yield* Clock.currentTimeMillis
  yield* repo.recordLogin(user.value.id, now)
  const config = yield* AppConfig
  const response = yield* respondWith(User, toWire({ ...user.value, last_login: now }, "self"), 200, { token })
  return request.headers["x-requested-with"] === "XMLHttpRequest"
    ? attachSessionCookies(response, session, token, config.siteUrl, now)
    : response
})

const logout = Effect.gen(function*() {
  // A store failure must not keep anyone from signing out of this client; a CSRF failure is still refused.
  const caller = yield* optionalCaller.pipe(Effect.catchTag("DbError", () => Effect.succeed(Option.none())))
  if (Option.isSome(caller)) {
    const sessions = yield* Sessions
    yield* sessions.revoke(caller.value.session.id)
  }
  return clearSessionCookies(ok())
})

/** GET /users/me's body from the caller's row; a session whose user is gone is a 401. */
export const ownProfile = (user: Option.Option<UserRow>) =>
  Option.isNone(user)
    ? Effect.fail(new ApiError({ status: 401, id: "api.context.session_expired.app_error", message: "Invalid or expired session, please login again." }))
    : Effect.succeed(toWire(user.value, "self"))

const me = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const repo = yield* UserRepo
  return yield* respondWith(User, yield* ownProfile(yield* repo.findCached(caller.userId)))
})

/**
 * POST /users/login/type tells a login screen whether a login id signs in by guest magic link. Mattermost answers
 * it only when guest magic links and guest accounts are on; otherwise, before reading the body, a 404. This server
 * offers neither (config/client reports EnableGuestMagicLink "false", so the apps do not ask) and answers the 404
 * without looking the login id up, so nobody can probe accounts with it; unlike Mattermost's empty body, the 404
 * carries the error body every other error has, which clients can parse.
 */
const loginType = notFound("api.user.login_type.disabled.app_error", "Guest magic links are not enabled on this server.")

export const routes = HttpRouter.empty.pipe(
  HttpRouter.post("/api/v4/users", publicRoute(signup)),
  HttpRouter.post("/api/v4/users/login", publicRoute(login)),
  HttpRouter.post("/api/v4/users/login/type", publicRoute(loginType)),
  HttpRouter.post("/api/v4/users/logout", publicRoute(logout)),
  HttpRouter.get("/api/v4/users/me", authed(me))
)

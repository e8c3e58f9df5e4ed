import { Clock, Console, Data, Effect, Option, Redacted } from "effect"
import * as CryptoLayer from "../../layers/Crypto.ts"
import { Crypto, isId, newId } from "../../layers/Crypto.ts"
import { Db } from "../../layers/Db.ts"
import { OutboundHttp } from "../../layers/OutboundHttp.ts"
import { DomainEvent } from "../../schemas/Events.ts"
import { Sessions } from "../auth/Sessions.ts"
import { AppConfig } from "../Config.ts"
import { checkSecretStrength } from "../config/SecretRules.ts"
import { generateSecret, isStoredSecret, rewriteStoredSecret } from "../config/Secrets.ts"
import { EventBus } from "../events/EventBus.ts"
import { accountLimits } from "../system/ServerSettings.ts"
import * as Membership from "../teams/Membership.ts"
import * as TeamEvents from "../teams/TeamEvents.ts"
import * as SystemPosts from "../posts/SystemPosts.ts"
import * as TeamRepo from "../teams/TeamRepo.ts"
import { displayNameProblem, domainAllowed, teamNameProblem } from "../teams/TeamValidation.ts"
import * as UserAdmin from "../users/UserAdmin.ts"
import { UserRepo } from "../users/UserRepo.ts"
import { DEFAULT_NOTIFY_PROPS, type UserRow } from "../users/UserRow.ts"
import { isValidEmail, type PasswordOwner, passwordProblem, usernameProblem } from "../users/Validation.ts"
import { rewriteAll } from "./EncryptedColumnsRepo.ts"
import { runtimeSettings } from "../system/RuntimeSettings.ts"

/**
 * The admin command line's programs (src/cli/Admin.ts parses the arguments and provides the layers): the same
 * services and rules the API uses, so a user created here is the user sign-up would create, a revocation closes the
 * user's sockets on every node through the event bus (with SERVICE_CACHE_URL), and so on. Each returns the lines it
 * prints; a refusal fails with CommandFailed, whose message is printed on stderr and whose code is the exit code.
 */
export class CommandFailed extends Data.TaggedError("CommandFailed")<{ readonly message: string; readonly exitCode: number }> {}

const refuse = (message: string) => new CommandFailed({ message, exitCode: 1 })

const SYSTEM_ADMIN = "system_admin system_user"
const SYSTEM_USER = "system_user"

const describeUser = (u: UserRow) =>
  `${u.username} (${u.id}, ${u.email}${u.roles.includes("system_admin") ? ", system admin" : ""}${Number(u.delete_at) > 0 ? ", deactivated" : ""})`

/** A user named by id, username or email. */
export const findUser = (ref: string) =>
  Effect.gen(function*() {
    const repo = yield* UserRepo
    const found = isId(ref) ? yield* repo.findById(ref) : Option.none<UserRow>()
    const user = Option.isSome(found) ? found : yield* repo.findByLogin(ref)
    if (Option.isNone(user)) return yield* refuse(`no user "${ref}" (give an id, a username or an email)`)
    return user.value
  })

const checkPassword = (password: string, owner: PasswordOwner) =>
  Effect.flatMap(runtimeSettings, (settings) => {
    const problem = passwordProblem(password, settings.password, owner)
    return problem === undefined ? Effect.void : Effect.fail(refuse(`password refused: ${problem.message}`))
  })

export interface NewUserInput {
  readonly username: string
  readonly email: string
  readonly password: string
  readonly systemAdmin: boolean
  readonly firstName: string
  readonly lastName: string
}

export const createUser = (input: NewUserInput) =>
  Effect.gen(function*() {
    const username = input.username.trim()
    const email = input.email.trim()
    const problem = usernameProblem(username)
    if (problem !== undefined) return yield* refuse(`username refused: ${problem}`)
    if (!isValidEmail(email)) return yield* refuse(`email refused: "${email.slice(0, 128)}" is not a valid email address`)
    yield* checkPassword(input.password, { username, email })
    if (!domainAllowed(email, (yield* runtimeSettings).restrictCreationToDomains)) {
      return yield* refuse(`email refused: the domain is not one of TeamSettings.RestrictCreationToDomains`)
    }
    const crypto = yield* Crypto
    const repo = yield* UserRepo
    const now = yield* Clock.currentTimeMillis
    const row = yield* repo.insert({
      id: newId(),
      now,
      username,
      email,
      passwordHash: yield* crypto.hashPassword(input.password),
      // An administrator vouches for the address.
      emailVerified: true,
      firstName: input.firstName,
      lastName: input.lastName,
      nickname: "",
      locale: "en",
      authService: "",
      authData: null,
      notifyProps: { ...DEFAULT_NOTIFY_PROPS, first_name: "false" }
    }).pipe(
      Effect.catchIf((e) => e === "username_exists", () => refuse(`username refused: an account with the username "${username}" already exists`)),
      Effect.catchIf((e) => e === "email_exists", () => refuse(`email refused: an account with the email "${email}" already exists`))
    )
    yield* (yield* EventBus).publish(DomainEvent.NewUser({ userId: row.id }), {})
    const final = input.systemAdmin && !row.roles.includes("system_admin")
      ? Option.getOrElse(yield* UserAdmin.setSystemRoles(row.id, SYSTEM_ADMIN, now), () => row)
      : row
    return [`created user ${describeUser(final)}`]
  })

export const setSystemAdmin = (ref: string, admin: boolean) =>
  Effect.gen(function*() {
    const user = yield* findUser(ref)
    if (user.is_bot) return yield* refuse(`"${user.username}" is a bot: bots have no system roles`)
    const now = yield* Clock.currentTimeMillis
    const updated = yield* UserAdmin.setSystemRoles(user.id, admin ? SYSTEM_ADMIN : SYSTEM_USER, now)
    if (Option.isNone(updated)) return yield* refuse(`no user "${ref}"`)
    return [`${updated.value.username} is ${admin ? "now a system admin" : "no longer a system admin"}`]
  })

export const resetPassword = (ref: string, password: string) =>
  Effect.gen(function*() {
    const user = yield* findUser(ref)
    if (user.auth_service !== "") return yield* refuse(`"${user.username}" signs in with SSO (${user.auth_service}) and has no password`)
    yield* checkPassword(password, user)
    const now = yield* Clock.currentTimeMillis
    const ended = yield* UserAdmin.setPassword(user.id, password, now)
    return [`password of ${user.username} reset; ${ended.length} session${ended.length === 1 ? "" : "s"} ended`]
  })

export const deactivate = (ref: string) =>
  Effect.gen(function*() {
    const user = yield* findUser(ref)
    if (Number(user.delete_at) > 0) return [`${user.username} was already deactivated`]
    const now = yield* Clock.currentTimeMillis
    yield* UserAdmin.setActive(user.id, false, now)
    return [`${user.username} deactivated; their sessions ended`]
  })

const iso = (ms: number) => new Date(ms).toISOString()

export const listSessions = (ref: string) =>
  Effect.gen(function*() {
    const user = yield* findUser(ref)
    const sessions = yield* (yield* Sessions).listForUser(user.id)
    if (sessions.length === 0) return [`${user.username} has no sessions`]
    return [
      "id                          created                   last activity             expires                   device",
      ...sessions.map((s) => `${s.id}  ${iso(s.create_at)}  ${iso(s.last_activity_at)}  ${iso(s.expires_at)}  ${s.device_id || "-"}`)
    ]
  })

/** Ends one session of the user, or all of them; their sockets close on every node that hears the event bus. */
export const revokeSessions = (ref: string, sessionId: Option.Option<string>) =>
  Effect.gen(function*() {
    const user = yield* findUser(ref)
    const sessions = yield* Sessions
    if (Option.isSome(sessionId)) {
      const session = yield* sessions.get(sessionId.value)
      if (Option.isNone(session) || session.value.user_id !== user.id) {
        return yield* refuse(`${user.username} has no session ${sessionId.value}`)
      }
      yield* sessions.revoke(session.value.id)
      return [`session ${session.value.id} of ${user.username} revoked`]
    }
    const ended = yield* sessions.revokeForUser(user.id)
    return [`${ended.length} session${ended.length === 1 ? "" : "s"} of ${user.username} revoked`]
  })

export const createTeam = (input: { readonly name: string; readonly displayName: string; readonly private: boolean }) =>
  Effect.gen(function*() {
    const name = input.name.trim()
    const displayName = input.displayName.trim()
    const nameProblem = teamNameProblem(name)
    if (nameProblem !== undefined) return yield* refuse(`team name refused: ${nameProblem}`)
    const displayProblem = displayNameProblem(displayName)
    if (displayProblem !== undefined) return yield* refuse(`display name refused: ${displayProblem}`)
    const db = yield* Db
    const now = yield* Clock.currentTimeMillis
    const created = yield* db.transaction(TeamRepo.insertWithDefaultChannels(db.sql, {
      id: newId(),
      now,
      name,
      displayName,
      type: input.private ? "I" : "O",
      description: "",
      companyName: "",
      allowedDomains: "",
      allowOpenInvite: !input.private,
      creatorId: null
    }))
    if (created === undefined) return yield* refuse(`a team named "${name}" already exists`)
    return [`created ${input.private ? "invite-only" : "open"} team ${name} (${created.team.id})`]
  })

export const addToTeam = (teamRef: string, userRefs: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const db = yield* Db
    const team = yield* db.read(TeamRepo.findByIdOrName(db.sql, teamRef))
    if (team === undefined) return yield* refuse(`no team "${teamRef}" (give an id or a name)`)
    const users = yield* Effect.forEach(userRefs, findUser)
    const inactive = users.filter((u) => Number(u.delete_at) > 0)
    if (inactive.length > 0) return yield* refuse(`deactivated users cannot join a team: ${inactive.map((u) => u.username).join(", ")}`)
    const now = yield* Clock.currentTimeMillis
    const { maxUsersPerTeam } = yield* accountLimits
    const join = yield* db.transaction(Membership.addWithin(db.sql, team.id, users.map((u) => u.id), false, now, maxUsersPerTeam))
    yield* TeamEvents.joined(yield* EventBus, team.id, join)
    // As mmctl's add (the single add endpoint): each user "joined the team".
    yield* SystemPosts.joinedTeam(team.id, undefined, join.channels)
    const already = users.filter((u) => !join.users.includes(u.id)).map((u) => u.username)
    return [
      `added to ${team.name}: ${users.filter((u) => join.users.includes(u.id)).map((u) => u.username).join(", ") || "nobody"}`,
      ...(already.length > 0 ? [`already members: ${already.join(", ")}`] : [])
    ]
  })

/**
 * A new JWT secret: every session ends at once (their sockets close on every node), so no token signed with the old
 * secret is worth anything even before the nodes restart. In development the secret in secrets.json is replaced;
 * with SERVICE_JWT_SECRET set, the operator sets the new value and restarts the nodes.
 */
export const rotateJwtSecret = Effect.gen(function*() {
  const config = yield* AppConfig
  const ended = yield* (yield* Sessions).revokeAll
  const lines = [`${ended} session${ended === 1 ? "" : "s"} ended: everybody signs in again`]
  if (isStoredSecret(config, "jwt_secret")) {
    const file = yield* rewriteStoredSecret(config, "jwt_secret", generateSecret())
    lines.push(`new JWT secret written to ${file}; restart the service to sign with it`)
  } else {
    lines.push("SERVICE_JWT_SECRET is set in the environment: set it to a new value (openssl rand -base64 48) and restart every node")
  }
  return lines
})

/**
 * Re-encrypts every stored secret (EncryptedColumnsRepo) from the current SERVICE_ENCRYPTION_KEY to the new one, in
 * one transaction: a value that does not decrypt under the current key stops it with nothing changed (except the
 * signing key, which the server replaces by itself). The new key comes from SERVICE_NEW_ENCRYPTION_KEY (never from
 * the arguments, which other users of the machine can read), or is generated when secrets.json holds the key.
 */
export const rotateEncryptionKey = (newKey: Option.Option<Redacted.Redacted>) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    const stored = isStoredSecret(config, "encryption_key")
    if (Option.isNone(newKey) && !stored) {
      return yield* refuse("SERVICE_ENCRYPTION_KEY is set in the environment: give the new key in SERVICE_NEW_ENCRYPTION_KEY")
    }
    const next = Option.getOrElse(newKey, () => Redacted.make(generateSecret()))
    const weak = checkSecretStrength(Redacted.value(next))
    if (weak.length > 0) return yield* refuse(`SERVICE_NEW_ENCRYPTION_KEY refused: ${weak.join("; ")}`)
    if (Redacted.value(next) === Redacted.value(config.encryptionKeyValue)) return yield* refuse("the new encryption key is the current one")
    if (Redacted.value(next) === Redacted.value(config.jwtSecretValue)) return yield* refuse("the new encryption key must differ from the JWT secret")
    const current = yield* Crypto
    const target = CryptoLayer.make(next)
    const db = yield* Db
    const lost: Array<string> = []
    const left: Array<string> = []
    const rewritten = yield* db.transaction(Effect.gen(function*() {
      const count = yield* rewriteAll(db.sql, (value) =>
        current.decrypt(value.ciphertext).pipe(
          Effect.flatMap(target.encrypt),
          Effect.catchTag("DecryptionError", () => {
            ;(value.replaceable ? left : lost).push(value.where)
            return Effect.succeed(undefined)
          })
        ))
      if (lost.length > 0) {
        return yield* refuse(`nothing changed: these values do not decrypt under the current SERVICE_ENCRYPTION_KEY: ${lost.join(", ")}`)
      }
      return count
    }))
    const lines = [`${rewritten} stored secret${rewritten === 1 ? "" : "s"} re-encrypted under the new key`]
    if (left.length > 0) lines.push(`left as they were (the server replaces them): ${left.join(", ")}`)
    if (stored) {
      const file = yield* rewriteStoredSecret(config, "encryption_key", Redacted.value(next))
      lines.push(`new encryption key written to ${file}; restart every node`)
    } else {
      lines.push("now set SERVICE_ENCRYPTION_KEY to the value of SERVICE_NEW_ENCRYPTION_KEY and restart every node")
    }
    return lines
  })

/** GET /api/v1/health/ready of a running server: 0 when ready, 1 when not ready or not answering. */
export const health = (url: string) =>
  Effect.gen(function*() {
    const target = `${url.replace(/\/+$/, "")}/api/v1/health/ready`
    const http = yield* OutboundHttp
    const answer = yield* http.request({ url: target, timeout: "10 seconds" }).pipe(
      Effect.mapError((error) => refuse(`${target} does not answer: ${error.message}`))
    )
    const body = answer.body.slice(0, 500)
    if (answer.status !== 200) return yield* refuse(`not ready: ${target} answered ${answer.status} ${body}`)
    return [`ready: ${body}`]
  })

/** Events the bus could not send yet are lost when the process exits: say so rather than exit quietly. */
export const warnUndelivered = Effect.gen(function*() {
  const waiting = yield* (yield* EventBus).outboxSize
  if (waiting > 0) yield* Console.error(`warning: ${waiting} event(s) could not reach the other nodes (is Redis up?)`)
})

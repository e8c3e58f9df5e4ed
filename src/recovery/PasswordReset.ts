import { Clock, Data, Effect, Option } from "effect"
import { Crypto, randomToken, sha256Hex } from "../../layers/Crypto.ts"
import { Db } from "../../layers/Db.ts"
import { Mailer } from "../../layers/Mailer.ts"
import { Sessions } from "../auth/Sessions.ts"
import { AppConfig } from "../Config.ts"
import { passwordReset } from "../mail/Templates.ts"
import { siteName } from "../system/ServerSettings.ts"
import { UserRepo } from "../users/UserRepo.ts"
import { isValidEmail, passwordProblem } from "../users/Validation.ts"
import { UserTokenRepo } from "./UserTokenRepo.ts"

/**
 * Password recovery by mail. The link carries a random token; only its hash is stored, it lasts one hour, and it is
 * consumed in the same transaction that sets the new password, so that it works once. Asking for a link answers the
 * same for every address: whether an account exists is never told.
 */
export const RESET_TOKEN_LIFETIME_MS = 60 * 60 * 1000
const TYPE = "password_recovery"

export class MailDisabled extends Data.TaggedError("MailDisabled")<{}> {}
export class InvalidEmail extends Data.TaggedError("InvalidEmail")<{}> {}
export class InvalidResetToken extends Data.TaggedError("InvalidResetToken")<{}> {}
export class ExpiredResetToken extends Data.TaggedError("ExpiredResetToken")<{}> {}
export class WeakPassword extends Data.TaggedError("WeakPassword")<{ readonly id: string; readonly message: string }> {}

/** Mails a reset link when the address belongs to an active account that signs in with a password. */
export const sendResetLink = (email: string) =>
  Effect.gen(function*() {
    const mailer = yield* Mailer
    if (!mailer.enabled) return yield* new MailDisabled()
    const address = email.trim()
    if (!isValidEmail(address)) return yield* new InvalidEmail()
    const user = yield* (yield* UserRepo).findByEmail(address)
    // SSO accounts have no password here to reset, deactivated ones may not sign in: both get no mail, like strangers.
    if (Option.isNone(user) || user.value.auth_service !== "" || Number(user.value.delete_at) > 0 || user.value.is_bot) return
    const token = randomToken(32)
    const now = yield* Clock.currentTimeMillis
    yield* (yield* UserTokenRepo).replace({
      tokenHash: sha256Hex(token),
      type: TYPE,
      userId: user.value.id,
      extra: user.value.email,
      now,
      expiresAt: now + RESET_TOKEN_LIFETIME_MS
    })
    const config = yield* AppConfig
    const link = `${config.siteUrl}/reset_password_complete?token=${encodeURIComponent(token)}`
    // Queued, never awaited: the answer must not wait on (or reveal) the mail server. A full queue drops the mail,
    // and the person asks again.
    yield* mailer.enqueue(passwordReset({ to: user.value.email, siteName: yield* siteName, link })).pipe(
      Effect.catchAll(() => Effect.logWarning("password reset mail not queued"))
    )
  })

/** Sets the password of the token's account, consumes the token and signs the account out everywhere. */
export const resetPassword = (token: string, newPassword: string) =>
  Effect.gen(function*() {
    // Tokens are 43 base64url characters; anything else cannot be one (and is not hashed or looked up).
    if (!/^[A-Za-z0-9_-]{20,128}$/.test(token)) return yield* new InvalidResetToken()
    const weak = passwordProblem(newPassword)
    if (weak !== undefined) return yield* new WeakPassword(weak)
    const crypto = yield* Crypto
    const db = yield* Db
    const tokens = yield* UserTokenRepo
    const users = yield* UserRepo
    const passwordHash = yield* crypto.hashPassword(newPassword)
    const now = yield* Clock.currentTimeMillis
    const userId = yield* db.transaction(Effect.gen(function*() {
      const claimed = yield* tokens.consume(sha256Hex(token), TYPE)
      if (Option.isNone(claimed)) return yield* new InvalidResetToken()
      if (claimed.value.expiresAt < now) return Option.none<string>()
      const user = yield* users.findById(claimed.value.userId)
      // The link was mailed to one address: if the account's address changed since, the link no longer speaks for it.
      if (
        Option.isNone(user) || Number(user.value.delete_at) > 0 || user.value.auth_service !== "" ||
        user.value.email.toLowerCase() !== claimed.value.extra.toLowerCase()
      ) return yield* new InvalidResetToken()
      yield* users.setPassword(user.value.id, passwordHash, now)
      return Option.some(user.value.id)
    }))
    // An expired token is consumed all the same (the transaction committed its deletion) and then refused.
    if (Option.isNone(userId)) return yield* new ExpiredResetToken()
    yield* (yield* Sessions).revokeForUser(userId.value)
  })

import { Clock, Data, Effect, Option } from "effect"
import { Crypto, sha256Hex } from "../../layers/Crypto.ts"
import { Db } from "../../layers/Db.ts"
import { tellOwnSockets } from "../users/UserAdmin.ts"
import { Sessions } from "../auth/Sessions.ts"
import { passwordReset } from "../mail/Templates.ts"
import { UserRepo } from "../users/UserRepo.ts"
import { passwordProblem } from "../users/Validation.ts"
import { isTokenShaped, mailOneTimeLink } from "./MailedTokens.ts"
import { UserTokenRepo } from "./UserTokenRepo.ts"
import { runtimeSettings } from "../system/RuntimeSettings.ts"

/**
 * Password recovery by mail. The link's token lasts one hour and is consumed in the same transaction that sets the
 * new password, so that it works once.
 */
export const RESET_TOKEN_LIFETIME_MS = 60 * 60 * 1000
const TYPE = "password_recovery"

export class InvalidResetToken extends Data.TaggedError("InvalidResetToken")<{}> {}
export class ExpiredResetToken extends Data.TaggedError("ExpiredResetToken")<{}> {}
export class WeakPassword extends Data.TaggedError("WeakPassword")<{ readonly id: string; readonly message: string }> {}

/** Mails a reset link when the address belongs to an active account that signs in with a password here. */
export const sendResetLink = (email: string) =>
  mailOneTimeLink({
    email,
    type: TYPE,
    lifetimeMs: RESET_TOKEN_LIFETIME_MS,
    // SSO accounts have no password here to reset: they get no mail, like strangers.
    eligible: (user) => user.auth_service === "",
    path: (token) => `/reset_password_complete?token=${encodeURIComponent(token)}`,
    message: passwordReset
  })

/** Sets the password of the token's account, consumes the token and signs the account out everywhere. */
export const resetPassword = (token: string, newPassword: string) =>
  Effect.gen(function*() {
    if (!isTokenShaped(token)) return yield* new InvalidResetToken()
    const rules = (yield* runtimeSettings).password
    const weak = passwordProblem(newPassword, rules)
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
      // The rules about the account's own name and address need the account: refused here, the transaction (and the
      // token's consumption) rolls back, so the link still works with a better password.
      const personal = passwordProblem(newPassword, rules, user.value)
      if (personal !== undefined) return yield* new WeakPassword(personal)
      yield* users.setPassword(user.value.id, passwordHash, now)
      return Option.some(user.value.id)
    }))
    // An expired token is consumed all the same (the transaction committed its deletion) and then refused.
    if (Option.isNone(userId)) return yield* new ExpiredResetToken()
    // Open clients learn the password changed (their sign-in page says so) before their sessions end.
    yield* tellOwnSockets(userId.value)
    yield* (yield* Sessions).revokeForUser(userId.value)
  })

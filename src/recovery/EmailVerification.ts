import { Clock, Data, Effect, Option } from "effect"
import { sha256Hex } from "../../layers/Crypto.ts"
import { emailVerification } from "../mail/Templates.ts"
import { UserRepo } from "../users/UserRepo.ts"
import { isTokenShaped, mailOneTimeLink } from "./MailedTokens.ts"
import { UserTokenRepo } from "./UserTokenRepo.ts"

/**
 * Email verification: a one-time link to `{site}/do_verify_email?token=…` (the web app's page, which calls POST
 * /users/email/verify). The token is bound to the address it was mailed to, so a changed address is not verified by
 * an old link.
 */
export const VERIFY_TOKEN_LIFETIME_MS = 24 * 60 * 60 * 1000
const TYPE = "verify_email"

export class InvalidVerifyToken extends Data.TaggedError("InvalidVerifyToken")<{}> {}

/** Mails a verification link when the address belongs to an account whose address is not verified yet. */
export const sendVerification = (email: string) =>
  mailOneTimeLink({
    email,
    type: TYPE,
    lifetimeMs: VERIFY_TOKEN_LIFETIME_MS,
    eligible: (user) => !user.email_verified,
    path: (token, user) => `/do_verify_email?token=${encodeURIComponent(token)}&email=${encodeURIComponent(user.email)}`,
    message: emailVerification
  })

export const verifyEmail = (token: string) =>
  Effect.gen(function*() {
    if (!isTokenShaped(token)) return yield* new InvalidVerifyToken()
    const claimed = yield* (yield* UserTokenRepo).consume(sha256Hex(token), TYPE)
    const now = yield* Clock.currentTimeMillis
    if (Option.isNone(claimed) || claimed.value.expiresAt < now) return yield* new InvalidVerifyToken()
    const verified = yield* (yield* UserRepo).markEmailVerified(claimed.value.userId, claimed.value.extra, now)
    if (!verified) return yield* new InvalidVerifyToken()
  })

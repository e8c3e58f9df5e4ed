import { Clock, Data, Effect, Option } from "effect"
import { randomToken, sha256Hex } from "../../layers/Crypto.ts"
import { Mailer, type MailMessage } from "../../layers/Mailer.ts"
import { AppConfig } from "../Config.ts"
import { siteName } from "../system/ServerSettings.ts"
import { UserRepo } from "../users/UserRepo.ts"
import type { UserRow } from "../users/UserRow.ts"
import { isValidEmail } from "../users/Validation.ts"
import { type TokenType, UserTokenRepo } from "./UserTokenRepo.ts"

/**
 * What password recovery and email verification share: a random token mailed in a link, only its hash stored, bound
 * to the address it was mailed to. Asking for a link answers the same whatever the address: whether an account
 * exists is never told.
 */
export class MailDisabled extends Data.TaggedError("MailDisabled")<{}> {}
export class InvalidEmail extends Data.TaggedError("InvalidEmail")<{}> {}

/** Tokens are 43 base64url characters; anything else cannot be one (and is neither hashed nor looked up). */
export const isTokenShaped = (token: string) => /^[A-Za-z0-9_-]{20,128}$/.test(token)

export interface OneTimeLink {
  readonly email: string
  readonly type: TokenType
  readonly lifetimeMs: number
  /** Which accounts may get the link; the others get nothing, like addresses with no account. */
  readonly eligible: (user: UserRow) => boolean
  /** The link's path and query after the site URL. */
  readonly path: (token: string, user: UserRow) => string
  readonly message: (input: { readonly to: string; readonly siteName: string; readonly link: string }) => MailMessage
}

export const mailOneTimeLink = (options: OneTimeLink) =>
  Effect.gen(function*() {
    const mailer = yield* Mailer
    if (!mailer.enabled) return yield* new MailDisabled()
    const address = options.email.trim()
    if (!isValidEmail(address)) return yield* new InvalidEmail()
    const found = yield* (yield* UserRepo).findByEmail(address)
    if (Option.isNone(found) || Number(found.value.delete_at) > 0 || found.value.is_bot || !options.eligible(found.value)) return
    const user = found.value
    const token = randomToken(32)
    const now = yield* Clock.currentTimeMillis
    // Earlier tokens of the type are replaced: only the latest link works.
    yield* (yield* UserTokenRepo).replace({
      tokenHash: sha256Hex(token),
      type: options.type,
      userId: user.id,
      extra: user.email,
      now,
      expiresAt: now + options.lifetimeMs
    })
    const config = yield* AppConfig
    const link = `${config.siteUrl}${options.path(token, user)}`
    // Queued, never awaited: the answer must not wait on (or reveal) the mail server. A full queue drops the mail,
    // and the person asks again.
    yield* mailer.enqueue(options.message({ to: user.email, siteName: yield* siteName, link })).pipe(
      Effect.catchAll(() => Effect.logWarning("one-time link mail not queued").pipe(Effect.annotateLogs({ type: options.type })))
    )
  })

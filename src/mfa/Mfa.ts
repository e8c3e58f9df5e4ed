import { Clock, Data, Effect, Option } from "effect"
import * as OTPAuth from "otpauth"
import QRCode from "qrcode"
import { Crypto } from "../../layers/Crypto.ts"
import type { MfaSecret } from "../../schemas/Mfa.ts"
import type { Caller } from "../auth/Authenticate.ts"
import { siteName } from "../system/ServerSettings.ts"
import { UserRepo } from "../users/UserRepo.ts"
import type { UserRow } from "../users/UserRow.ts"
import { MfaRepo } from "./MfaRepo.ts"

/**
 * TOTP two-factor sign-in (RFC 6238: SHA-1, 6 digits, 30-second steps, as every authenticator app and Mattermost).
 * A secret is generated first and becomes active only once the user proves their app holds it with a code; from then
 * on sign-in needs a code. A code is accepted one step either side of now, and never twice.
 */
export class UserNotFound extends Data.TaggedError("UserNotFound")<{}> {}
export class NotAllowed extends Data.TaggedError("NotAllowed")<{}> {}
export class SsoAccount extends Data.TaggedError("SsoAccount")<{}> {}
export class AlreadyActive extends Data.TaggedError("AlreadyActive")<{}> {}
export class NoSecret extends Data.TaggedError("NoSecret")<{}> {}
export class MissingCode extends Data.TaggedError("MissingCode")<{}> {}
export class BadCode extends Data.TaggedError("BadCode")<{}> {}

const totp = (secret: string, label = "", issuer = "") =>
  new OTPAuth.TOTP({ issuer, label, algorithm: "SHA1", digits: 6, period: 30, secret: OTPAuth.Secret.fromBase32(secret) })

const target = (caller: Caller, userId: string) =>
  Effect.gen(function*() {
    if (caller.userId !== userId && !caller.isSystemAdmin) return yield* new NotAllowed()
    const user = yield* (yield* UserRepo).findById(userId)
    if (Option.isNone(user)) return yield* new UserNotFound()
    // Accounts that sign in at an identity provider get their second factor there.
    if (user.value.auth_service !== "") return yield* new SsoAccount()
    return user.value
  })

/** Checks a code against the user's stored secret and spends its step; false for a wrong or replayed code. */
const accept = (userId: string, code: string) =>
  Effect.gen(function*() {
    if (!/^\d{6}$/.test(code)) return false
    const stored = yield* (yield* MfaRepo).secret(userId)
    if (Option.isNone(stored)) return false
    const secret = yield* (yield* Crypto).decrypt(stored.value.secret)
    const now = yield* Clock.currentTimeMillis
    const delta = totp(secret).validate({ token: code, timestamp: now, window: 1 })
    if (delta === null) return false
    const step = Math.floor(now / 30_000) + delta
    return yield* (yield* MfaRepo).useStep(userId, step)
  })

export const generate = (caller: Caller, userId: string) =>
  Effect.gen(function*() {
    const user = yield* target(caller, userId)
    if (user.mfa_active) return yield* new AlreadyActive()
    const secret = new OTPAuth.Secret({ size: 20 }).base32
    const uri = totp(secret, user.username, yield* siteName).toString()
    const png = yield* Effect.promise(() => QRCode.toBuffer(uri, { type: "png", errorCorrectionLevel: "M", margin: 2, width: 256 }))
    const now = yield* Clock.currentTimeMillis
    const saved = yield* (yield* MfaRepo).saveSecret(user.id, yield* (yield* Crypto).encrypt(secret), now)
    if (!saved) return yield* new AlreadyActive()
    const answer: MfaSecret = { secret, qr_code: png.toString("base64") }
    return answer
  })

/** Activates with a valid code, or deactivates (the user, or a system admin resetting a user's MFA). */
export const update = (caller: Caller, userId: string, activate: boolean, code: string | undefined) =>
  Effect.gen(function*() {
    const user = yield* target(caller, userId)
    const repo = yield* MfaRepo
    const now = yield* Clock.currentTimeMillis
    if (!activate) return yield* repo.reset(user.id, now)
    if (code === undefined || code.trim() === "") return yield* new MissingCode()
    if (Option.isNone(yield* repo.secret(user.id))) return yield* new NoSecret()
    if (!(yield* accept(user.id, code.trim()))) return yield* new BadCode()
    yield* repo.setActive(user.id, true, now)
  })

/** The second factor of a password sign-in, after the password was found right. */
export const checkLogin = (user: UserRow, token: string) =>
  Effect.gen(function*() {
    if (!user.mfa_active) return
    if (token.trim() === "") return yield* new MissingCode()
    if (!(yield* accept(user.id, token.trim()))) return yield* new BadCode()
  })

/** POST /users/mfa: whether a login id signs in with a code (false for unknown ids, as Mattermost). */
export const required = (loginId: string) =>
  Effect.map(Effect.flatMap(UserRepo, (repo) => repo.findByLogin(loginId.trim())), (user) =>
    Option.match(user, { onNone: () => false, onSome: (u) => u.mfa_active && u.auth_service === "" }))

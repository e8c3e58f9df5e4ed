import { Effect, Option } from "effect"
import { Crypto } from "../../layers/Crypto.ts"
import type { DbError } from "../../layers/Db.ts"
import { Unauthenticated } from "../../schemas/Errors.ts"
import { clientIp } from "../ratelimit/ClientIp.ts"
import { logSecurityEvent, SecurityEvent } from "../security/SecurityEvents.ts"
import { accountLimits } from "../system/ServerSettings.ts"
import { UserRepo } from "./UserRepo.ts"
import type { UserRow } from "./UserRow.ts"

/**
 * Mattermost's per-account lockout (ServiceSettings.MaximumLoginAttempts): every wrong password, and every wrong
 * second-factor code, counts in `users.failed_attempts`, whichever node or address it came from; a right one resets
 * the count; once the count reaches the maximum the account signs in no more, right password or not, until its
 * password is set again (by an administrator, by the user's reset link, or on the command line). Password changes
 * that ask for the current password count the same way (Mattermost's DoubleCheckPassword).
 */

export const tooManyAttempts = () =>
  new Unauthenticated({
    id: "api.user.check_user_login_attempts.too_many.app_error",
    message: "Your account is locked because of too many failed password attempts. Please reset your password."
  })

/** Where an attempt came from, for the security log: never the password. */
const origin = (user: UserRow) =>
  Effect.map(Effect.orElseSucceed(clientIp, () => ""), (ip) => ({ user_id: user.id, client_ip: ip }))

export interface Attempt {
  /** The attempt failed (wrong password or code): it stays counted, and the lock is logged when this one set it. */
  readonly failed: Effect.Effect<void>
  /** The attempt was no guess (no second-factor code sent yet, or the account is deactivated): it does not count. */
  readonly release: Effect.Effect<void, DbError>
}

/**
 * Counts an attempt before the password is checked (UserRepo.claimLoginAttempt), or fails with Mattermost's 401
 * when the account is locked.
 */
export const begin = (user: UserRow) =>
  Effect.gen(function*() {
    const repo = yield* UserRepo
    const { maximumLoginAttempts: max } = yield* accountLimits
    const claimed = yield* repo.claimLoginAttempt(user.id, max)
    const from = yield* origin(user)
    if (Option.isNone(claimed)) {
      yield* logSecurityEvent(SecurityEvent.LockedAccountSignIn, { ...from, max_attempts: max })
      return yield* tooManyAttempts()
    }
    const count = claimed.value
    const attempt: Attempt = {
      failed: count >= max
        ? logSecurityEvent(SecurityEvent.AccountLocked, { ...from, failed_attempts: count, max_attempts: max })
        : logSecurityEvent(SecurityEvent.SignInFailed, { ...from, failed_attempts: count, max_attempts: max }),
      release: repo.releaseLoginAttempt(user.id)
    }
    return attempt
  })

/**
 * The current password of a signed-in user, asked before a sensitive change (password, email): counted as a sign-in
 * attempt, locked accounts refused, a right one clears the count. True when right.
 */
export const checkCurrentPassword = (user: UserRow, password: string) =>
  Effect.gen(function*() {
    if (user.password === "") return false
    const attempt = yield* begin(user)
    const valid = yield* (yield* Crypto).verifyPassword(password, user.password)
    if (!valid) {
      yield* attempt.failed
      return false
    }
    yield* (yield* UserRepo).clearFailedAttempts(user.id)
    return true
  })

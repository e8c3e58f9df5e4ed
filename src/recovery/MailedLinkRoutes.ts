import { HttpRouter } from "@effect/platform"
import { Effect } from "effect"
import { ResetBody, SendEmailBody, VerifyEmailBody } from "../../schemas/UserTokens.ts"
import { publicRoute } from "../auth/Guards.ts"
import { ApiError, badRequest, invalidParam } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { ok } from "../http/Respond.ts"
import * as RateLimit from "../ratelimit/RateLimit.ts"
import type { DbError } from "../../layers/Db.ts"
import { sendVerification, verifyEmail } from "./EmailVerification.ts"
import type { InvalidEmail, MailDisabled } from "./MailedTokens.ts"
import { resetPassword, sendResetLink } from "./PasswordReset.ts"

/**
 * POST /users/password/reset/send and POST /users/password/reset ("Forgot password?"), POST /users/email/verify/send
 * and POST /users/email/verify: the endpoints that mail a one-time link; none needs a session.
 */

const mailDisabled = () =>
  new ApiError({
    status: 501,
    id: "api.user.send_password_reset.disabled.app_error",
    message: "This server has no email configured: it cannot mail links."
  })

/** Asking for a link: the same answer for every address (the services decide whether anything is mailed). */
const mailLink = <R>(mail: (email: string) => Effect.Effect<void, DbError | MailDisabled | InvalidEmail, R>) =>
  Effect.gen(function*() {
    yield* RateLimit.enforce("auth")
    const input = yield* Decode.body(SendEmailBody)
    yield* mail(input.email).pipe(
      Effect.catchTags({
        MailDisabled: () => Effect.fail(mailDisabled()),
        InvalidEmail: () => Effect.fail(invalidParam("email"))
      })
    )
    return ok()
  })

const reset = Effect.gen(function*() {
  yield* RateLimit.enforce("auth")
  const input = yield* Decode.body(ResetBody)
  const token = input.token ?? input.code ?? ""
  if (token === "") return yield* invalidParam("token")
  yield* resetPassword(token, input.new_password).pipe(
    Effect.catchTags({
      InvalidResetToken: () => Effect.fail(badRequest("api.user.reset_password.invalid_link.app_error", "The reset link does not appear to be valid.")),
      ExpiredResetToken: () => Effect.fail(badRequest("api.user.reset_password.link_expired.app_error", "The password reset link has expired.")),
      WeakPassword: (weak) => Effect.fail(badRequest(weak.id, weak.message))
    })
  )
  return ok()
})

const verify = Effect.gen(function*() {
  yield* RateLimit.enforce("auth")
  const input = yield* Decode.body(VerifyEmailBody)
  yield* verifyEmail(input.token).pipe(
    Effect.catchTag("InvalidVerifyToken", () =>
      Effect.fail(badRequest("api.user.verify_email.bad_link.app_error", "Bad verify email link.")))
  )
  return ok()
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.post("/api/v4/users/password/reset/send", publicRoute(mailLink(sendResetLink))),
  HttpRouter.post("/api/v4/users/password/reset", publicRoute(reset)),
  HttpRouter.post("/api/v4/users/email/verify/send", publicRoute(mailLink(sendVerification))),
  HttpRouter.post("/api/v4/users/email/verify", publicRoute(verify))
)

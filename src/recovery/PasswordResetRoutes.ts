import { HttpRouter } from "@effect/platform"
import { Effect } from "effect"
import { ResetBody, SendResetBody } from "../../schemas/PasswordReset.ts"
import { ApiError, badRequest, invalidParam } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { ok } from "../http/Respond.ts"
import * as RateLimit from "../ratelimit/RateLimit.ts"
import { resetPassword, sendResetLink } from "./PasswordReset.ts"

/** POST /users/password/reset/send and POST /users/password/reset: "Forgot password?" (no session needed). */

const mailDisabled = () =>
  new ApiError({
    status: 501,
    id: "api.user.send_password_reset.disabled.app_error",
    message: "Password reset by email is not available: this server has no email configured."
  })

const send = Effect.gen(function*() {
  yield* RateLimit.enforce("auth")
  const input = yield* Decode.body(SendResetBody)
  yield* sendResetLink(input.email).pipe(
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

export const routes = HttpRouter.empty.pipe(
  HttpRouter.post("/api/v4/users/password/reset/send", send),
  HttpRouter.post("/api/v4/users/password/reset", reset)
)

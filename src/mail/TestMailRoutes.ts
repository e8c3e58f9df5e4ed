import { HttpRouter } from "@effect/platform"
import { Effect, Option } from "effect"
import { Mailer } from "../../layers/Mailer.ts"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import { ApiError, badRequest } from "../http/ApiError.ts"
import { ok } from "../http/Respond.ts"
import { siteName } from "../system/ServerSettings.ts"
import { UserRepo } from "../users/UserRepo.ts"
import { testEmail } from "./Templates.ts"

/**
 * POST /api/v4/email/test, the System Console's "Send Test Email": a mail to the admin's own address through the
 * server's SMTP settings, sent now (not queued) so that the answer says whether the SMTP server took it. The console
 * sends its whole configuration in the body for Mattermost to try; here email is configured by the environment
 * (SERVICE_SMTP_URL, SERVICE_EMAIL_FROM), so the body is not read and the settings in use are the ones tested.
 */
const sendTest = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const mailer = yield* Mailer
  if (!mailer.enabled) {
    return yield* badRequest("api.admin.test_email.missing_server", "No SMTP server is configured: set SERVICE_SMTP_URL and SERVICE_EMAIL_FROM, then restart.")
  }
  const user = yield* (yield* UserRepo).findById(caller.userId)
  if (Option.isNone(user) || user.value.email === "") {
    return yield* badRequest("api.admin.test_email.no_address", "Your account has no email address to send the test to.")
  }
  yield* mailer.send(testEmail({ to: user.value.email, siteName: yield* siteName })).pipe(
    Effect.catchTags({
      MailerNotConfigured: () => badRequest("api.admin.test_email.missing_server", "No SMTP server is configured."),
      // The SMTP server refused or could not be reached: a gateway's failure, not this server's (Mattermost: 500).
      MailDeliveryError: (error) =>
        Effect.fail(new ApiError({ status: 502, id: "app.admin.test_email.failure", message: `Connection unsuccessful: ${error.reason}` }))
    })
  )
  return ok()
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.post("/api/v4/email/test", authed.admin(sendTest))
)

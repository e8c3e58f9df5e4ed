import { HttpRouter } from "@effect/platform"
import { Effect } from "effect"
import { CheckMfaBody, UpdateMfaBody } from "../../schemas/Mfa.ts"
import { authed, CurrentCaller, publicRoute } from "../auth/Guards.ts"
import { ApiError, badRequest, invalidParam, notFound, permissionDenied } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { ok, respondWith } from "../http/Respond.ts"
import { MfaRequired, MfaSecret } from "../../schemas/wire/Mfa.ts"
import * as RateLimit from "../ratelimit/RateLimit.ts"
import { targetUserId } from "../access/UserParam.ts"
import { runtimeSettings } from "../system/RuntimeSettings.ts"
import { generate, required, update } from "./Mfa.ts"

/** TOTP two-factor endpoints: generate a secret, activate or deactivate, and ask whether a login id needs a code. */

// A wrong code while setting MFA up is a bad request, not failed authentication: a 401 would sign the client out.
const mapErrors = Effect.catchTags({
  NotAllowed: () => Effect.fail(permissionDenied("this user")),
  UserNotFound: () => Effect.fail(notFound("app.user.missing_account.const", "Unable to find the user.")),
  SsoAccount: () => Effect.fail(badRequest("api.user.update_mfa.sso.app_error", "Accounts that sign in with SSO set up two-factor authentication at their identity provider.")),
  AlreadyActive: () => Effect.fail(badRequest("api.user.generate_mfa_secret.active.app_error", "Multi-factor authentication is already active; deactivate it first.")),
  NoSecret: () => Effect.fail(badRequest("api.user.update_mfa.no_secret.app_error", "Generate a secret before activating multi-factor authentication.")),
  MissingCode: () => Effect.fail(invalidParam("code")),
  BadCode: () => Effect.fail(badRequest("mfa.activate.bad_token.app_error", "Invalid MFA token."))
})

/** With ServiceSettings.EnableMultifactorAuthentication off no second factor is set up: Mattermost's 501. */
const refuseWhenDisabled = Effect.flatMap(runtimeSettings, (settings) =>
  settings.enableMfa
    ? Effect.void
    : Effect.fail(new ApiError({ status: 501, id: "mfa.mfa_disabled.app_error", message: "Multi-factor authentication has been disabled on this server." })))

const generateSecret = Effect.gen(function*() {
  yield* refuseWhenDisabled
  const caller = yield* CurrentCaller
  const userId = yield* targetUserId
  return yield* respondWith(MfaSecret, yield* mapErrors(generate(caller, userId)))
})

const updateMfa = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const userId = yield* targetUserId
  const input = yield* Decode.body(UpdateMfaBody)
  if (input.activate) yield* refuseWhenDisabled
  yield* mapErrors(update(caller, userId, input.activate, input.code))
  return ok()
})

const checkMfa = Effect.gen(function*() {
  yield* RateLimit.enforce("auth")
  const input = yield* Decode.body(CheckMfaBody)
  if (input.login_id.trim() === "") return yield* invalidParam("login_id")
  return yield* respondWith(MfaRequired, { mfa_required: yield* required(input.login_id) })
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.post("/api/v4/users/mfa", publicRoute(checkMfa)),
  HttpRouter.post("/api/v4/users/:user_id/mfa/generate", authed(generateSecret)),
  HttpRouter.put("/api/v4/users/:user_id/mfa", authed(updateMfa))
)

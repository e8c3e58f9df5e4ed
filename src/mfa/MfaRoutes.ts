import { HttpRouter } from "@effect/platform"
import { Effect } from "effect"
import { CheckMfaBody, UpdateMfaBody } from "../../schemas/Mfa.ts"
import { requireCaller } from "../auth/Authenticate.ts"
import { badRequest, invalidParam, notFound, permissionDenied } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { json, ok } from "../http/Respond.ts"
import * as RateLimit from "../ratelimit/RateLimit.ts"
import { targetUserId } from "../users/UserParam.ts"
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

const generateSecret = Effect.gen(function*() {
  const caller = yield* requireCaller
  const userId = yield* targetUserId(caller)
  return json(yield* mapErrors(generate(caller, userId)))
})

const updateMfa = Effect.gen(function*() {
  const caller = yield* requireCaller
  const userId = yield* targetUserId(caller)
  const input = yield* Decode.body(UpdateMfaBody)
  yield* mapErrors(update(caller, userId, input.activate, input.code))
  return ok()
})

const checkMfa = Effect.gen(function*() {
  yield* RateLimit.enforce("auth")
  const input = yield* Decode.body(CheckMfaBody)
  if (input.login_id.trim() === "") return yield* invalidParam("login_id")
  return json({ mfa_required: yield* required(input.login_id) })
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.post("/api/v4/users/mfa", checkMfa),
  HttpRouter.post("/api/v4/users/:user_id/mfa/generate", generateSecret),
  HttpRouter.put("/api/v4/users/:user_id/mfa", updateMfa)
)

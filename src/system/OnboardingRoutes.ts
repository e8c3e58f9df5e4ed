import { HttpRouter } from "@effect/platform"
import { Clock, Effect, Schema } from "effect"
import { forbidden, invalid } from "../../schemas/Errors.ts"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import * as Decode from "../http/Decode.ts"
import { ok, respondWith } from "../http/Respond.ts"
import { OnboardingState } from "../../schemas/wire/System.ts"
import * as OnboardingRepo from "./OnboardingRepo.ts"

/**
 * The first administrator's setup (Mattermost's api4/system.go getOnboarding and completeOnboarding). The web app
 * sends a new system admin of a server without teams to /preparing-workspace (EnableOnboardingFlow) unless GET says
 * the setup is complete; there the admin names the organization, which becomes the first team (POST /teams), and
 * the last step POSTs here. No plugins are installed (plugins are off), so `install_plugins` is accepted and ignored.
 */

/** Mattermost's name for the system row; clients read `value` ("true" or "false"). */
const FIRST_ADMIN_SETUP_COMPLETE = "FirstAdminSetupComplete"

const ORGANIZATION_MAX = 64
/** TeamSettings.SiteName's limit (ConfigUpdate): a longer organization name leaves the site name alone. */
const SITE_NAME_MAX = 30

const CompleteBody = Schema.Struct({
  organization: Schema.optionalWith(Schema.String, { default: () => "" }),
  role: Schema.optional(Schema.String.pipe(Schema.maxLength(256))),
  install_plugins: Schema.optional(Schema.Array(Schema.String.pipe(Schema.maxLength(256))).pipe(Schema.maxItems(50)))
})

const getOnboarding = Effect.gen(function*() {
  const complete = yield* OnboardingRepo.isComplete
  return yield* respondWith(OnboardingState, { name: FIRST_ADMIN_SETUP_COMPLETE, value: complete ? "true" : "false" })
})

const completeOnboarding = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  if (!caller.isSystemAdmin) {
    return yield* forbidden("app.system.complete_onboarding_request.no_first_user", "Onboarding can only be completed by a System Administrator.")
  }
  const body = yield* Decode.body(CompleteBody)
  const organization = body.organization.trim()
  if (organization === "") {
    return yield* invalid("api.error_no_organization_name_provided_for_self_hosted_onboarding", "An organization name is required.", "organization")
  }
  if ([...organization].length > ORGANIZATION_MAX) {
    return yield* invalid("app.system.complete_onboarding_request.app_error", `The organization name must be at most ${ORGANIZATION_MAX} characters.`, "organization")
  }
  const siteName = [...organization].length <= SITE_NAME_MAX ? organization : undefined
  yield* OnboardingRepo.complete(organization, siteName, yield* Clock.currentTimeMillis)
  return ok()
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v4/system/onboarding/complete", authed.admin(getOnboarding)),
  HttpRouter.post("/api/v4/system/onboarding/complete", authed(completeOnboarding))
)

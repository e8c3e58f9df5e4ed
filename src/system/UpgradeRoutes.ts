import { HttpRouter } from "@effect/platform"
import { Effect, Schema } from "effect"
import { forbidden } from "../../schemas/Errors.ts"
import { authed } from "../auth/Guards.ts"
import { respondWith } from "../http/Respond.ts"

/**
 * "Upgrade to Enterprise Edition" (System Console > About > Edition and License on a Team Edition build, Mattermost's
 * api4/system.go). The page asks for the upgrade's progress when it opens: a Team Edition server that has not started
 * one answers 0 and no error. Starting one replaces Mattermost's own binary with the Enterprise build; this server has
 * no such binary, so it refuses as Mattermost does when it cannot upgrade itself (403, the generic reason).
 */
const UpgradeStatus = Schema.Struct({ percentage: Schema.Number, error: Schema.NullOr(Schema.String) })

const status = respondWith(UpgradeStatus, { percentage: 0, error: null })

const upgrade = Effect.fail(forbidden("api.upgrade_to_enterprise.generic_error.app_error", "Mattermost was unable to upgrade to Enterprise Edition."))

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v4/upgrade_to_enterprise/status", authed.admin(status)),
  HttpRouter.post("/api/v4/upgrade_to_enterprise", authed.admin(upgrade))
)

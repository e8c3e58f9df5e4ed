import { HttpRouter } from "@effect/platform"
import { Effect } from "effect"
import { ConfigSources } from "../../schemas/native/Console.ts"
import { authed } from "../auth/Guards.ts"
import { respondWith } from "../http/Respond.ts"
import { FROM_ENVIRONMENT } from "./ConfigDocument.ts"
import { writableSettings } from "./ConfigUpdate.ts"

/**
 * GET /api/v1/admin/config/sources (system admins): which settings of GET /api/v4/config an administrator can change
 * (PUT /api/v4/config/patch) and which the environment fixes, naming the variable. Mattermost's own
 * GET /config/environment only says `true` per setting; the web console shows the variable to change instead.
 */
const sources = respondWith(ConfigSources, { writable: writableSettings(), environment: FROM_ENVIRONMENT })

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v1/admin/config/sources", authed.admin(Effect.suspend(() => sources)))
)

import { HttpRouter } from "@effect/platform"
import { Effect, Schema } from "effect"
import { OperatorHttp } from "../../layers/OutboundHttp.ts"
import { invalid } from "../../schemas/Errors.ts"
import { AppConfig } from "../Config.ts"
import { authed } from "../auth/Guards.ts"
import * as Decode from "../http/Decode.ts"
import { ok } from "../http/Respond.ts"

/**
 * POST /site_url/test (System Console > Environment > Web Server's "Test Live URL", and the Workspace Optimization
 * page's web server check when it opens), as Mattermost's TestSiteURL: the site URL's `/api/v4/system/ping` must
 * answer 200. The site URL is set with SERVICE_SITE_URL, so that is the one URL tested: any other is refused without
 * a request, and no administrator can make the server call an address of their choosing.
 */
const Body = Schema.Struct({ site_url: Schema.String.pipe(Schema.maxLength(2048)) })

const failure = () =>
  invalid("app.admin.test_site_url.failure", "This is not a valid live URL: the server could not reach itself at it.")

const sameUrl = (a: string, b: string) => a.replace(/\/+$/, "") === b.replace(/\/+$/, "")

const testSiteUrl = Effect.gen(function*() {
  const { site_url } = yield* Decode.body(Body)
  if (site_url.trim() === "") return yield* invalid("api.context.invalid_param.app_error", "Invalid site_url parameter.", "site_url")
  const configured = (yield* AppConfig).siteUrl
  if (!sameUrl(site_url.trim(), configured)) {
    return yield* invalid("app.admin.test_site_url.not_configured", `Only the configured site URL (SERVICE_SITE_URL, ${configured}) can be tested.`, "site_url")
  }
  const http = yield* OperatorHttp
  const answer = yield* http.request({ url: `${configured.replace(/\/+$/, "")}/api/v4/system/ping`, timeout: "5 seconds", maxBytes: 64 * 1024 }).pipe(
    Effect.mapError(failure)
  )
  if (answer.status !== 200) return yield* failure()
  return ok()
})

export const routes = HttpRouter.empty.pipe(HttpRouter.post("/api/v4/site_url/test", authed.admin(testSiteUrl)))

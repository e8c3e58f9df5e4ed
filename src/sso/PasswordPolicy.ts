import { HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"
import { forbidden } from "../../schemas/Errors.ts"
import { SsoDirectory } from "./SsoDirectory.ts"

/**
 * What "Require SSO" closes: password sign-in from the web interface, i.e. a login request a browser sends. Browsers
 * add `Origin` to every POST made by a page (fetch, XHR, form) and `Sec-Fetch-Site`/`Sec-Fetch-Dest` to every
 * request, and page scripts cannot remove them. Requests without them (integrations, scripts, the official mobile
 * app's native HTTP client) keep password login; docs/sso.md lists exactly what stays open. `Sec-Fetch-Mode` alone
 * does not count: Node's fetch sends it.
 */
export const isBrowserRequest = (headers: Readonly<Record<string, string | undefined>>) =>
  headers["origin"] !== undefined || headers["sec-fetch-site"] !== undefined || headers["sec-fetch-dest"] !== undefined

export const refuseWebPasswordLoginWhenSsoRequired = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  if (!isBrowserRequest(request.headers)) return
  const directory = yield* SsoDirectory
  const settings = yield* directory.settings
  if (settings.require_sso) {
    return yield* forbidden(
      "api.user.login.sso_required.app_error",
      "Password sign-in from the web is disabled because this server requires single sign-on."
    )
  }
})

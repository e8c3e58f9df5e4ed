import { HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Clock, Effect, Schema } from "effect"
import { ExchangeRequest, ExchangeResponse, LoginQuery, ProviderKeyParams, PublicProviders } from "../../schemas/native/Sso.ts"
import { publicRoute } from "../auth/Guards.ts"
import { attachSessionCookies } from "../auth/SessionCookies.ts"
import { AppConfig } from "../Config.ts"
import * as Decode from "../http/Decode.ts"
import { notFound } from "../http/ApiError.ts"
import { toApiError } from "../http/ErrorResponse.ts"
import { respondWith } from "../http/Respond.ts"
import * as RateLimit from "../ratelimit/RateLimit.ts"
import { browserErrors, consumeState, finishCallback, startLogin } from "./Flow.ts"
import { mobileErrorPage } from "./MobilePage.ts"
import { SERVICE_KINDS } from "./MobileRoutes.ts"
import { toPublicWire } from "./ProviderConfig.ts"
import { redeem } from "./Sessions.ts"
import { SsoDirectory } from "./SsoDirectory.ts"
import { SsoErrors } from "./SsoErrors.ts"
import { runtimeSettings, sessionLengthsMs } from "../system/RuntimeSettings.ts"

/** The public SSO endpoints: provider list, login, callback and the exchange of the one-time code. */

const noStore = { "cache-control": "no-store" }

const providers = Effect.gen(function*() {
  const directory = yield* SsoDirectory
  const config = yield* AppConfig
  const settings = yield* directory.settings
  if (!settings.enable_sso) return yield* respondWith(PublicProviders, [])
  const rows = yield* directory.active
  return yield* respondWith(PublicProviders, rows.map((row) => toPublicWire(row, config.siteUrl)))
})

const login = browserErrors(Effect.gen(function*() {
  const { provider_key } = yield* Decode.params(ProviderKeyParams)
  const { redirect_uri } = yield* Decode.query(LoginQuery)
  const location = yield* startLogin(provider_key, redirect_uri)
  return HttpServerResponse.redirect(location, { headers: noStore })
}))

const ServiceParams = Schema.Struct({ service: Schema.String })
const WebLoginQuery = Schema.Struct({ redirect_to: Schema.optional(Schema.String) })

/**
 * The Mattermost web app's and desktop app's SSO buttons: `/oauth/{gitlab|google|openid}/login` (and `/signup`,
 * which provisioning rules decide the same way) with `redirect_to`, mapped onto the first active provider of that kind
 * as the mobile app's `mobile_login` is. The flow is the public one: it ends on /login, which redeems the one-time
 * code into the session cookies the web app reads, then goes to `redirect_to`.
 */
const webLogin = browserErrors(Effect.gen(function*() {
  const { service } = yield* Decode.params(ServiceParams)
  const { redirect_to } = yield* Decode.query(WebLoginQuery)
  const kind = Object.hasOwn(SERVICE_KINDS, service) ? SERVICE_KINDS[service] : undefined
  if (kind === undefined) return yield* notFound("api.sso.unknown_service", `No single sign-on service "${service}" on this server.`)
  const directory = yield* SsoDirectory
  if ((yield* directory.settings).enable_sso) {
    const provider = (yield* directory.active).find((row) => row.provider_type === kind)
    if (provider === undefined) return yield* SsoErrors.unknownProvider()
    const location = yield* startLogin(provider.provider_key, redirect_to === "" ? undefined : redirect_to)
    return HttpServerResponse.redirect(location, { headers: noStore })
  }
  return yield* SsoErrors.ssoDisabled()
}))

const callback = browserErrors(Effect.gen(function*() {
  const { provider_key } = yield* Decode.params(ProviderKeyParams)
  const request = yield* HttpServerRequest.HttpServerRequest
  const query = new URL(request.url, "http://callback.invalid").searchParams
  const stateValue = query.get("state") ?? ""
  const state = yield* consumeState(provider_key, stateValue)
  const finished = Effect.map(
    finishCallback(provider_key, stateValue, state, query),
    (location) => HttpServerResponse.redirect(location, { headers: noStore })
  )
  const mobile = state.mobile
  if (mobile === undefined) return yield* finished
  return yield* Effect.catchAll(finished, (e) => {
    const error = toApiError(e)
    return Effect.as(error.status >= 500 ? Effect.logError("sso mobile flow failed", e) : Effect.void, mobileErrorPage(error, mobile))
  })
}))

/** Redeems the web exchange code: the session token in the body and as the session cookies. */
const exchange = Effect.gen(function*() {
  yield* RateLimit.enforce("auth")
  const { code } = yield* Decode.body(ExchangeRequest)
  const { session, token, user, grant } = yield* redeem("exchange", code, () => Effect.void, sessionLengthsMs(yield* runtimeSettings).sso)
  const config = yield* AppConfig
  const body = {
    token,
    csrf: session.props.csrf ?? "",
    user_id: user.id,
    expires_at: session.expires_at,
    redirect_uri: grant.redirect_uri
  }
  const response = yield* respondWith(ExchangeResponse, body, 200, { ...noStore, token })
  return attachSessionCookies(response, session, token, config.siteUrl, yield* Clock.currentTimeMillis)
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v1/oauth2/providers", publicRoute(providers)),
  HttpRouter.get("/api/v1/oauth2/:provider_key/login", publicRoute(login)),
  HttpRouter.get("/oauth/:service/login", publicRoute(webLogin)),
  HttpRouter.get("/oauth/:service/signup", publicRoute(webLogin)),
  HttpRouter.get("/api/v1/oauth2/:provider_key/callback", publicRoute(callback)),
  HttpRouter.post("/api/v1/oauth2/exchange", publicRoute(exchange))
)

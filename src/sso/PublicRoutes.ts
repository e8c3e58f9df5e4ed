import { HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Schema } from "effect"
import { SessionLength } from "../auth/Session.ts"
import { attachSessionCookies } from "../auth/SessionCookies.ts"
import { AppConfig } from "../Config.ts"
import * as Decode from "../http/Decode.ts"
import { toApiError } from "../http/ErrorResponse.ts"
import { json } from "../http/Respond.ts"
import * as RateLimit from "../ratelimit/RateLimit.ts"
import { browserErrors, consumeState, finishCallback, startLogin } from "./Flow.ts"
import { mobileErrorPage } from "./MobilePage.ts"
import { toPublicWire } from "./ProviderConfig.ts"
import { redeem } from "./Sessions.ts"
import { SsoDirectory } from "./SsoDirectory.ts"

/** The public SSO endpoints: provider list, login, callback and the exchange of the one-time code. */

const ProviderKey = Schema.Struct({ provider_key: Schema.String })
const LoginQuery = Schema.Struct({ redirect_uri: Schema.optional(Schema.String) })
const ExchangeBody = Schema.Struct({ code: Schema.String })
const noStore = { "cache-control": "no-store" }

const providers = Effect.gen(function*() {
  const directory = yield* SsoDirectory
  const config = yield* AppConfig
  const settings = yield* directory.settings
  if (!settings.enable_sso) return json([])
  const rows = yield* directory.active
  return json(rows.map((row) => toPublicWire(row, config.siteUrl)))
})

const login = browserErrors(Effect.gen(function*() {
  const { provider_key } = yield* Decode.params(ProviderKey)
  const { redirect_uri } = yield* Decode.query(LoginQuery)
  const location = yield* startLogin(provider_key, redirect_uri)
  return HttpServerResponse.redirect(location, { headers: noStore })
}))

const callback = browserErrors(Effect.gen(function*() {
  const { provider_key } = yield* Decode.params(ProviderKey)
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
  const { code } = yield* Decode.body(ExchangeBody)
  const { session, token, user, grant } = yield* redeem("exchange", code, () => Effect.void, SessionLength.sso)
  const config = yield* AppConfig
  const body = {
    token,
    csrf: session.props.csrf ?? "",
    user_id: user.id,
    expires_at: session.expires_at,
    redirect_uri: grant.redirect_uri
  }
  return attachSessionCookies(json(body, 200, { ...noStore, token }), session, token, config.siteUrl)
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v1/oauth2/providers", providers),
  HttpRouter.get("/api/v1/oauth2/:provider_key/login", login),
  HttpRouter.get("/api/v1/oauth2/:provider_key/callback", callback),
  HttpRouter.post("/api/v1/oauth2/exchange", exchange)
)

import { HttpRouter, HttpServerResponse } from "@effect/platform"
import { Effect, Option, Schema } from "effect"
import { createHash } from "node:crypto"
import { safeEqual } from "../../layers/Crypto.ts"
import { publicRoute } from "../auth/Guards.ts"
import { badRequest, notFound } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { respondWith } from "../http/Respond.ts"
import { SsoCodeExchangeResult } from "../../schemas/wire/Sso.ts"
import * as RateLimit from "../ratelimit/RateLimit.ts"
import { authorizationUrl } from "./Flow.ts"
import type { ProviderType } from "./ProviderConfig.ts"
import { redeem } from "./Sessions.ts"
import { SsoDirectory } from "./SsoDirectory.ts"
import { SsoErrors } from "./SsoErrors.ts"
import { runtimeSettings, sessionLengthsMs } from "../system/RuntimeSettings.ts"

/**
 * SSO from the official mobile app (mattermost-compat.md section 13). The app opens
 * `/oauth/{gitlab|google|openid}/mobile_login?redirect_to=mmauth://callback&state=…&code_challenge=…&code_challenge_method=S256`;
 * each service name maps onto the first active provider (oldest first) of one kind: openid → oidc, google → webidp,
 * gitlab → codehost (the app's only code-hosting button). The flow ends at
 * `mmauth://callback?login_code=…&srv=<site URL>`, and the app redeems the login_code with its PKCE verifier.
 */
export const SERVICE_KINDS: Record<string, ProviderType> = { gitlab: "codehost", google: "webidp", openid: "oidc" }

/** NativeAppSettings.AppCustomURLSchemes' default. */
export const APP_SCHEMES = ["mmauth:", "mmauthbeta:"]

const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/

const invalidScheme = () => badRequest("api.invalid_custom_url_scheme", "Invalid custom URL scheme has been provided")

const ServiceParams = Schema.Struct({ service: Schema.String })

const MobileQuery = Schema.Struct({
  redirect_to: Schema.optionalWith(Schema.String, { default: () => "" }),
  state: Schema.optionalWith(Schema.String, { default: () => "" }),
  code_challenge: Schema.optionalWith(Schema.String, { default: () => "" }),
  code_challenge_method: Schema.optionalWith(Schema.String, { default: () => "" })
})

const mobileLogin = Effect.gen(function*() {
  const { service } = yield* Decode.params(ServiceParams)
  const kind = SERVICE_KINDS[service]
  if (!Object.hasOwn(SERVICE_KINDS, service) || kind === undefined) {
    return yield* notFound("api.sso.unknown_service", `No single sign-on service "${service}" on this server.`)
  }
  const query = yield* Decode.query(MobileQuery)
  const target = Option.liftThrowable(() => new URL(query.redirect_to))()
  if (Option.isNone(target) || !APP_SCHEMES.includes(target.value.protocol)) return yield* invalidScheme()
  if (query.state === "" || query.state.length > 256) return yield* badRequest("api.sso.mobile.state", "state is required")
  // Tokens never travel in URLs here, so the login_code path (PKCE S256) is the only one offered.
  if (query.code_challenge_method !== "S256" || !S256_CHALLENGE.test(query.code_challenge)) {
    return yield* badRequest("api.sso.mobile.code_challenge", "code_challenge with code_challenge_method S256 is required")
  }
  const directory = yield* SsoDirectory
  const settings = yield* directory.settings
  if (!settings.enable_sso) return yield* SsoErrors.ssoDisabled()
  const provider = (yield* directory.active).find((row) => row.provider_type === kind)
  if (provider === undefined) return yield* SsoErrors.unknownProvider()
  const location = yield* authorizationUrl(provider, "/", {
    redirect_to: query.redirect_to,
    app_state: query.state,
    code_challenge: query.code_challenge
  })
  return HttpServerResponse.redirect(location, { headers: { "cache-control": "no-store" } })
})

const s256 = (verifier: string) => createHash("sha256").update(verifier).digest("base64url")

const CodeExchange = Schema.Struct({ login_code: Schema.String, code_verifier: Schema.String, state: Schema.String })

const invalidCodeExchange = () => badRequest("api.user.login_sso_code_exchange.invalid.app_error", "Invalid login code, state or code verifier.")

/** The code is consumed before the checks: a wrong verifier or state burns it. */
const codeExchange = Effect.gen(function*() {
  yield* RateLimit.enforce("auth")
  const input = yield* Decode.body(CodeExchange)
  const { session, token } = yield* redeem(
    "login",
    input.login_code,
    (grant) =>
      grant.app_state !== undefined && grant.code_challenge !== undefined && safeEqual(grant.app_state, input.state) &&
        /^[A-Za-z0-9._~-]{43,128}$/.test(input.code_verifier) && safeEqual(grant.code_challenge, s256(input.code_verifier))
        ? Effect.void
        : Effect.fail(invalidCodeExchange()),
    sessionLengthsMs(yield* runtimeSettings).mobile
  )
  return yield* respondWith(SsoCodeExchangeResult, { token, csrf: session.props.csrf ?? "" }, 200, { "cache-control": "no-store" })
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/oauth/:service/mobile_login", publicRoute(mobileLogin)),
  HttpRouter.post("/api/v4/users/login/sso/code-exchange", publicRoute(codeExchange))
)

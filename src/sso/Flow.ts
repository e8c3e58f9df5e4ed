import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { IdP } from "../../layers/IdP.ts"
import { AppConfig } from "../Config.ts"
import { ApiError } from "../http/ApiError.ts"
import { toApiError } from "../http/ErrorResponse.ts"
import { isDomainError } from "../../schemas/Errors.ts"
import { logSecurityEvent, SecurityEvent } from "../security/SecurityEvents.ts"
import { type FlowState, type MobileStart, putCode, putState, takeState } from "./FlowStore.ts"
import { codehostClient, codehostIdentity, fromIdP, oidcClient, oidcIdentity } from "./Identities.ts"
import { callbackUrl, type ProviderRow } from "./ProviderConfig.ts"
import { provision } from "./Provisioning.ts"
import { SsoDirectory } from "./SsoDirectory.ts"
import { SsoErrors } from "./SsoErrors.ts"

/**
 * The SSO login flow of the specification: login (state, PKCE and nonce for OIDC kinds, redirect to the provider)
 * and callback (state consumed once, identity verified, provisioning, one-time code). The token itself never
 * appears in a URL: the web gets `/login?code=…` for POST /api/v1/oauth2/exchange, the mobile app
 * `mmauth://callback?login_code=…` for POST /api/v4/users/login/sso/code-exchange.
 */

export const SCOPES = {
  codehost: "read:user user:email",
  oidc: "openid profile email",
  webidp: "openid profile email"
} as const

/**
 * A path inside this service, or None. Absolute and protocol-relative URLs (`//host`, `/\host`), control
 * characters and anything resolving to another origin are refused: no open redirect.
 */
export const safeRedirectPath = (raw: string | undefined): Option.Option<string> => {
  if (raw === undefined || raw === "") return Option.some("/")
  if (!raw.startsWith("/") || raw.startsWith("//") || raw.includes("\\") || /[\u0000-\u001f\u007f]/.test(raw)) return Option.none()
  try {
    const base = "http://service.invalid"
    const url = new URL(raw, base)
    return url.origin === base ? Option.some(`${url.pathname}${url.search}${url.hash}`) : Option.none()
  } catch {
    return Option.none()
  }
}

const activeProvider = (row: Option.Option<ProviderRow>) =>
  Option.isSome(row) && row.value.is_active ? Effect.succeed(row.value) : SsoErrors.unknownProvider()

const requireEnabled = Effect.gen(function*() {
  const directory = yield* SsoDirectory
  const settings = yield* directory.settings
  if (!settings.enable_sso) return yield* SsoErrors.ssoDisabled()
})

/** Stores a fresh state for this provider and returns the provider's authorization URL. */
export const authorizationUrl = (row: ProviderRow, redirectPath: string, mobile?: MobileStart) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    const directory = yield* SsoDirectory
    const idp = yield* IdP
    const redirectUri = callbackUrl(config.siteUrl, row.provider_key)
    const secret = yield* directory.clientSecret(row)
    if (row.provider_type === "codehost") {
      const state = yield* putState({ provider_id: row.id, provider_key: row.provider_key, redirect_uri: redirectPath, mobile })
      const c = codehostClient(row, secret)
      const restricted = (row.settings.required_organization ?? null) !== null
      const url = new URL(`${c.webBaseUrl}/login/oauth/authorize`)
      url.search = new URLSearchParams({
        client_id: row.client_id,
        redirect_uri: redirectUri,
        scope: restricted ? `${SCOPES.codehost} read:org` : SCOPES.codehost,
        state,
        allow_signup: "false"
      }).toString()
      return url
    }
    const { codeChallenge, codeVerifier, nonce } = yield* idp.oidcLoginChecks
    const state = yield* putState({
      provider_id: row.id,
      provider_key: row.provider_key,
      redirect_uri: redirectPath,
      code_verifier: codeVerifier,
      nonce,
      mobile
    })
    const params: Record<string, string> = {
      response_type: "code",
      redirect_uri: redirectUri,
      scope: SCOPES[row.provider_type],
      state,
      nonce,
      code_challenge: codeChallenge,
      code_challenge_method: "S256"
    }
    // Google's hint for the account chooser; the domain is still checked on the way back.
    if (row.provider_type === "webidp" && row.allow_domains?.length === 1) params.hd = row.allow_domains[0]
    return yield* idp.oidcAuthorizationUrl(oidcClient(row, secret), params).pipe(Effect.catchAll(fromIdP(row)))
  })

export const startLogin = (providerKey: string, redirectUri: string | undefined) =>
  Effect.gen(function*() {
    const path = safeRedirectPath(redirectUri)
    if (Option.isNone(path)) return yield* SsoErrors.badRedirect()
    yield* requireEnabled
    const directory = yield* SsoDirectory
    const row = yield* activeProvider(yield* directory.byKey(providerKey))
    return yield* authorizationUrl(row, path.value)
  })

/** The stored state named by the callback, consumed; anything else is the "Invalid OAuth state" security event. */
export const consumeState = (providerKey: string, stateValue: string | null) =>
  Effect.gen(function*() {
    const refuse = (reason: string) =>
      Effect.zipRight(logSecurityEvent(SecurityEvent.InvalidOAuthState, { provider_key: providerKey, reason }), SsoErrors.invalidState())
    if (stateValue === null || stateValue === "") return yield* refuse("missing")
    const stored = yield* takeState(stateValue).pipe(Effect.either)
    if (stored._tag === "Left") return yield* refuse("store unreachable")
    if (Option.isNone(stored.right)) return yield* refuse("unknown, expired or already used")
    if (stored.right.value.provider_key !== providerKey) return yield* refuse("issued for another provider")
    return stored.right.value
  })

/** Verifies the callback against the provider, provisions the user and returns where to send the browser. */
export const finishCallback = (providerKey: string, stateValue: string, state: FlowState, query: URLSearchParams) =>
  Effect.gen(function*() {
    yield* requireEnabled
    const config = yield* AppConfig
    const directory = yield* SsoDirectory
    const row = yield* activeProvider(yield* directory.byId(state.provider_id))
    const providerError = query.get("error")
    if (providerError !== null) {
      yield* Effect.logWarning("sso provider returned an error").pipe(Effect.annotateLogs({ provider_key: providerKey, error: providerError }))
      return yield* providerError === "access_denied" ? SsoErrors.accessDenied() : SsoErrors.verificationFailed()
    }
    const code = query.get("code")
    if (code === null || code === "") return yield* SsoErrors.verificationFailed()
    const secret = yield* directory.clientSecret(row)
    const redirectUri = callbackUrl(config.siteUrl, providerKey)
    const identity = row.provider_type === "codehost"
      ? yield* codehostIdentity(row, secret, code, redirectUri)
      : yield* oidcIdentity(row, secret, new URL(`${redirectUri}?${query.toString()}`), {
        pkceCodeVerifier: state.code_verifier ?? "",
        expectedState: stateValue,
        expectedNonce: state.nonce ?? ""
      })
    const { user } = yield* provision(row, identity)
    if (state.mobile !== undefined) {
      const loginCode = yield* putCode("login", {
        user_id: user.id,
        redirect_uri: state.redirect_uri,
        app_state: state.mobile.app_state,
        code_challenge: state.mobile.code_challenge
      })
      const target = new URL(state.mobile.redirect_to)
      target.searchParams.set("login_code", loginCode)
      target.searchParams.set("srv", config.siteUrl)
      return target.toString()
    }
    const exchangeCode = yield* putCode("exchange", { user_id: user.id, redirect_uri: state.redirect_uri })
    return `${config.siteUrl}/login?code=${encodeURIComponent(exchangeCode)}`
  })

const wantsJson = (request: HttpServerRequest.HttpServerRequest) => {
  const accept = request.headers["accept"] ?? ""
  return accept.includes("application/json") && !accept.includes("text/html")
}

/**
 * Browser navigations end on the login page with the message (`/login?error=…`); a client asking for JSON gets the
 * native error body with the documented status instead.
 */
export const browserErrors = <R>(effect: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, R>) =>
  Effect.catchAll(effect, (e) =>
    Effect.gen(function*() {
      const error = toApiError(e)
      if (error.status >= 500 && !(e instanceof ApiError) && !isDomainError(e)) yield* Effect.logError("sso flow failed", e)
      const request = yield* HttpServerRequest.HttpServerRequest
      if (wantsJson(request)) return yield* Effect.fail(error)
      const config = yield* AppConfig
      return HttpServerResponse.redirect(`${config.siteUrl}/login?error=${encodeURIComponent(error.message)}`, {
        headers: { "cache-control": "no-store" }
      })
    }))

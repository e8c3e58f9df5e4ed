import { Clock, Context, Data, Duration, Effect, Layer, Redacted, SynchronizedRef } from "effect"
import * as client from "openid-client"
import { sha256Hex } from "./Crypto.ts"
import { asFetch, makeOperator, type OutboundError, type OutboundHttpService } from "./OutboundHttp.ts"
import { backoff, type CircuitBreaker, type CircuitOpenError, makeCircuitBreaker } from "./Resilience.ts"

/**
 * Outbound calls to identity providers: OIDC through openid-client v6 (discovery, authorization URL, code grant with
 * ID-token signature verification, userinfo) and GitHub's REST API by hand (GitHub answers OAuth errors with HTTP
 * 200 and an `error` field, which openid-client cannot report). Each provider has its own circuit breaker, so one
 * provider being down never slows another down; discovery documents are cached for an hour per configuration, and
 * each cached openid-client Configuration keeps its key set (re-fetched by openid-client after 5 minutes, or on an
 * unknown key id).
 *
 * Every request, openid-client's included (its `customFetch`), goes through OutboundHttp with the operator's address
 * policy: providers are configured by a system admin, not by users, and may sit on the internal network (or on
 * loopback in tests). Its timeout applies; its breaker per destination is off. This layer's breaker per provider is
 * the one that decides (docs/sso.md): it counts 5xx answers as failures, which the per-destination breaker does not,
 * and the admin test (`oidcProbe`, `codehostProbe`) bypasses it; a second breaker stacked beneath would make the
 * probe, or one provider sharing a host with another, fail fast after failures of other calls to that host.
 *
 * Only `https` is spoken unless `allowInsecureRequests` is set, which exists for loopback test providers.
 */
export class IdPError extends Data.TaggedError("IdPError")<{
  /** unavailable: network, timeout or 5xx (counts against the breaker); rejected: the provider or a check said no. */
  readonly kind: "unavailable" | "rejected"
  readonly reason: string
  readonly status?: number
  /** The OAuth error code the provider returned (invalid_grant, access_denied, bad_verification_code, ...). */
  readonly oauthError?: string
}> {
  override get message() {
    return `identity provider ${this.kind}: ${this.reason}`
  }
}

export type IdPFailure = IdPError | CircuitOpenError

export interface OidcClient {
  readonly providerId: string
  readonly providerKey: string
  readonly issuerUrl: string
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string>
}

export interface CodehostClient {
  readonly providerId: string
  readonly providerKey: string
  readonly webBaseUrl: string
  readonly apiBaseUrl: string
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string>
}

export interface DiscoveryDocument {
  readonly issuer: string
  readonly authorization_endpoint: string
  readonly token_endpoint: string
  readonly userinfo_endpoint?: string
  readonly jwks_uri: string
  readonly token_endpoint_auth_methods_supported?: ReadonlyArray<string>
}

export interface OidcTokens {
  readonly claims: Record<string, unknown>
  readonly accessToken: string
}

export interface RestResponse {
  readonly status: number
  readonly body: unknown
}

/** What a provider test found, before the SSO feature turns it into the test result object. */
export type OidcProbe =
  | { readonly _tag: "Ok"; readonly document: DiscoveryDocument; readonly keys: number }
  | { readonly _tag: "Failed"; readonly stage: "discovery" | "jwks"; readonly reason: string; readonly status?: number; readonly discoveryUrl: string }

/** The per-login secrets of an OIDC authorization request: a PKCE verifier, its S256 challenge and a nonce. */
export interface OidcLoginChecks {
  readonly codeVerifier: string
  readonly codeChallenge: string
  readonly nonce: string
}

export interface IdPService {
  readonly allowInsecureRequests: boolean
  /** Fresh PKCE verifier and challenge and nonce for one login (kept in the flow state for the callback's checks). */
  readonly oidcLoginChecks: Effect.Effect<OidcLoginChecks>
  readonly oidcAuthorizationUrl: (c: OidcClient, params: Record<string, string>) => Effect.Effect<URL, IdPFailure>
  /** Exchanges the code (PKCE, state, nonce checked; ID token signature verified) and returns the ID token claims. */
  readonly oidcCodeGrant: (
    c: OidcClient,
    currentUrl: URL,
    checks: { readonly pkceCodeVerifier: string; readonly expectedState: string; readonly expectedNonce: string }
  ) => Effect.Effect<OidcTokens, IdPFailure>
  readonly oidcUserInfo: (c: OidcClient, accessToken: string, subject: string) => Effect.Effect<Record<string, unknown>, IdPFailure>
  /** Fresh discovery and key set, bypassing caches and breaker: the admin test. */
  readonly oidcProbe: (issuerUrl: string) => Effect.Effect<OidcProbe>
  readonly codehostToken: (c: CodehostClient, code: string, redirectUri: string) => Effect.Effect<string, IdPFailure>
  readonly codehostGet: (c: CodehostClient, accessToken: string, path: string) => Effect.Effect<RestResponse, IdPFailure>
  /** GET of the API root without credentials: the admin test. */
  readonly codehostProbe: (apiBaseUrl: string) => Effect.Effect<{ readonly status: number } | { readonly error: string }>
  /** Drops cached discovery for a provider (after an admin change). */
  readonly forget: (providerId: string) => Effect.Effect<void>
}

export class IdP extends Context.Tag("capability/IdP")<IdP, IdPService>() {}

export interface IdPOptions {
  readonly allowInsecureRequests?: boolean
  /** Seconds per outbound call. */
  readonly timeoutSeconds?: number
  /** Consecutive provider failures that open its breaker. */
  readonly breakerMaxFailures?: number
  readonly breakerResetAfter?: Duration.DurationInput
  /** The client requests go through; by default one with the operator's policy (every address allowed). */
  readonly http?: OutboundHttpService
}

const DISCOVERY_TTL_MS = 60 * 60 * 1000
const USER_AGENT = "the-service-sso"

export const wellKnownUrl = (issuer: string) => `${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`

/** A provider's answer larger than this (a discovery document, a key set, a token) is refused. */
const MAX_ANSWER_BYTES = 1024 * 1024

/** OutboundHttp's failures as fetch's were classified: a bad or refused URL is "rejected", the rest "unavailable". */
const fromOutbound = (e: OutboundError): IdPError => {
  switch (e._tag) {
    case "OutboundTimeout":
      return new IdPError({ kind: "unavailable", reason: "timeout" })
    case "OutboundInvalidUrl":
    case "OutboundRefused":
      return new IdPError({ kind: "rejected", reason: e.message })
    default:
      return new IdPError({ kind: "unavailable", reason: "network error" })
  }
}

const isTimeout = (e: unknown) => e instanceof Error && (e.name === "TimeoutError" || e.name === "AbortError")

/** openid-client and fetch failures: transport problems and 5xx are "unavailable", everything else "rejected". */
export const classify = (e: unknown): IdPError => {
  if (e instanceof IdPError) return e
  if (e instanceof TypeError || isTimeout(e)) {
    return new IdPError({ kind: "unavailable", reason: isTimeout(e) ? "timeout" : "network error" })
  }
  if (e instanceof client.AuthorizationResponseError) {
    return new IdPError({ kind: "rejected", reason: `authorization error ${e.error}`, oauthError: e.error })
  }
  if (e instanceof client.ResponseBodyError) {
    return new IdPError({ kind: e.status >= 500 ? "unavailable" : "rejected", reason: `provider error ${e.error}`, status: e.status, oauthError: e.error })
  }
  if (e instanceof client.ClientError) {
    const cause = (e as { cause?: unknown }).cause
    const status = cause instanceof Response ? cause.status : undefined
    const inner = cause instanceof Error ? `: ${cause.message}` : ""
    return new IdPError({
      kind: status !== undefined && status >= 500 ? "unavailable" : "rejected",
      reason: `${e.code ?? "client error"} ${e.message}${inner}${status !== undefined ? ` (HTTP ${status})` : ""}`,
      status
    })
  }
  return new IdPError({ kind: "rejected", reason: e instanceof Error ? e.message : String(e) })
}

const asString = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined)

export const make = (options: IdPOptions = {}) =>
  Effect.gen(function*() {
    const insecure = options.allowInsecureRequests ?? false
    const timeoutMs = (options.timeoutSeconds ?? 5) * 1000
    const http = options.http ?? (yield* makeOperator({ breakerPerDestination: false }))
    const viaOutbound = asFetch(http, { timeout: Duration.millis(timeoutMs), maxBytes: MAX_ANSWER_BYTES })
    const breakers = yield* SynchronizedRef.make(new Map<string, CircuitBreaker>())
    const discoveries = yield* SynchronizedRef.make(new Map<string, { fingerprint: string; config: client.Configuration; expiresAt: number }>())
    const retryOnce = { schedule: backoff({ base: "100 millis", times: 1 }), while: (e: IdPError | CircuitOpenError) => e._tag === "IdPError" && e.kind === "unavailable" }

    const breakerFor = (providerId: string, providerKey: string) =>
      SynchronizedRef.modifyEffect(breakers, (map) => {
        const existing = map.get(providerId)
        if (existing !== undefined) return Effect.succeed([existing, map] as const)
        return Effect.map(
          makeCircuitBreaker({
            name: `idp:${providerKey}`,
            maxFailures: options.breakerMaxFailures ?? 3,
            resetAfter: options.breakerResetAfter ?? "30 seconds",
            isFailure: (e) => e instanceof IdPError && e.kind === "unavailable"
          }),
          (breaker) => [breaker, new Map(map).set(providerId, breaker)] as const
        )
      })

    const guarded = <A>(providerId: string, providerKey: string, call: Effect.Effect<A, IdPError>) =>
      Effect.flatMap(breakerFor(providerId, providerKey), (breaker) => breaker.protect(call))

    const checkScheme = (raw: string) =>
      Effect.try({
        try: () => {
          const url = new URL(raw)
          if (url.protocol === "https:" || (insecure && url.protocol === "http:")) return url
          throw new IdPError({ kind: "rejected", reason: `only https URLs are allowed: ${url.origin}` })
        },
        catch: classify
      })

    const fetchJson = (raw: string, init: { readonly method?: "POST"; readonly headers: Record<string, string>; readonly body?: string }) =>
      Effect.flatMap(checkScheme(raw), (url) =>
        http.request({
          url: url.toString(),
          method: init.method ?? "GET",
          headers: init.headers,
          body: init.body,
          timeout: Duration.millis(timeoutMs),
          maxBytes: MAX_ANSWER_BYTES,
          maxRedirects: 0
        }).pipe(
          Effect.mapError(fromOutbound),
          Effect.map((answer) => {
            let body: unknown = undefined
            try {
              body = answer.body === "" ? undefined : JSON.parse(answer.body)
            } catch {
              body = undefined
            }
            return { status: answer.status, body }
          })
        ))

    const discover = (issuerUrl: string) =>
      Effect.flatMap(fetchJson(wellKnownUrl(issuerUrl), { headers: { accept: "application/json", "user-agent": USER_AGENT } }), ({ status, body }) => {
        if (status !== 200) {
          return Effect.fail(new IdPError({ kind: status >= 500 ? "unavailable" : "rejected", reason: `discovery answered HTTP ${status}`, status }))
        }
        const doc = (body ?? {}) as Record<string, unknown>
        const issuer = asString(doc.issuer)
        if (issuer === undefined || issuer.replace(/\/+$/, "") !== issuerUrl.replace(/\/+$/, "")) {
          return Effect.fail(new IdPError({ kind: "rejected", reason: "discovery document names another issuer", status }))
        }
        if (!asString(doc.authorization_endpoint) || !asString(doc.token_endpoint) || !asString(doc.jwks_uri)) {
          return Effect.fail(new IdPError({ kind: "rejected", reason: "discovery document lacks required endpoints", status }))
        }
        return Effect.succeed(doc as unknown as DiscoveryDocument)
      })

    const configuration = (c: OidcClient) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const fingerprint = sha256Hex(`${c.issuerUrl}\n${c.clientId}\n${Redacted.value(c.clientSecret)}`)
        const cached = (yield* SynchronizedRef.get(discoveries)).get(c.providerId)
        if (cached !== undefined && cached.fingerprint === fingerprint && cached.expiresAt > now) return cached.config
        const doc = yield* guarded(c.providerId, c.providerKey, Effect.retry(discover(c.issuerUrl), retryOnce)).pipe(
          Effect.mapError((e) => e._tag === "IdPError" ? new IdPError({ ...e, reason: `discovery failed: ${e.reason}` }) : e)
        )
        const secret = Redacted.value(c.clientSecret)
        const auth = doc.token_endpoint_auth_methods_supported !== undefined &&
            !doc.token_endpoint_auth_methods_supported.includes("client_secret_basic") &&
            doc.token_endpoint_auth_methods_supported.includes("client_secret_post")
          ? client.ClientSecretPost(secret)
          : client.ClientSecretBasic(secret)
        const config = new client.Configuration(doc as unknown as client.ServerMetadata, c.clientId, undefined, auth)
        // Without this, openid-client v6 accepts an ID token whose signature does not verify.
        client.enableNonRepudiationChecks(config)
        if (insecure) client.allowInsecureRequests(config)
        config.timeout = timeoutMs / 1000
        // Token, key set and userinfo requests go through OutboundHttp like this layer's own.
        config[client.customFetch] = viaOutbound
        yield* SynchronizedRef.update(discoveries, (m) => new Map(m).set(c.providerId, { fingerprint, config, expiresAt: now + DISCOVERY_TTL_MS }))
        return config
      })

    const promise = <A>(f: () => Promise<A>) => Effect.tryPromise({ try: f, catch: classify })

    const service: IdPService = {
      allowInsecureRequests: insecure,
      oidcLoginChecks: Effect.promise(async () => {
        const codeVerifier = client.randomPKCECodeVerifier()
        return { codeVerifier, codeChallenge: await client.calculatePKCECodeChallenge(codeVerifier), nonce: client.randomNonce() }
      }),
      oidcAuthorizationUrl: (c, params) =>
        Effect.flatMap(configuration(c), (config) =>
          Effect.try({ try: () => client.buildAuthorizationUrl(config, params), catch: classify })),
      oidcCodeGrant: (c, currentUrl, checks) =>
        Effect.flatMap(configuration(c), (config) =>
          guarded(c.providerId, c.providerKey, promise(() => client.authorizationCodeGrant(config, currentUrl, { ...checks, idTokenExpected: true }))).pipe(
            Effect.flatMap((tokens) => {
              const claims = tokens.claims()
              return claims === undefined
                ? Effect.fail(new IdPError({ kind: "rejected", reason: "no ID token in the token response" }))
                : Effect.succeed({ claims: { ...claims } as Record<string, unknown>, accessToken: tokens.access_token })
            })
          )),
      oidcUserInfo: (c, accessToken, subject) =>
        Effect.flatMap(configuration(c), (config) =>
          guarded(
            c.providerId,
            c.providerKey,
            Effect.retry(promise(() => client.fetchUserInfo(config, accessToken, subject)), retryOnce)
          ).pipe(Effect.map((info) => ({ ...info }) as Record<string, unknown>))),
      oidcProbe: (issuerUrl) =>
        Effect.gen(function*() {
          const discoveryUrl = wellKnownUrl(issuerUrl)
          const failed = (stage: "discovery" | "jwks", e: IdPError) =>
            ({ _tag: "Failed", stage, reason: e.reason, status: e.status, discoveryUrl }) as const
          const doc = yield* Effect.either(discover(issuerUrl))
          if (doc._tag === "Left") return failed("discovery", doc.left)
          const jwks = yield* Effect.either(fetchJson(doc.right.jwks_uri, { headers: { accept: "application/json", "user-agent": USER_AGENT } }))
          if (jwks._tag === "Left") return failed("jwks", jwks.left)
          const keys = (jwks.right.body as { keys?: unknown } | undefined)?.keys
          if (jwks.right.status !== 200) {
            return failed("jwks", new IdPError({ kind: "rejected", reason: `key set answered HTTP ${jwks.right.status}`, status: jwks.right.status }))
          }
          if (!Array.isArray(keys) || keys.length === 0 || !keys.every((k) => typeof (k as { kty?: unknown })?.kty === "string")) {
            return failed("jwks", new IdPError({ kind: "rejected", reason: "key set is not a valid JWKS", status: 200 }))
          }
          return { _tag: "Ok", document: doc.right, keys: keys.length } as const
        }),
      codehostToken: (c, code, redirectUri) =>
        guarded(
          c.providerId,
          c.providerKey,
          fetchJson(`${c.webBaseUrl}/login/oauth/access_token`, {
            method: "POST",
            headers: { accept: "application/json", "content-type": "application/x-www-form-urlencoded", "user-agent": USER_AGENT },
            body: new URLSearchParams({ client_id: c.clientId, client_secret: Redacted.value(c.clientSecret), code, redirect_uri: redirectUri }).toString()
          }).pipe(
            Effect.flatMap(({ status, body }) => {
              if (status >= 500) return Effect.fail(new IdPError({ kind: "unavailable", reason: `token endpoint answered HTTP ${status}`, status }))
              // GitHub reports OAuth errors with HTTP 200 and an error field.
              const b = (body ?? {}) as Record<string, unknown>
              const error = asString(b.error)
              if (error !== undefined) return Effect.fail(new IdPError({ kind: "rejected", reason: `provider error ${error}`, status, oauthError: error }))
              const token = asString(b.access_token)
              return token === undefined
                ? Effect.fail(new IdPError({ kind: "rejected", reason: `token endpoint answered HTTP ${status} without a token`, status }))
                : Effect.succeed(token)
            })
          )
        ),
      codehostGet: (c, accessToken, path) =>
        guarded(
          c.providerId,
          c.providerKey,
          Effect.retry(
            fetchJson(`${c.apiBaseUrl}${path}`, {
              headers: {
                authorization: `Bearer ${accessToken}`,
                accept: "application/vnd.github+json",
                "x-github-api-version": "2022-11-28",
                "user-agent": USER_AGENT
              }
            }).pipe(
              Effect.filterOrFail(
                (r) => r.status < 500,
                (r) => new IdPError({ kind: "unavailable", reason: `API answered HTTP ${r.status}`, status: r.status })
              )
            ),
            retryOnce
          )
        ),
      codehostProbe: (apiBaseUrl) =>
        fetchJson(`${apiBaseUrl}/`, { headers: { accept: "application/vnd.github+json", "user-agent": USER_AGENT } }).pipe(
          Effect.map((r) => ({ status: r.status })),
          Effect.catchAll((e) => Effect.succeed({ error: e.reason }))
        ),
      forget: (providerId) =>
        SynchronizedRef.update(discoveries, (m) => {
          const next = new Map(m)
          next.delete(providerId)
          return next
        })
    }
    return service
  })

/** Production: https only. */
export const layer = (options: IdPOptions = {}) => Layer.effect(IdP, make(options))

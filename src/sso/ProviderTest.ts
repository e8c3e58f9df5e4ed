import { Effect, Either } from "effect"
import { IdP } from "../../layers/IdP.ts"
import { GITHUB_API, GITHUB_WEB, type ProviderRow } from "./ProviderConfig.ts"
import { SsoDirectory } from "./SsoDirectory.ts"

/**
 * The admin test of a provider, as the specification's test result object. codehost: the configuration is complete
 * (client id, a decryptable secret) and the API root answers 200. webidp and oidc: the discovery document answers and
 * is valid for the configured issuer, and the key set answers with at least one key.
 */
export interface TestResult {
  readonly success: boolean
  readonly message: string
  readonly details: Record<string, string | number>
}

export const testProvider = (row: ProviderRow) =>
  Effect.gen(function*() {
    const idp = yield* IdP
    const directory = yield* SsoDirectory
    const secret = yield* Effect.either(directory.clientSecret(row))
    const secretOk = Either.isRight(secret) && secret.right !== ""
    if (row.provider_type === "codehost") {
      const web = row.settings.web_base_url ?? GITHUB_WEB
      const api = row.settings.api_base_url ?? GITHUB_API
      const details: Record<string, string | number> = {
        web_base_url: web,
        api_base_url: api,
        authorization_endpoint: `${web}/login/oauth/authorize`,
        token_endpoint: `${web}/login/oauth/access_token`
      }
      if (!secretOk || row.client_id === "") {
        return { success: false, message: "Configuration incomplete: client_id or client_secret is missing or unreadable", details } satisfies TestResult
      }
      const probe = yield* idp.codehostProbe(api)
      if ("error" in probe) return { success: false, message: `Provider API unreachable: ${probe.error}`, details } satisfies TestResult
      const withStatus = { ...details, http_status: probe.status }
      return probe.status === 200
        ? { success: true, message: "Provider API reachable and configuration complete", details: withStatus } satisfies TestResult
        : { success: false, message: `Provider API answered HTTP ${probe.status}`, details: withStatus } satisfies TestResult
    }
    const issuer = row.issuer_url ?? ""
    const probe = yield* idp.oidcProbe(issuer)
    if (probe._tag === "Failed") {
      const details: Record<string, string | number> = { issuer_url: issuer, discovery_url: probe.discoveryUrl, reason: probe.reason }
      if (probe.status !== undefined) details.http_status = probe.status
      const summary = probe.status !== undefined && probe.status !== 200 ? `HTTP ${probe.status}` : probe.reason
      const message = probe.stage === "discovery" ? `OIDC discovery failed: ${summary}` : `OIDC key set (JWKS) check failed: ${summary}`
      return { success: false, message, details } satisfies TestResult
    }
    const details = {
      issuer: probe.document.issuer,
      authorization_endpoint: probe.document.authorization_endpoint,
      token_endpoint: probe.document.token_endpoint,
      userinfo_endpoint: probe.document.userinfo_endpoint ?? "",
      jwks_keys_count: probe.keys
    }
    if (!secretOk || row.client_id === "") {
      return { success: false, message: "Configuration incomplete: client_id or client_secret is missing or unreadable", details } satisfies TestResult
    }
    return { success: true, message: "Discovery document and key set are valid", details } satisfies TestResult
  })

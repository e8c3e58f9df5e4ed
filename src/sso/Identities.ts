import { Effect, Redacted } from "effect"
import { type CodehostClient, IdP, type IdPFailure, type OidcClient } from "../../layers/IdP.ts"
import type { DomainError } from "../../schemas/Errors.ts"
import { DEFAULT_GROUPS_CLAIM, GITHUB_API, GITHUB_WEB, type ProviderRow } from "./ProviderConfig.ts"
import type { VerifiedIdentity } from "./Provisioning.ts"
import { groupsFromClaim } from "./Roles.ts"
import { SsoErrors } from "./SsoErrors.ts"

/**
 * From a provider's callback to a verified identity: the type-specific checks of the SSO login flow (step 4).
 * Every refusal is one of the SSO error messages; provider failures are logged with their reason (never secrets).
 */

export const oidcClient = (row: ProviderRow, secret: string): OidcClient => ({
  providerId: row.id,
  providerKey: row.provider_key,
  issuerUrl: row.issuer_url ?? "",
  clientId: row.client_id,
  clientSecret: Redacted.make(secret)
})

export const codehostClient = (row: ProviderRow, secret: string): CodehostClient => ({
  providerId: row.id,
  providerKey: row.provider_key,
  webBaseUrl: row.settings.web_base_url ?? GITHUB_WEB,
  apiBaseUrl: row.settings.api_base_url ?? GITHUB_API,
  clientId: row.client_id,
  clientSecret: Redacted.make(secret)
})

/** Provider failures as SSO errors: unreachable or breaker open → 503; access_denied → 403; the rest → 401. */
export const fromIdP = (row: ProviderRow) => (e: IdPFailure): Effect.Effect<never, DomainError> => {
  const log = Effect.logWarning("sso provider call failed").pipe(
    Effect.annotateLogs({ provider_key: row.provider_key, failure: e._tag === "IdPError" ? `${e.kind}: ${e.reason}` : e.message })
  )
  const error = e._tag === "CircuitOpenError" || e.kind === "unavailable"
    ? e._tag === "IdPError" && e.reason.startsWith("discovery failed") ? SsoErrors.discoveryFailed() : SsoErrors.providerUnavailable()
    : e.reason.startsWith("discovery failed")
    ? SsoErrors.discoveryFailed()
    : e.oauthError === "access_denied"
    ? SsoErrors.accessDenied()
    : e.oauthError === "unverified_user_email"
    ? SsoErrors.noVerifiedEmail()
    : SsoErrors.verificationFailed()
  return Effect.zipRight(log, Effect.fail(error))
}

const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined)

/** An email with exactly one @ and a domain: what domain checks may rely on. */
const emailDomain = (email: string) => {
  const parts = email.split("@")
  return parts.length === 2 && parts[0] !== "" && parts[1] !== "" ? parts[1].toLowerCase() : undefined
}

/**
 * The webidp and oidc checks on merged claims: a subject, an email the provider marks verified (the boolean true,
 * not "true"), and for webidp with allow_domains a listed domain whose `hd` claim matches.
 */
export const checkOidcClaims = (row: ProviderRow, claims: Record<string, unknown>): Effect.Effect<VerifiedIdentity, DomainError> => {
  const subject = str(claims.sub)
  if (subject === undefined) return Effect.fail(SsoErrors.verificationFailed())
  const email = str(claims.email)
  if (email === undefined || emailDomain(email) === undefined) return Effect.fail(SsoErrors.noVerifiedEmail())
  if (claims.email_verified !== true) return Effect.fail(SsoErrors.emailNotVerified())
  if (row.provider_type === "webidp" && row.allow_domains !== null && row.allow_domains.length > 0) {
    const domain = emailDomain(email)!
    const hd = str(claims.hd)?.toLowerCase()
    if (!row.allow_domains.includes(domain) || hd !== domain) return Effect.fail(SsoErrors.domainNotAllowed())
  }
  return Effect.succeed({
    subject,
    email,
    preferredUsername: str(claims.preferred_username),
    name: str(claims.name),
    givenName: str(claims.given_name),
    familyName: str(claims.family_name),
    groups: row.provider_type === "oidc" ? groupsFromClaim(claims[row.groups_claim ?? DEFAULT_GROUPS_CLAIM]) : []
  })
}

export const oidcIdentity = (
  row: ProviderRow,
  secret: string,
  currentUrl: URL,
  checks: { readonly pkceCodeVerifier: string; readonly expectedState: string; readonly expectedNonce: string }
) =>
  Effect.gen(function*() {
    const idp = yield* IdP
    const c = oidcClient(row, secret)
    const tokens = yield* idp.oidcCodeGrant(c, currentUrl, checks).pipe(Effect.catchAll(fromIdP(row)))
    let claims = tokens.claims
    const groupsClaim = row.groups_claim ?? DEFAULT_GROUPS_CLAIM
    const incomplete = claims.email === undefined || claims.email_verified === undefined ||
      (row.provider_type === "oidc" && claims[groupsClaim] === undefined)
    if (incomplete && typeof claims.sub === "string") {
      // Some providers keep email or groups out of the ID token; userinfo (bound to the same subject) fills in, and
      // the signed ID token wins where both speak.
      const info = yield* idp.oidcUserInfo(c, tokens.accessToken, claims.sub).pipe(Effect.catchAll(fromIdP(row)))
      claims = { ...info, ...claims }
    }
    return yield* checkOidcClaims(row, claims)
  })

interface GithubEmail {
  readonly email?: unknown
  readonly primary?: unknown
  readonly verified?: unknown
}

export const codehostIdentity = (row: ProviderRow, secret: string, code: string, redirectUri: string) =>
  Effect.gen(function*() {
    const idp = yield* IdP
    const c = codehostClient(row, secret)
    const fail = fromIdP(row)
    const token = yield* idp.codehostToken(c, code, redirectUri).pipe(Effect.catchAll(fail))
    const get = (path: string) => idp.codehostGet(c, token, path).pipe(Effect.catchAll(fail))
    const user = yield* get("/user")
    const profile = (user.body ?? {}) as { id?: unknown; login?: unknown; name?: unknown }
    if (user.status !== 200 || typeof profile.id !== "number" || typeof profile.login !== "string") {
      return yield* SsoErrors.verificationFailed()
    }
    const emails = yield* get("/user/emails")
    const primary = Array.isArray(emails.body)
      ? (emails.body as Array<GithubEmail>).find((e) => e.primary === true && e.verified === true && typeof e.email === "string")
      : undefined
    if (emails.status !== 200 || primary === undefined) return yield* SsoErrors.noVerifiedEmail()
    const organization = row.settings.required_organization ?? null
    if (organization !== null) {
      const membership = yield* get(`/user/memberships/orgs/${encodeURIComponent(organization)}`)
      if (membership.status !== 200 || (membership.body as { state?: unknown })?.state !== "active") {
        return yield* SsoErrors.notOrganizationMember()
      }
      const team = row.settings.required_team ?? null
      if (team !== null) {
        const teamMembership = yield* get(
          `/orgs/${encodeURIComponent(organization)}/teams/${encodeURIComponent(team)}/memberships/${encodeURIComponent(profile.login)}`
        )
        if (teamMembership.status !== 200 || (teamMembership.body as { state?: unknown })?.state !== "active") {
          return yield* SsoErrors.notTeamMember()
        }
      }
    }
    return {
      // GitHub's numeric id: logins can be renamed and then claimed by someone else.
      subject: String(profile.id),
      email: primary.email as string,
      preferredUsername: profile.login,
      name: str(profile.name),
      groups: []
    } satisfies VerifiedIdentity
  })

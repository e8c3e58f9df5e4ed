import { Conflict, Forbidden, Invalid, NotFound, Unauthenticated, Unavailable } from "../../schemas/Errors.ts"

/**
 * The SSO error messages. The first six are the specification's table, verbatim; the statuses are ours:
 * 400 for a bad or stale request, 401 when the provider's answer fails verification, 403 when a policy refuses an
 * authenticated identity, 404 for an unknown provider, 409 for an identity conflict, 503 when a provider cannot be
 * reached (the domain errors of those statuses, schemas/Errors.ts). docs/sso.md lists them all.
 */
const KINDS = { 400: Invalid, 401: Unauthenticated, 403: Forbidden, 404: NotFound, 409: Conflict, 503: Unavailable } as const

const make = <S extends keyof typeof KINDS>(status: S, id: string, message: string) => () =>
  new KINDS[status]({ id, message }) as InstanceType<(typeof KINDS)[S]>

export const SsoErrors = {
  invalidState: make(400, "api.sso.invalid_state", "Invalid or expired OAuth state"),
  discoveryFailed: make(503, "api.sso.discovery_failed", "OIDC discovery failed"),
  emailNotVerified: make(403, "api.sso.email_not_verified", "Email not verified"),
  noVerifiedEmail: make(403, "api.sso.no_verified_email", "No verified email found"),
  notOrganizationMember: make(403, "api.sso.not_org_member", "User is not a member of required GitHub organization"),
  domainNotAllowed: make(403, "api.sso.domain_not_allowed", "Email domain not allowed"),
  notTeamMember: make(403, "api.sso.not_team_member", "User is not a member of required GitHub team"),
  accessDenied: make(403, "api.sso.access_denied", "Sign-in was denied at the identity provider"),
  verificationFailed: make(401, "api.sso.verification_failed", "The identity provider's response could not be verified"),
  providerUnavailable: make(503, "api.sso.provider_unavailable", "The identity provider is unavailable; try again later"),
  unknownProvider: make(404, "api.sso.unknown_provider", "Unknown SSO provider"),
  ssoDisabled: make(403, "api.sso.disabled", "Single sign-on is disabled"),
  badRedirect: make(400, "api.sso.bad_redirect_uri", "redirect_uri must be a path inside this service"),
  noAccount: make(403, "api.sso.no_account", "No account exists for this email and automatic provisioning is disabled"),
  deactivated: make(403, "api.sso.deactivated", "This account has been deactivated"),
  identityConflict: make(409, "api.sso.identity_conflict", "This account is already linked to another identity at this provider"),
  invalidExchangeCode: make(400, "api.sso.invalid_exchange_code", "Invalid or expired exchange code")
} as const

import { Either, Schema } from "effect"
import { Int8, JsonArrayOf, JsonObjectOf } from "../../layers/Rows.ts"
import { isRole, type Role } from "./Roles.ts"

/**
 * An SSO provider configuration: its validation (pure, so that the rules are testable on their own), the stored row
 * and the wire shape of the admin API. Type-specific fields:
 * - oidc: groups_claim (default "groups"), role_mappings ({group: role}).
 * - webidp: allow_domains (list of email domains); issuer_url defaults to Google's public issuer.
 * - codehost: required_organization, required_team (a team slug within that organization), web_base_url and
 *   api_base_url (GitHub Enterprise layout: https://HOST and https://HOST/api/v3; default github.com).
 */
export const PROVIDER_TYPES = ["codehost", "webidp", "oidc"] as const
export type ProviderType = (typeof PROVIDER_TYPES)[number]

export const GOOGLE_ISSUER = "https://accounts.google.com"
export const GITHUB_WEB = "https://github.com"
export const GITHUB_API = "https://api.github.com"
export const DEFAULT_GROUPS_CLAIM = "groups"

/** The validated configuration, secret in plain text only while it travels to encryption. */
export interface ProviderDraft {
  readonly provider_key: string
  readonly provider_type: ProviderType
  readonly display_name: string
  readonly issuer_url: string | null
  readonly client_id: string
  /** Undefined on update when the secret is kept. */
  readonly client_secret: string | undefined
  readonly is_active: boolean
  readonly auto_provision: boolean
  readonly default_role: Role
  readonly groups_claim: string | null
  readonly role_mappings: Readonly<Record<string, Role>> | null
  readonly allow_domains: ReadonlyArray<string> | null
  readonly required_organization: string | null
  readonly required_team: string | null
  readonly web_base_url: string | null
  readonly api_base_url: string | null
}

/** A sso_providers row as PostgreSQL returns it. */
export const ProviderRow = Schema.Struct({
  id: Schema.String,
  provider_key: Schema.String,
  provider_type: Schema.Literal(...PROVIDER_TYPES),
  display_name: Schema.String,
  issuer_url: Schema.NullOr(Schema.String),
  client_id: Schema.String,
  client_secret_encrypted: Schema.String,
  is_active: Schema.Boolean,
  auto_provision: Schema.Boolean,
  default_role: Schema.String,
  groups_claim: Schema.NullOr(Schema.String),
  role_mappings: Schema.NullOr(JsonObjectOf<Record<string, string>>()),
  allow_domains: Schema.NullOr(JsonArrayOf<Array<string>>()),
  settings: JsonObjectOf<{
    readonly required_organization?: string | null
    readonly required_team?: string | null
    readonly web_base_url?: string | null
    readonly api_base_url?: string | null
  }>(),
  last_test_at: Schema.NullOr(Int8),
  last_test_success: Schema.Boolean,
  create_at: Int8,
  update_at: Int8
})
/** A sso_providers row (decoded with layers/Rows.ts in SsoDirectory.ts). */
export type ProviderRow = typeof ProviderRow.Type

export class FieldError {
  constructor(readonly field: string, readonly problem: string) {}
  get message() {
    return `${this.field}: ${this.problem}`
  }
}

/** Fields the admin API returns and accepts back unchanged (a client may PUT what it read); they are ignored. */
const READ_ONLY = new Set(["id", "client_secret_set", "callback_url", "last_test_at", "last_test_success", "create_at", "update_at", "warnings"])
const WRITABLE = new Set([
  "provider_key", "provider_type", "display_name", "issuer_url", "client_id", "client_secret", "is_active", "auto_provision",
  "default_role", "groups_claim", "role_mappings", "allow_domains", "required_organization", "required_team", "web_base_url",
  "api_base_url"
])

const ONLY_FOR: Record<string, ProviderType> = {
  groups_claim: "oidc",
  role_mappings: "oidc",
  allow_domains: "webidp",
  required_organization: "codehost",
  required_team: "codehost",
  web_base_url: "codehost",
  api_base_url: "codehost"
}

const KEY_PATTERN = /^[a-z0-9-]{1,64}$/
const DOMAIN_PATTERN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/
const ORG_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/
const TEAM_PATTERN = /^[A-Za-z0-9._-]{1,100}$/
const CLAIM_PATTERN = /^[A-Za-z0-9_.:-]{1,100}$/

export interface ValidationOptions {
  /** Whether http:// issuer and API URLs are accepted: outside production (with a warning), and by test providers. */
  readonly allowInsecureUrls: boolean
}

type Check<A> = Either.Either<A, FieldError>
const fail = (field: string, problem: string) => Either.left(new FieldError(field, problem))

const text = (field: string, value: unknown, max: number): Check<string> =>
  typeof value !== "string" || value.trim() === ""
    ? fail(field, "is required and must be a non-empty string")
    : value.length > max
    ? fail(field, `must be at most ${max} characters`)
    : Either.right(value.trim())

const bool = (field: string, value: unknown): Check<boolean> =>
  typeof value === "boolean" ? Either.right(value) : fail(field, "must be true or false")

const url = (field: string, value: unknown, options: ValidationOptions): Check<string> => {
  if (typeof value !== "string" || value.trim() === "") return fail(field, "is required and must be a URL")
  let parsed: URL
  try {
    parsed = new URL(value.trim())
  } catch {
    return fail(field, "must be an absolute URL")
  }
  if (parsed.protocol !== "https:" && !(parsed.protocol === "http:" && options.allowInsecureUrls)) {
    return fail(field, "must use https (plain http is accepted only when SERVICE_ENVIRONMENT is not production)")
  }
  if (parsed.username !== "" || parsed.password !== "" || parsed.search !== "" || parsed.hash !== "") {
    return fail(field, "must not carry credentials, a query or a fragment")
  }
  return Either.right(value.trim().replace(/\/+$/, ""))
}

const roleMappings = (value: unknown): Check<Record<string, Role>> => {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return fail("role_mappings", "must be an object mapping group names to roles")
  }
  const out: Record<string, Role> = Object.create(null)
  for (const [group, role] of Object.entries(value)) {
    if (group === "" || group.length > 256) return fail("role_mappings", "group names must have 1 to 256 characters")
    if (!isRole(role)) return fail(`role_mappings.${group}`, `must be one of system_admin, org_admin, team_admin, member, guest`)
    out[group] = role
  }
  return Either.right(out)
}

const domains = (value: unknown): Check<ReadonlyArray<string>> => {
  if (!Array.isArray(value)) return fail("allow_domains", "must be a list of email domains")
  const out: Array<string> = []
  for (const entry of value) {
    const domain = typeof entry === "string" ? entry.trim().toLowerCase() : ""
    if (!DOMAIN_PATTERN.test(domain)) return fail("allow_domains", `"${String(entry)}" is not a domain name`)
    if (!out.includes(domain)) out.push(domain)
  }
  return Either.right(out)
}

const optional = <A>(value: unknown, check: (v: unknown) => Check<A>): Check<A | null> =>
  value === null || value === undefined ? Either.right(null) : check(value)

/** The current configuration in the admin API's field names, for merging an update into. */
export const draftFields = (row: ProviderRow) => ({
  provider_key: row.provider_key,
  provider_type: row.provider_type,
  display_name: row.display_name,
  issuer_url: row.issuer_url,
  client_id: row.client_id,
  is_active: row.is_active,
  auto_provision: row.auto_provision,
  default_role: row.default_role,
  groups_claim: row.groups_claim,
  role_mappings: row.role_mappings,
  allow_domains: row.allow_domains,
  required_organization: row.settings.required_organization ?? null,
  required_team: row.settings.required_team ?? null,
  web_base_url: row.settings.web_base_url ?? null,
  api_base_url: row.settings.api_base_url ?? null
})

/**
 * Validates a create (no `existing`) or an update (`existing` = the stored row). Every failure names its field.
 * On update, provider_key is immutable; fields that no longer apply after a type change are dropped unless sent.
 */
export const validateProvider = (
  body: unknown,
  options: ValidationOptions,
  existing?: ProviderRow
): Either.Either<ProviderDraft, FieldError> =>
  Either.gen(function*() {
    if (body === null || typeof body !== "object" || Array.isArray(body)) {
      return yield* fail("body", "must be a JSON object")
    }
    const sent = body as Record<string, unknown>
    for (const field of Object.keys(sent)) {
      if (!WRITABLE.has(field) && !READ_ONLY.has(field)) return yield* fail(field, "is not a field of an SSO provider")
    }
    if (existing !== undefined && "provider_key" in sent && sent.provider_key !== existing.provider_key) {
      return yield* fail("provider_key", "cannot be changed after creation")
    }
    const input: Record<string, unknown> = existing === undefined ? { ...sent } : { ...draftFields(existing), ...sent }
    const providerType = input.provider_type
    if (typeof providerType !== "string" || !(PROVIDER_TYPES as ReadonlyArray<string>).includes(providerType)) {
      return yield* fail("provider_type", "must be one of codehost, webidp, oidc")
    }
    const type = providerType as ProviderType
    for (const [field, only] of Object.entries(ONLY_FOR)) {
      if (only === type) continue
      if (field in sent && sent[field] !== null) return yield* fail(field, `applies only to provider_type ${only}`)
      input[field] = null
    }
    if (type === "codehost" && !("issuer_url" in sent)) input.issuer_url = null

    const providerKey = input.provider_key
    if (typeof providerKey !== "string" || !KEY_PATTERN.test(providerKey)) {
      return yield* fail("provider_key", "is required: 1 to 64 lowercase letters, digits and hyphens")
    }
    const displayName = yield* text("display_name", input.display_name, 100)
    const issuerUrl = type === "codehost"
      ? yield* optional(input.issuer_url, () => fail("issuer_url", "applies only to provider_type webidp and oidc"))
      : type === "webidp"
      ? yield* url("issuer_url", input.issuer_url ?? GOOGLE_ISSUER, options)
      : yield* url("issuer_url", input.issuer_url, options)
    const clientId = yield* text("client_id", input.client_id, 512)
    const clientSecret = existing !== undefined && (input.client_secret === undefined || input.client_secret === null)
      ? undefined
      : yield* text("client_secret", input.client_secret, 1024)
    const isActive = yield* bool("is_active", input.is_active ?? false)
    const autoProvision = yield* bool("auto_provision", input.auto_provision ?? false)
    const defaultRole = input.default_role ?? "member"
    if (!isRole(defaultRole)) return yield* fail("default_role", "must be one of system_admin, org_admin, team_admin, member, guest")

    const groupsClaim = type === "oidc" ? input.groups_claim ?? DEFAULT_GROUPS_CLAIM : null
    if (groupsClaim !== null && (typeof groupsClaim !== "string" || !CLAIM_PATTERN.test(groupsClaim))) {
      return yield* fail("groups_claim", "must be a claim name (letters, digits, '_', '.', ':', '-')")
    }
    const mappings = yield* optional(input.role_mappings, roleMappings)
    const allowDomains = yield* optional(input.allow_domains, domains)
    const organization = yield* optional(input.required_organization, (v) =>
      typeof v === "string" && ORG_PATTERN.test(v) ? Either.right(v) : fail("required_organization", "must be an organization login"))
    const team = yield* optional(input.required_team, (v) =>
      typeof v === "string" && TEAM_PATTERN.test(v) ? Either.right(v) : fail("required_team", "must be a team slug"))
    if (team !== null && organization === null) return yield* fail("required_team", "needs required_organization")
    const webBase = type === "codehost" ? yield* url("web_base_url", input.web_base_url ?? GITHUB_WEB, options) : null
    const apiBase = type === "codehost" ? yield* url("api_base_url", input.api_base_url ?? GITHUB_API, options) : null

    return {
      provider_key: providerKey,
      provider_type: type,
      display_name: displayName,
      issuer_url: issuerUrl,
      client_id: clientId,
      client_secret: clientSecret,
      is_active: isActive,
      auto_provision: autoProvision,
      default_role: defaultRole,
      groups_claim: groupsClaim as string | null,
      role_mappings: mappings,
      allow_domains: allowDomains !== null && allowDomains.length > 0 ? allowDomains : null,
      required_organization: organization,
      required_team: team,
      web_base_url: webBase,
      api_base_url: apiBase
    } satisfies ProviderDraft
  })

/** Whether a change makes the last test result stale (it tested other endpoints or credentials). */
export const invalidatesTest = (before: ProviderRow, after: ProviderDraft) =>
  before.provider_type !== after.provider_type ||
  before.issuer_url !== after.issuer_url ||
  before.client_id !== after.client_id ||
  after.client_secret !== undefined ||
  (before.settings.web_base_url ?? null) !== after.web_base_url ||
  (before.settings.api_base_url ?? null) !== after.api_base_url

export const callbackUrl = (siteUrl: string, providerKey: string) => `${siteUrl}/api/v1/oauth2/${providerKey}/callback`

/** The admin API's view of a provider: never the secret, only whether one is set. */
export const toAdminWire = (row: ProviderRow, siteUrl: string) => ({
  id: row.id,
  ...draftFields(row),
  client_secret_set: row.client_secret_encrypted !== "",
  callback_url: callbackUrl(siteUrl, row.provider_key),
  last_test_at: row.last_test_at === null ? null : Number(row.last_test_at),
  last_test_success: row.last_test_success,
  create_at: Number(row.create_at),
  update_at: Number(row.update_at)
})

export const loginUrl = (siteUrl: string, providerKey: string) => `${siteUrl}/api/v1/oauth2/${providerKey}/login`

/** The public provider list item of the specification. */
export const toPublicWire = (row: ProviderRow, siteUrl: string) => ({
  id: row.id,
  provider_key: row.provider_key,
  provider_type: row.provider_type,
  display_name: row.display_name,
  login_url: loginUrl(siteUrl, row.provider_key)
})

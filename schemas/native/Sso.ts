import { Schema } from "effect"

/**
 * /api/v1/oauth2 (the public single sign-on flow) and /api/v1/admin/sso (provider configurations and the global
 * settings), docs/sso.md. Client secrets go in and never come out.
 */

const ProviderType = Schema.Literal("codehost", "webidp", "oidc")
const Role = Schema.Literal("system_admin", "org_admin", "team_admin", "member", "guest")
const Millis = Schema.Number.annotations({ description: "milliseconds since the epoch" })

export const ProviderKeyParams = Schema.Struct({ provider_key: Schema.String })
export const ProviderIdParams = Schema.Struct({ id: Schema.String.annotations({ description: "the provider's UUID" }) })

export const LoginQuery = Schema.Struct({
  redirect_uri: Schema.optional(Schema.String.annotations({ description: "where to go after sign-in (same origin, or the mobile app's scheme)" }))
})

/** An item of GET /api/v1/oauth2/providers: what a login page needs. */
export const PublicProvider = Schema.Struct({
  id: Schema.String,
  provider_key: Schema.String,
  provider_type: ProviderType,
  display_name: Schema.String,
  login_url: Schema.String
}).annotations({ identifier: "PublicProvider" })
export const PublicProviders = Schema.Array(PublicProvider)

export const ExchangeRequest = Schema.Struct({ code: Schema.String.annotations({ description: "the one-time code the flow put in /login?code=…" }) })

export const ExchangeResponse = Schema.Struct({
  token: Schema.String,
  csrf: Schema.String,
  user_id: Schema.String,
  expires_at: Millis,
  redirect_uri: Schema.String
}).annotations({ identifier: "SsoExchange", description: "The session; the same token is set as the session cookies and the Token header" })

/**
 * A provider configuration as administrators write it (POST creates, PUT changes the fields it names). The fields
 * are checked by src/sso/ProviderConfig.ts's validateProvider, whose errors name the field; read-only fields of
 * AdminProvider may be sent back unchanged and are ignored.
 */
export const ProviderInput = Schema.Struct({
  provider_key: Schema.optional(Schema.String.annotations({ description: "1 to 64 lowercase letters, digits and hyphens; required on create, immutable" })),
  provider_type: Schema.optional(ProviderType),
  display_name: Schema.optional(Schema.String),
  issuer_url: Schema.optional(Schema.NullOr(Schema.String)),
  client_id: Schema.optional(Schema.String),
  client_secret: Schema.optional(Schema.NullOr(Schema.String).annotations({ description: "required on create; absent or null keeps the stored one" })),
  is_active: Schema.optional(Schema.Boolean),
  auto_provision: Schema.optional(Schema.Boolean),
  default_role: Schema.optional(Role),
  groups_claim: Schema.optional(Schema.NullOr(Schema.String)),
  role_mappings: Schema.optional(Schema.NullOr(Schema.Record({ key: Schema.String, value: Role }))),
  allow_domains: Schema.optional(Schema.NullOr(Schema.Array(Schema.String))),
  required_organization: Schema.optional(Schema.NullOr(Schema.String)),
  required_team: Schema.optional(Schema.NullOr(Schema.String)),
  web_base_url: Schema.optional(Schema.NullOr(Schema.String)),
  api_base_url: Schema.optional(Schema.NullOr(Schema.String))
}).annotations({ identifier: "SsoProviderInput" })

/** A provider as the admin API shows it: never the secret, only whether one is set. */
export const AdminProvider = Schema.Struct({
  id: Schema.String,
  provider_key: Schema.String,
  provider_type: ProviderType,
  display_name: Schema.String,
  issuer_url: Schema.NullOr(Schema.String),
  client_id: Schema.String,
  is_active: Schema.Boolean,
  auto_provision: Schema.Boolean,
  default_role: Schema.String,
  groups_claim: Schema.NullOr(Schema.String),
  role_mappings: Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.String })),
  allow_domains: Schema.NullOr(Schema.Array(Schema.String)),
  required_organization: Schema.NullOr(Schema.String),
  required_team: Schema.NullOr(Schema.String),
  web_base_url: Schema.NullOr(Schema.String),
  api_base_url: Schema.NullOr(Schema.String),
  client_secret_set: Schema.Boolean,
  callback_url: Schema.String,
  last_test_at: Schema.NullOr(Millis),
  last_test_success: Schema.Boolean,
  create_at: Millis,
  update_at: Millis
}).annotations({ identifier: "SsoProvider" })
export const AdminProviders = Schema.Array(AdminProvider)

/** A provider just created or changed, with what the administrator should know (plain-http URLs, SSO off). */
export const SavedProvider = Schema.Struct({
  ...AdminProvider.fields,
  warnings: Schema.optional(Schema.Array(Schema.String))
}).annotations({ identifier: "SsoSavedProvider" })

export const ProviderTestResult = Schema.Struct({
  success: Schema.Boolean,
  message: Schema.String,
  details: Schema.Record({ key: Schema.String, value: Schema.Union(Schema.String, Schema.Number) })
}).annotations({ identifier: "SsoProviderTest" })

export const SsoSettings = Schema.Struct({
  enable_sso: Schema.Boolean,
  require_sso: Schema.Boolean
}).annotations({ identifier: "SsoSettings" })

/** PUT /api/v1/admin/sso/settings: the settings it names change; any other field is refused. */
export const SsoSettingsPatch = Schema.Struct({
  enable_sso: Schema.optional(Schema.Boolean),
  require_sso: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "SsoSettingsPatch" })

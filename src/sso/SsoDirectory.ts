import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { Crypto, type DecryptionError } from "../../layers/Crypto.ts"
import { Db, type DbError } from "../../layers/Db.ts"
import { Int8, rows } from "../../layers/Rows.ts"
import { type Conflict, conflict, type NotFound, notFound } from "../../schemas/Errors.ts"
import { invalidatesTest, type ProviderDraft, ProviderRow } from "./ProviderConfig.ts"

const Sections = rows("SsoDirectory settings", Schema.Struct({ value: Schema.Unknown }))
const Counts = rows("SsoDirectory tested providers", Schema.Struct({ n: Int8 }))
const Providers = rows("SsoDirectory providers", ProviderRow)

/**
 * The SSO provider configurations (sso_providers) and the global settings (server_config section 'sso', wire and
 * storage names `enable_sso` and `require_sso`). Every write takes the 'sso' settings row lock first, so that
 * "require_sso needs an active, tested provider" holds whatever the interleaving of admin requests.
 */
export interface SsoSettings {
  readonly enable_sso: boolean
  readonly require_sso: boolean
}

export interface SsoDirectoryService {
  readonly list: Effect.Effect<ReadonlyArray<ProviderRow>, DbError>
  /** Active providers in creation order: the public list, the login page, the mobile mapping. */
  readonly active: Effect.Effect<ReadonlyArray<ProviderRow>, DbError>
  readonly byId: (id: string) => Effect.Effect<Option.Option<ProviderRow>, DbError>
  readonly byKey: (key: string) => Effect.Effect<Option.Option<ProviderRow>, DbError>
  readonly create: (draft: ProviderDraft) => Effect.Effect<ProviderRow, DbError | NotFound | Conflict>
  readonly update: (id: string, draft: ProviderDraft) => Effect.Effect<ProviderRow, DbError | NotFound | Conflict>
  readonly remove: (id: string) => Effect.Effect<void, DbError | NotFound | Conflict>
  readonly recordTest: (id: string, success: boolean) => Effect.Effect<void, DbError>
  readonly clientSecret: (row: ProviderRow) => Effect.Effect<string, DecryptionError>
  readonly settings: Effect.Effect<SsoSettings, DbError>
  readonly updateSettings: (patch: Partial<SsoSettings>) => Effect.Effect<SsoSettings, DbError | NotFound | Conflict>
}

export class SsoDirectory extends Context.Tag("service/SsoDirectory")<SsoDirectory, SsoDirectoryService>() {}

const toSettings = (value: unknown): SsoSettings => {
  const v = (value ?? {}) as Record<string, unknown>
  return { enable_sso: v.enable_sso === true, require_sso: v.require_sso === true }
}

const requireSsoUnsatisfiable = () =>
  conflict(
    "api.sso.require_sso.no_tested_provider",
    "require_sso: at least one active provider must have passed its test while single sign-on is required"
  )

export const make = Effect.gen(function*() {
  const db = yield* Db
  const crypto = yield* Crypto
  const sql = db.sql

  const lockSettings = Effect.map(
    sql`SELECT value FROM server_config WHERE section = 'sso' FOR UPDATE`.pipe(Sections),
    (rows) => toSettings(rows[0]?.value)
  )
  const hasTestedActive = Effect.map(
    sql`SELECT count(*) AS n FROM sso_providers WHERE is_active AND last_test_success`.pipe(Counts),
    (rows) => Number(rows[0].n) > 0
  )
  /** Fails (rolling the transaction back) when SSO is required and no active provider has passed its test. */
  const keepRequireSsoSatisfiable = Effect.gen(function*() {
    const settings = yield* lockSettings
    if (settings.require_sso && !(yield* hasTestedActive)) return yield* requireSsoUnsatisfiable()
  })
  const settingsJson = (d: ProviderDraft) =>
    JSON.stringify({
      required_organization: d.required_organization,
      required_team: d.required_team,
      web_base_url: d.web_base_url,
      api_base_url: d.api_base_url
    })
  const jsonOrNull = (v: unknown) => (v === null ? null : JSON.stringify(v))
  const unknownProvider = () => notFound("api.sso.provider.not_found", "SSO provider not found.")
  const keyTaken = (key: string) => conflict("api.sso.provider.key_exists", `provider_key: "${key}" is already used by another provider`)

  const service: SsoDirectoryService = {
    list: db.read(sql`SELECT * FROM sso_providers ORDER BY create_at, id`.pipe(Providers)),
    active: db.read(sql`SELECT * FROM sso_providers WHERE is_active ORDER BY create_at, id`.pipe(Providers)),
    byId: (id) => Effect.map(db.read(sql`SELECT * FROM sso_providers WHERE id = ${id}`.pipe(Providers)), (r) => Option.fromNullable(r[0])),
    byKey: (key) =>
      Effect.map(db.read(sql`SELECT * FROM sso_providers WHERE provider_key = ${key}`.pipe(Providers)), (r) => Option.fromNullable(r[0])),
    create: (d) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const secret = yield* crypto.encrypt(d.client_secret ?? "")
        return yield* db.transaction(Effect.gen(function*() {
          yield* lockSettings
          const clash = yield* sql`SELECT 1 FROM sso_providers WHERE provider_key = ${d.provider_key}`
          if (clash.length > 0) return yield* keyTaken(d.provider_key)
          const rows = yield* sql`
            INSERT INTO sso_providers (id, provider_key, provider_type, display_name, issuer_url, client_id,
              client_secret_encrypted, is_active, auto_provision, default_role, groups_claim, role_mappings, allow_domains,
              settings, create_at, update_at)
            VALUES (${randomUUID()}, ${d.provider_key}, ${d.provider_type}, ${d.display_name}, ${d.issuer_url}, ${d.client_id},
              ${secret}, ${d.is_active}, ${d.auto_provision}, ${d.default_role}, ${d.groups_claim},
              ${jsonOrNull(d.role_mappings)}::jsonb, ${jsonOrNull(d.allow_domains)}::jsonb, ${settingsJson(d)}::jsonb, ${now}, ${now})
            RETURNING *`.pipe(Providers)
          return rows[0]
        }))
      }),
    update: (id, d) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const secret = d.client_secret === undefined ? undefined : yield* crypto.encrypt(d.client_secret)
        return yield* db.transaction(Effect.gen(function*() {
          yield* lockSettings
          const before = yield* sql`SELECT * FROM sso_providers WHERE id = ${id} FOR UPDATE`.pipe(Providers)
          if (before.length === 0) return yield* unknownProvider()
          const stale = invalidatesTest(before[0], d)
          const rows = yield* sql`
            UPDATE sso_providers SET provider_type = ${d.provider_type}, display_name = ${d.display_name},
              issuer_url = ${d.issuer_url}, client_id = ${d.client_id},
              client_secret_encrypted = ${secret ?? before[0].client_secret_encrypted},
              is_active = ${d.is_active}, auto_provision = ${d.auto_provision}, default_role = ${d.default_role},
              groups_claim = ${d.groups_claim}, role_mappings = ${jsonOrNull(d.role_mappings)}::jsonb,
              allow_domains = ${jsonOrNull(d.allow_domains)}::jsonb, settings = ${settingsJson(d)}::jsonb,
              last_test_success = ${stale ? false : before[0].last_test_success}, update_at = ${now}
            WHERE id = ${id} RETURNING *`.pipe(Providers)
          yield* keepRequireSsoSatisfiable
          return rows[0]
        }))
      }),
    remove: (id) =>
      db.transaction(Effect.gen(function*() {
        yield* lockSettings
        const rows = yield* sql`DELETE FROM sso_providers WHERE id = ${id} RETURNING id`
        if (rows.length === 0) return yield* unknownProvider()
        yield* keepRequireSsoSatisfiable
      })),
    recordTest: (id, success) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.asVoid(db.execute(sql`UPDATE sso_providers SET last_test_at = ${now}, last_test_success = ${success} WHERE id = ${id}`))),
    clientSecret: (row) => crypto.decrypt(row.client_secret_encrypted),
    settings: Effect.map(
      db.read(sql`SELECT value FROM server_config WHERE section = 'sso'`.pipe(Sections)),
      (rows) => toSettings(rows[0]?.value)
    ),
    updateSettings: (patch) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        return yield* db.transaction(Effect.gen(function*() {
          const current = yield* lockSettings
          const next: SsoSettings = { ...current, ...patch }
          if (next.require_sso && !next.enable_sso) {
            return yield* conflict("api.sso.require_sso.sso_disabled", "require_sso: single sign-on must be enabled (enable_sso) to be required")
          }
          if (next.require_sso && !(yield* hasTestedActive)) return yield* requireSsoUnsatisfiable()
          yield* sql`
            INSERT INTO server_config (section, value, update_at) VALUES ('sso', ${JSON.stringify(next)}::jsonb, ${now})
            ON CONFLICT (section) DO UPDATE SET value = server_config.value || EXCLUDED.value, update_at = EXCLUDED.update_at`
          return next
        }))
      })
  }
  return service
})

export const layer = Layer.effect(SsoDirectory, make)

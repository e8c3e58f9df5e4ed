import { Config, Effect, Option } from "effect"
import { Db, type DbError } from "../../layers/Db.ts"

/**
 * What client config and ping report about the runtime configuration record (server_config) and the PUSH_*
 * environment: whether pushes can be sent and which login options exist. Read per request: these are primary-key
 * lookups, and an administrator's change shows up at once on every node.
 */
const PUSH_FIELDS = [
  "push_android_project_id",
  "push_android_access_token",
  "push_ios_key_id",
  "push_ios_team_id",
  "push_ios_bundle_id",
  "push_ios_private_key"
] as const
type PushField = typeof PUSH_FIELDS[number]

const ANDROID: ReadonlyArray<PushField> = ["push_android_project_id", "push_android_access_token"]
const IOS: ReadonlyArray<PushField> = ["push_ios_key_id", "push_ios_team_id", "push_ios_bundle_id", "push_ios_private_key"]

const pushEnv = Effect.map(
  Effect.all(
    PUSH_FIELDS.map((field) =>
      Effect.map(Config.option(Config.string(field.toUpperCase())), (value) => [field, Option.getOrElse(value, () => "")] as const)
    )
  ),
  (entries) => Object.fromEntries(entries) as Record<PushField, string>
).pipe(Effect.orElseSucceed(() => ({}) as Record<PushField, string>))

const section = (name: string) =>
  Effect.flatMap(Db, (db) =>
    Effect.map(
      db.read(db.sql<{ value: Record<string, unknown> }>`SELECT value FROM server_config WHERE section = ${name}`),
      (rows) => rows[0]?.value ?? {}
    ))

const text = (value: unknown) => typeof value === "string" ? value.trim() : ""

/** True when Android or iOS push credentials are complete, from the configuration record or the environment. */
export const pushConfigured: Effect.Effect<boolean, DbError, Db> = Effect.gen(function*() {
  const stored = yield* section("push")
  const env = yield* pushEnv
  const value = (field: PushField) => text(stored[field]) !== "" ? text(stored[field]) : text(env[field])
  const complete = (fields: ReadonlyArray<PushField>) => fields.every((f) => value(f) !== "")
  return complete(ANDROID) || complete(IOS)
})

export interface LoginOptions {
  readonly passwordLogin: boolean
  readonly gitlab: boolean
  readonly google: boolean
  readonly openId: Option.Option<string>
}

/**
 * Password login stays on unless SSO is required. The three provider kinds map to the buttons the clients know:
 * the code host to GitLab, the web identity provider to Google, a generic OIDC provider to OpenID (labelled with
 * its display name).
 */
export const loginOptions: Effect.Effect<LoginOptions, DbError, Db> = Effect.gen(function*() {
  const db = yield* Db
  const sso = yield* section("sso")
  const enabled = sso.enable_sso === true
  const providers = enabled
    ? yield* db.read(db.sql<{ provider_type: string; display_name: string }>`
        SELECT provider_type, display_name FROM sso_providers WHERE is_active ORDER BY create_at`)
    : []
  const first = (type: string) => Option.fromNullable(providers.find((p) => p.provider_type === type))
  return {
    passwordLogin: !(enabled && sso.require_sso === true),
    gitlab: Option.isSome(first("codehost")),
    google: Option.isSome(first("webidp")),
    openId: Option.map(first("oidc"), (p) => p.display_name)
  }
})

/** The site section's display name, if an administrator set one. */
export const siteName: Effect.Effect<string, DbError, Db> = Effect.map(section("site"), (site) => text(site.site_name) || "Team Chat")

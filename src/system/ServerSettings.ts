import { Effect, Option } from "effect"
import { Db, type DbError } from "../../layers/Db.ts"
import { PushSettings } from "../push/PushSettings.ts"

/**
 * What client config and ping report about the runtime configuration: whether pushes can be sent (PushSettings:
 * the push section and the PUSH_* environment) and which login options exist (the sso section and providers).
 * Read per request: primary-key lookups, so an administrator's change shows up at once on every node.
 */
const section = (name: string) =>
  Effect.flatMap(Db, (db) =>
    Effect.map(
      db.read(db.sql<{ value: Record<string, unknown> }>`SELECT value FROM server_config WHERE section = ${name}`),
      (rows) => rows[0]?.value ?? {}
    ))

const text = (value: unknown) => typeof value === "string" ? value.trim() : ""

/** True when any push transport (proxy, Android, iOS) has complete credentials. */
export const pushConfigured: Effect.Effect<boolean, never, PushSettings> = Effect.flatMap(PushSettings, (settings) =>
  Effect.map(settings.current, (active) => Option.isSome(active.proxy) || Option.isSome(active.fcm) || Option.isSome(active.apns)))

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

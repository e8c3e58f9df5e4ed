import { Clock, Config, Context, Effect, Layer, Option, Schema } from "effect"
import { createPrivateKey } from "node:crypto"
import { Crypto } from "../../layers/Crypto.ts"
import { Db, type DbError } from "../../layers/Db.ts"
import { JsonObject, rows } from "../../layers/Rows.ts"
import type { ApnsCredentials, FcmCredentials, ProxyCredentials, ServiceAccount } from "../../layers/PushSender.ts"
import { type Invalid, invalid } from "../../schemas/Errors.ts"
import { ALL_FIELDS, PRIVATE_FIELDS, type PushField, type SettingsPatch, type SettingsView } from "../../schemas/native/Push.ts"

const Sections = rows("PushSettings section", Schema.Struct({ value: JsonObject }))

/**
 * Push credentials: the `push` section of the server configuration record (administrators edit it through
 * /api/v1/admin/push) with the PUSH_* environment variables as fallbacks. Private values are stored encrypted with
 * Crypto and are never returned. The spec's six fields keep their names; the rest are this service's additions.
 */

// The fields and the admin API's wire types are the schemas of schemas/native/Push.ts, re-exported for the service.
export { PRIVATE_FIELDS, type PushField, PUBLIC_FIELDS, SettingsPatch, SettingsView } from "../../schemas/native/Push.ts"
const isPrivate = (field: PushField) => (PRIVATE_FIELDS as ReadonlyArray<string>).includes(field)

export const DEFAULT_FCM_BASE_URL = "https://fcm.googleapis.com"
export const DEFAULT_APNS_BASE_URL = "https://api.push.apple.com"
const DEFAULT_TOKEN_URI = "https://oauth2.googleapis.com/token"

/** The transports that have complete credentials right now. */
export interface ActiveCredentials {
  readonly proxy: Option.Option<ProxyCredentials>
  readonly fcm: Option.Option<FcmCredentials>
  readonly apns: Option.Option<ApnsCredentials>
}

export const noCredentials: ActiveCredentials = { proxy: Option.none(), fcm: Option.none(), apns: Option.none() }

export interface PushSettingsService {
  /** Complete credentials per transport; cached for a few seconds, so other nodes see a change within that time. */
  readonly current: Effect.Effect<ActiveCredentials>
  /**
   * True when the cached credentials (still fresh) enable no transport; false when some do or nothing fresh is
   * cached. Outside any effect, so that a post is not even queued for a decision that `current` would refuse.
   */
  readonly offNow: () => boolean
  readonly view: Effect.Effect<SettingsView, DbError>
  readonly update: (patch: SettingsPatch) => Effect.Effect<SettingsView, DbError | Invalid>
}

export class PushSettings extends Context.Tag("service/PushSettings")<PushSettings, PushSettingsService>() {}

const CACHE_MS = 5_000

const text = (value: string | undefined) => (value ?? "").trim()

const ServiceAccountJson = Schema.parseJson(Schema.Struct({
  client_email: Schema.String,
  private_key: Schema.String,
  token_uri: Schema.optionalWith(Schema.String, { default: () => DEFAULT_TOKEN_URI }),
  project_id: Schema.optional(Schema.String)
}))

const isHttpUrl = (raw: string) => {
  try {
    return ["http:", "https:"].includes(new URL(raw).protocol)
  } catch {
    return false
  }
}

/** Which credentials are complete, from plain values (stored ones decrypted, environment as fallback). */
export const resolve = (values: Record<PushField, string>): ActiveCredentials => {
  const proxyUrl = text(values.push_proxy_url)
  const account = Option.getRight(Schema.decodeUnknownEither(ServiceAccountJson)(values.push_android_service_account_key || "null"))
  const projectId = text(values.push_android_project_id) || Option.getOrElse(Option.flatMap(account, (a) => Option.fromNullable(a.project_id)), () => "")
  const accessToken = text(values.push_android_access_token)
  const ios = {
    keyId: text(values.push_ios_key_id),
    teamId: text(values.push_ios_team_id),
    bundleId: text(values.push_ios_bundle_id),
    privateKey: text(values.push_ios_private_key)
  }
  return {
    proxy: proxyUrl !== "" ? Option.some({ transport: "proxy", url: proxyUrl }) : Option.none(),
    fcm: projectId !== "" && (accessToken !== "" || Option.isSome(account))
      ? Option.some({
        transport: "fcm",
        projectId,
        baseUrl: text(values.push_fcm_base_url) || DEFAULT_FCM_BASE_URL,
        accessToken: accessToken !== "" ? Option.some(accessToken) : Option.none(),
        serviceAccount: Option.map(account, (a): ServiceAccount => ({ client_email: a.client_email, private_key: a.private_key, token_uri: a.token_uri }))
      })
      : Option.none(),
    apns: Object.values(ios).every((v) => v !== "")
      ? Option.some({
        transport: "apns",
        ...ios,
        baseUrl: text(values.push_apns_base_url) || DEFAULT_APNS_BASE_URL,
        ca: text(values.push_apns_ca_cert) !== "" ? Option.some(values.push_apns_ca_cert) : Option.none()
      })
      : Option.none()
  }
}

const transportsOf = (active: ActiveCredentials) =>
  [active.proxy, active.fcm, active.apns].flatMap((c: Option.Option<{ readonly transport: string }>) =>
    Option.isSome(c) ? [c.value.transport] : [])

/** Rejects values that could never work, so that a typo shows at once rather than as failed pushes. */
const validate = (field: PushField, value: string): Effect.Effect<void, Invalid> => {
  const refuse = (why: string) => invalid("api.admin.push.invalid_setting.app_error", `${field}: ${why}`)
  if ((field === "push_proxy_url" || field === "push_fcm_base_url" || field === "push_apns_base_url") && !isHttpUrl(value)) {
    return Effect.fail(refuse("must be an absolute http(s) URL"))
  }
  if (field === "push_android_service_account_key") {
    const account = Schema.decodeUnknownOption(ServiceAccountJson)(value)
    if (Option.isNone(account)) return Effect.fail(refuse("must be a service-account JSON key with client_email and private_key"))
    if (!isHttpUrl(account.value.token_uri)) return Effect.fail(refuse("token_uri must be an absolute http(s) URL"))
    return parsesAsKey(account.value.private_key) ? Effect.void : Effect.fail(refuse("private_key is not a PEM private key"))
  }
  if (field === "push_ios_private_key" && !parsesAsKey(value)) return Effect.fail(refuse("must be the .p8 key in PEM form"))
  return Effect.void
}

const parsesAsKey = (pem: string) => {
  try {
    createPrivateKey(pem)
    return true
  } catch {
    return false
  }
}

export const make = Effect.gen(function*() {
  const db = yield* Db
  const crypto = yield* Crypto
  const sql = db.sql
  const env = yield* Effect.all(
    ALL_FIELDS.map((field) => Effect.map(Config.option(Config.string(field.toUpperCase())), (value) => [field, Option.getOrElse(value, () => "")] as const))
  ).pipe(Effect.map((entries) => Object.fromEntries(entries) as Record<PushField, string>), Effect.orElseSucceed(() => ({}) as Record<PushField, string>))
  // Plain state (one node's memory, read and written only by synchronous steps), so that `offNow` can read it too.
  let cache = Option.none<{ readonly at: number; readonly value: ActiveCredentials }>()
  const clock = yield* Effect.clock

  const stored = Effect.map(
    db.read(sql`SELECT value FROM server_config WHERE section = 'push'`.pipe(Sections)),
    (rows) => rows[0]?.value ?? {}
  )

  /** Stored values decrypted; a value that no longer decrypts (the key changed) counts as unset and is logged. */
  const storedPlain = Effect.flatMap(stored, (record) =>
    Effect.forEach(ALL_FIELDS, (field) => {
      const raw = typeof record[field] === "string" ? (record[field] as string) : ""
      if (raw === "" || !isPrivate(field)) return Effect.succeed([field, raw] as const)
      return crypto.decrypt(raw).pipe(
        Effect.map((plain) => [field, plain] as const),
        Effect.catchAll(() => Effect.as(Effect.logError("a stored push secret cannot be decrypted").pipe(Effect.annotateLogs({ field })), [field, ""] as const))
      )
    }).pipe(Effect.map((entries) => Object.fromEntries(entries) as Record<PushField, string>)))

  const effective = Effect.map(storedPlain, (plain) => {
    const values = {} as Record<PushField, string>
    const fromEnv: Array<PushField> = []
    for (const field of ALL_FIELDS) {
      const own = text(plain[field])
      values[field] = own !== "" ? plain[field] : env[field] ?? ""
      if (own === "" && text(env[field]) !== "") fromEnv.push(field)
    }
    return { values, fromEnv }
  })

  const view = Effect.map(effective, ({ values, fromEnv }): SettingsView => {
    const out = {} as Record<PushField, string | null>
    for (const field of ALL_FIELDS) {
      const value = text(values[field])
      out[field] = value === "" ? null : isPrivate(field) ? "set" : values[field]
    }
    return { ...out, enabled_transports: transportsOf(resolve(values)), from_environment: fromEnv }
  })

  const service: PushSettingsService = {
    current: Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const cached = cache
      if (Option.isSome(cached) && now - cached.value.at < CACHE_MS) return cached.value.value
      const value = resolve((yield* effective).values)
      cache = Option.some({ at: now, value })
      return value
    }).pipe(
      Effect.catchAll((error) => Effect.as(Effect.logError("push settings unreadable; pushes are off until they are", error), noCredentials))
    ),
    offNow: () => {
      const cached = cache
      if (Option.isNone(cached) || clock.unsafeCurrentTimeMillis() - cached.value.at >= CACHE_MS) return false
      const { proxy, fcm, apns } = cached.value.value
      return Option.isNone(proxy) && Option.isNone(fcm) && Option.isNone(apns)
    },
    view,
    update: (patch) =>
      Effect.gen(function*() {
        const set: Record<string, string> = {}
        const removed: Array<string> = []
        for (const field of ALL_FIELDS) {
          const value = patch[field]
          if (value === undefined || (isPrivate(field) && value === "set")) continue
          if (value === null || value.trim() === "") {
            removed.push(field)
            continue
          }
          yield* validate(field, value.trim())
          set[field] = isPrivate(field) ? yield* crypto.encrypt(value.trim()) : value.trim()
        }
        const now = yield* Clock.currentTimeMillis
        // One statement, so that two administrators saving different fields at once both keep their change.
        yield* db.execute(sql`
          INSERT INTO server_config (section, value, update_at) VALUES ('push', ${JSON.stringify(set)}::jsonb, ${now})
          ON CONFLICT (section) DO UPDATE
            SET value = (server_config.value || EXCLUDED.value) - ${removed}::text[], update_at = EXCLUDED.update_at`)
        cache = Option.none()
        return yield* view
      })
  }
  return service
})

export const layer = Layer.effect(PushSettings, make)

import { Context, Effect, Layer, Schedule, Schema, Stream } from "effect"
import { Db, type DbError } from "../../layers/Db.ts"
import { PubSub } from "../../layers/PubSub.ts"
import { JsonObject, rows } from "../../layers/Rows.ts"

/**
 * The System Console settings the server consults on hot paths or in many places (password rules, second factor,
 * session lengths and idle timeout, sign-up domains, push contents, custom emoji), parsed from the `site` section of
 * server_config into one immutable snapshot held in each node's memory, the way RoleStore holds the roles: every
 * request reads it without a query (the MFA and idle-timeout checks run on every authenticated request). A write
 * through PUT /config reloads this node's copy and announces the change on TOPIC, and every other node reloads as the
 * announcement arrives; a node whose subscription broke reloads too, and every node reloads every RELOAD_EVERY as a
 * bound should an announcement be lost.
 */
export const TOPIC = "service:settings-changed"
const RELOAD_EVERY = "60 seconds"

/** Mattermost's PasswordSettings; the bounds of MinimumLength are Mattermost's PasswordMinimumLength/MaximumLength. */
export interface PasswordRules {
  readonly minimumLength: number
  readonly lowercase: boolean
  readonly uppercase: boolean
  readonly number: boolean
  readonly symbol: boolean
}
export const PASSWORD_LENGTH_BOUNDS = { min: 5, max: 72 } as const

/** Mattermost's EmailSettings.PushNotificationContents values. */
export const PUSH_CONTENTS = ["generic_no_channel", "generic", "full", "id_loaded"] as const
export type PushContents = (typeof PUSH_CONTENTS)[number]

const HOUR_MS = 3_600_000
const MINUTE_MS = 60_000

export interface RuntimeSnapshot {
  readonly password: PasswordRules
  /** ServiceSettings.EnableMultifactorAuthentication: people may set up a second factor (on by default here). */
  readonly enableMfa: boolean
  /** ServiceSettings.EnforceMultifactorAuthentication, honoured only while MFA is enabled (as in Mattermost). */
  readonly enforceMfa: boolean
  /** Session lengths in hours as configured (Mattermost's defaults: 720, 4320, 720). */
  readonly sessionHours: { readonly web: number; readonly mobile: number; readonly sso: number }
  /** ServiceSettings.SessionIdleTimeoutInMinutes; 0 is off (this server does not extend sessions with activity). */
  readonly idleTimeoutMinutes: number
  /** TeamSettings.RestrictCreationToDomains as written: domains separated by commas or spaces, empty for any. */
  readonly restrictCreationToDomains: string
  readonly pushContents: PushContents
  /** EmailSettings.SendPushNotifications as switched; pushes also need a configured transport (PushSettings). */
  readonly sendPushNotifications: boolean
  readonly enableCustomEmoji: boolean
  readonly enableGifPicker: boolean
}

export const DEFAULTS: RuntimeSnapshot = {
  password: { minimumLength: 8, lowercase: false, uppercase: false, number: false, symbol: false },
  enableMfa: true,
  enforceMfa: false,
  sessionHours: { web: 720, mobile: 4320, sso: 720 },
  idleTimeoutMinutes: 0,
  restrictCreationToDomains: "",
  pushContents: "full",
  sendPushNotifications: true,
  enableCustomEmoji: true,
  enableGifPicker: false
}

/** Milliseconds of the snapshot's lengths, for the code that creates and checks sessions. */
export const sessionLengthsMs = (s: RuntimeSnapshot) => ({
  web: s.sessionHours.web * HOUR_MS,
  mobile: s.sessionHours.mobile * HOUR_MS,
  sso: s.sessionHours.sso * HOUR_MS,
  idle: s.idleTimeoutMinutes * MINUTE_MS
})

/** The `site` section's keys of these settings (what ConfigUpdate writes). */
export const KEYS = {
  passwordMinimumLength: "password_minimum_length",
  passwordLowercase: "password_lowercase",
  passwordUppercase: "password_uppercase",
  passwordNumber: "password_number",
  passwordSymbol: "password_symbol",
  enableMfa: "enable_mfa",
  enforceMfa: "enforce_mfa",
  sessionHoursWeb: "session_length_web_hours",
  sessionHoursMobile: "session_length_mobile_hours",
  sessionHoursSso: "session_length_sso_hours",
  idleTimeoutMinutes: "session_idle_timeout_minutes",
  restrictCreationToDomains: "restrict_creation_to_domains",
  pushContents: "push_notification_contents",
  sendPushNotifications: "send_push_notifications",
  enableCustomEmoji: "enable_custom_emoji",
  enableGifPicker: "enable_gif_picker"
} as const

const wholeAtLeast = (value: unknown, min: number, fallback: number) =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= min ? value : fallback
const bool = (value: unknown, fallback: boolean) => typeof value === "boolean" ? value : fallback

export const parse = (site: Record<string, unknown>): RuntimeSnapshot => {
  const min = wholeAtLeast(site[KEYS.passwordMinimumLength], PASSWORD_LENGTH_BOUNDS.min, DEFAULTS.password.minimumLength)
  return {
    password: {
      minimumLength: Math.min(min, PASSWORD_LENGTH_BOUNDS.max),
      lowercase: bool(site[KEYS.passwordLowercase], false),
      uppercase: bool(site[KEYS.passwordUppercase], false),
      number: bool(site[KEYS.passwordNumber], false),
      symbol: bool(site[KEYS.passwordSymbol], false)
    },
    enableMfa: bool(site[KEYS.enableMfa], DEFAULTS.enableMfa),
    enforceMfa: bool(site[KEYS.enforceMfa], DEFAULTS.enforceMfa),
    sessionHours: {
      web: wholeAtLeast(site[KEYS.sessionHoursWeb], 1, DEFAULTS.sessionHours.web),
      mobile: wholeAtLeast(site[KEYS.sessionHoursMobile], 1, DEFAULTS.sessionHours.mobile),
      sso: wholeAtLeast(site[KEYS.sessionHoursSso], 1, DEFAULTS.sessionHours.sso)
    },
    idleTimeoutMinutes: wholeAtLeast(site[KEYS.idleTimeoutMinutes], 0, 0),
    restrictCreationToDomains: typeof site[KEYS.restrictCreationToDomains] === "string" ? site[KEYS.restrictCreationToDomains] as string : "",
    pushContents: PUSH_CONTENTS.find((c) => c === site[KEYS.pushContents]) ?? DEFAULTS.pushContents,
    sendPushNotifications: bool(site[KEYS.sendPushNotifications], DEFAULTS.sendPushNotifications),
    enableCustomEmoji: bool(site[KEYS.enableCustomEmoji], DEFAULTS.enableCustomEmoji),
    enableGifPicker: bool(site[KEYS.enableGifPicker], DEFAULTS.enableGifPicker)
  }
}

export interface RuntimeSettingsService {
  readonly current: () => RuntimeSnapshot
  /** After a write of the `site` section: this node reloads now, the others when the announcement reaches them. */
  readonly changed: Effect.Effect<void, DbError>
}

export class RuntimeSettings extends Context.Tag("service/RuntimeSettings")<RuntimeSettings, RuntimeSettingsService>() {}

const Sections = rows("RuntimeSettings section", Schema.Struct({ value: JsonObject }))

/** This node's snapshot, for code that runs as an effect. */
export const runtimeSettings: Effect.Effect<RuntimeSnapshot, never, RuntimeSettings> = Effect.map(RuntimeSettings, (s) => s.current())

export const layer = Layer.scoped(
  RuntimeSettings,
  Effect.gen(function*() {
    const db = yield* Db
    const pubsub = yield* PubSub
    const load = Effect.map(
      db.read(db.sql`SELECT value FROM server_config WHERE section = 'site'`.pipe(Sections)),
      (found) => parse(found[0]?.value ?? {})
    )
    let snapshot = yield* load
    // One reload at a time, so that a reload started before a change cannot finish after one started later.
    const lock = yield* Effect.makeSemaphore(1)
    const reload = lock.withPermits(1)(Effect.map(load, (next) => void (snapshot = next)))
    const reloadLogged = reload.pipe(Effect.catchAll((e) => Effect.logWarning("settings: reload failed; the previous copy stays", e)))

    yield* Effect.forkScoped(Stream.runForEach(pubsub.subscribe(TOPIC), () => reloadLogged))
    yield* Effect.forkScoped(Stream.runForEach(pubsub.gaps, () => reloadLogged))
    yield* Effect.forkScoped(Effect.repeat(reloadLogged, Schedule.spaced(RELOAD_EVERY)))

    return {
      current: () => snapshot,
      changed: Effect.zipRight(
        reload,
        pubsub.publish(TOPIC, "site").pipe(
          Effect.catchAll((e) => Effect.logWarning("settings: other nodes not told of a change; they reload within a minute", e))
        )
      )
    }
  })
)

import { Clock, Effect, Option } from "effect"
import { Db } from "../../layers/Db.ts"
import { invalid } from "../../schemas/Errors.ts"
import { SWITCHES } from "../integrations/IntegrationSettings.ts"
import { PushSettings } from "../push/PushSettings.ts"
import { SsoDirectory } from "../sso/SsoDirectory.ts"
import { type ConfigDocument, FROM_ENVIRONMENT, MASK } from "./ConfigDocument.ts"
import { KEYS, PASSWORD_LENGTH_BOUNDS, PUSH_CONTENTS, RuntimeSettings } from "./RuntimeSettings.ts"
import { NAME_DISPLAYS } from "./ServerSettings.ts"

/**
 * PUT /config and PUT /config/patch: the System Console saves the whole document it read with its page's fields
 * changed. Each changed setting is applied if the service can change it while running, and the request is refused
 * (400, nothing applied) if any other setting changed, naming them: what the service cannot do is never pretended.
 * Settings this document does not have are accepted only as empty values (the console fills a page's fields in).
 * The three SSO `Enable` switches share the service's one SSO switch (`enable_sso`): turning any on turns it on.
 */

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }

const isObject = (v: unknown): v is Record<string, Json> => typeof v === "object" && v !== null && !Array.isArray(v)

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

const isEmpty = (v: unknown) => v === null || v === "" || v === false || v === 0 || (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0)

/** The leaves (`Section.Setting`, arrays as values) of `incoming` that differ from `current`. */
export const changedSettings = (current: unknown, incoming: unknown, path: Array<string> = []): Array<{ path: string; value: unknown; known: boolean }> => {
  if (isObject(incoming) && (isObject(current) || current === undefined)) {
    return Object.entries(incoming).flatMap(([key, value]) => changedSettings(isObject(current) ? current[key] : undefined, value, [...path, key]))
  }
  if (current === undefined) return isEmpty(incoming) ? [] : [{ path: path.join("."), value: incoming, known: false }]
  if (same(current, incoming) || (current === MASK && incoming === MASK)) return []
  return [{ path: path.join("."), value: incoming, known: true }]
}

interface Writes {
  site: Record<string, string | boolean | number>
  files: Record<string, number | boolean>
  integrations: Record<string, boolean>
  pushProxy?: string | null
  enableSso?: boolean
}

const bool = (path: string, value: unknown) =>
  typeof value === "boolean" ? Effect.succeed(value) : Effect.fail(invalid("api.config.update.invalid_value.app_error", `${path} must be true or false.`))

const SITE_NAME_MAX = 30
/** The login page's texts (Markdown): Mattermost does not bound them; this server keeps them to a page. */
const BRAND_TEXT_MAX = 4000

const brandText = (path: string, value: unknown, write: (text: string) => void) => {
  if (typeof value !== "string" || [...value].length > BRAND_TEXT_MAX) {
    return Effect.fail(invalid("api.config.update.invalid_value.app_error", `${path} must be text of at most ${BRAND_TEXT_MAX} characters.`))
  }
  write(value)
  return Effect.void
}

/** A limit of the site section (ServerSettings.accountLimits): a whole number above 0, as Mattermost validates it. */
const limit = (value: unknown, writes: Writes, key: string, id: string, message: string) => {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value <= 0) return Effect.fail(invalid(id, message))
  writes.site[key] = value
  return Effect.void
}

const siteSwitch = (path: string, key: string, value: unknown, writes: Writes) =>
  Effect.map(bool(path, value), (b) => void (writes.site[key] = b))

/** A session length can be a year and a half at most: a cap this server sets, Mattermost sets none. */
const HOURS_MAX = 24 * 548
const IDLE_MINUTES_MIN = 5
const DOMAINS_MAX = 1000

const hours = (path: string, key: string, value: unknown, writes: Writes) => {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1 || value > HOURS_MAX) {
    return Effect.fail(invalid("api.config.update.invalid_value.app_error", `${path} must be a whole number of hours from 1 to ${HOURS_MAX}.`))
  }
  writes.site[key] = value
  return Effect.void
}

/** How each setting the service can change at run time is validated and where it is written. */
const WRITABLE: Record<string, (value: unknown, writes: Writes, doc: ConfigDocument) => Effect.Effect<void, ReturnType<typeof invalid>>> = {
  "TeamSettings.SiteName": (value, writes) => {
    const name = typeof value === "string" ? value.trim() : ""
    if (name === "" || [...name].length > SITE_NAME_MAX) {
      return Effect.fail(invalid("model.config.is_valid.sitename_length.app_error", `TeamSettings.SiteName must be between 1 and ${SITE_NAME_MAX} characters.`))
    }
    writes.site.site_name = name
    return Effect.void
  },
  "TeamSettings.EnableCustomBrand": (value, writes) => Effect.map(bool("TeamSettings.EnableCustomBrand", value), (b) => void (writes.site.enable_custom_brand = b)),
  "TeamSettings.CustomBrandText": (value, writes) => brandText("TeamSettings.CustomBrandText", value, (text) => void (writes.site.custom_brand_text = text)),
  "TeamSettings.CustomDescriptionText": (value, writes) => brandText("TeamSettings.CustomDescriptionText", value, (text) => void (writes.site.custom_description_text = text)),
  "ServiceSettings.MaximumLoginAttempts": (value, writes) =>
    limit(value, writes, "maximum_login_attempts", "model.config.is_valid.login_attempts.app_error", "ServiceSettings.MaximumLoginAttempts must be a whole number above 0."),
  "TeamSettings.MaxUsersPerTeam": (value, writes) =>
    limit(value, writes, "max_users_per_team", "model.config.is_valid.max_users.app_error", "TeamSettings.MaxUsersPerTeam must be a whole number above 0."),
  "TeamSettings.MaxChannelsPerTeam": (value, writes) =>
    limit(value, writes, "max_channels_per_team", "model.config.is_valid.max_channels.app_error", "TeamSettings.MaxChannelsPerTeam must be a whole number above 0."),
  "TeamSettings.TeammateNameDisplay": (value, writes) => {
    if (!NAME_DISPLAYS.some((d) => d === value)) {
      return Effect.fail(invalid("model.config.is_valid.teammate_name_display.app_error", "TeamSettings.TeammateNameDisplay must be username, nickname_full_name or full_name."))
    }
    writes.site.teammate_name_display = value as string
    return Effect.void
  },
  "TeamSettings.LockTeammateNameDisplay": (value, writes) =>
    Effect.map(bool("TeamSettings.LockTeammateNameDisplay", value), (b) => void (writes.site.lock_teammate_name_display = b)),
  "TeamSettings.EnableUserCreation": (value, writes) => Effect.map(bool("TeamSettings.EnableUserCreation", value), (b) => void (writes.site.enable_user_creation = b)),
  "TeamSettings.EnableOpenServer": (value, writes) => Effect.map(bool("TeamSettings.EnableOpenServer", value), (b) => void (writes.site.enable_open_server = b)),
  "TeamSettings.EnableTeamCreation": (value, writes) => Effect.map(bool("TeamSettings.EnableTeamCreation", value), (b) => void (writes.site.enable_team_creation = b)),
  "ServiceSettings.PostPriority": (value, writes) => Effect.map(bool("ServiceSettings.PostPriority", value), (b) => void (writes.site.post_priority = b)),
  "ServiceSettings.EnableLinkPreviews": (value, writes) =>
    Effect.map(bool("ServiceSettings.EnableLinkPreviews", value), (b) => void (writes.site.enable_link_previews = b)),
  "ServiceSettings.ExperimentalEnableDefaultChannelLeaveJoinMessages": (value, writes) =>
    Effect.map(bool("ServiceSettings.ExperimentalEnableDefaultChannelLeaveJoinMessages", value), (b) => void (writes.site.default_channel_leave_join_messages = b)),
  "FileSettings.MaxFileSize": (value, writes) => {
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value <= 0) {
      return Effect.fail(invalid("model.config.is_valid.max_file_size.app_error", "FileSettings.MaxFileSize must be a positive whole number of bytes."))
    }
    writes.files.max_file_size = value
    return Effect.void
  },
  "FileSettings.EnablePublicLink": (value, writes) => Effect.map(bool("FileSettings.EnablePublicLink", value), (b) => void (writes.files.enable_public_link = b)),
  "EmailSettings.PushNotificationServer": (value, writes) => {
    if (typeof value !== "string" || (value.trim() !== "" && !/^https?:\/\/[^\s]+$/.test(value.trim()))) {
      return Effect.fail(invalid("model.config.is_valid.email_push_server.app_error", "EmailSettings.PushNotificationServer must be an http(s) URL or empty."))
    }
    writes.pushProxy = value.trim() === "" ? null : value.trim()
    return Effect.void
  },
  // A switch of its own, as in Mattermost: turning it off keeps the push server and credentials (Push.ts then sends
  // nothing); turning it on needs a transport, checked in applyConfig once the document's push server is known.
  "EmailSettings.SendPushNotifications": (value, writes) => siteSwitch("EmailSettings.SendPushNotifications", KEYS.sendPushNotifications, value, writes),
  "EmailSettings.PushNotificationContents": (value, writes) => {
    if (!PUSH_CONTENTS.some((c) => c === value)) {
      return Effect.fail(invalid("api.config.update.invalid_value.app_error", `EmailSettings.PushNotificationContents must be one of ${PUSH_CONTENTS.join(", ")}.`))
    }
    writes.site[KEYS.pushContents] = value as string
    return Effect.void
  },
  "PasswordSettings.MinimumLength": (value, writes) => {
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < PASSWORD_LENGTH_BOUNDS.min || value > PASSWORD_LENGTH_BOUNDS.max) {
      return Effect.fail(invalid("model.config.is_valid.password_length.app_error", `PasswordSettings.MinimumLength must be between ${PASSWORD_LENGTH_BOUNDS.min} and ${PASSWORD_LENGTH_BOUNDS.max}.`))
    }
    writes.site[KEYS.passwordMinimumLength] = value
    return Effect.void
  },
  "PasswordSettings.Lowercase": (value, writes) => siteSwitch("PasswordSettings.Lowercase", KEYS.passwordLowercase, value, writes),
  "PasswordSettings.Uppercase": (value, writes) => siteSwitch("PasswordSettings.Uppercase", KEYS.passwordUppercase, value, writes),
  "PasswordSettings.Number": (value, writes) => siteSwitch("PasswordSettings.Number", KEYS.passwordNumber, value, writes),
  "PasswordSettings.Symbol": (value, writes) => siteSwitch("PasswordSettings.Symbol", KEYS.passwordSymbol, value, writes),
  "ServiceSettings.EnableMultifactorAuthentication": (value, writes) =>
    siteSwitch("ServiceSettings.EnableMultifactorAuthentication", KEYS.enableMfa, value, writes),
  "ServiceSettings.EnforceMultifactorAuthentication": (value, writes) =>
    siteSwitch("ServiceSettings.EnforceMultifactorAuthentication", KEYS.enforceMfa, value, writes),
  "ServiceSettings.SessionLengthWebInHours": (value, writes) => hours("ServiceSettings.SessionLengthWebInHours", KEYS.sessionHoursWeb, value, writes),
  "ServiceSettings.SessionLengthMobileInHours": (value, writes) => hours("ServiceSettings.SessionLengthMobileInHours", KEYS.sessionHoursMobile, value, writes),
  "ServiceSettings.SessionLengthSSOInHours": (value, writes) => hours("ServiceSettings.SessionLengthSSOInHours", KEYS.sessionHoursSso, value, writes),
  "ServiceSettings.SessionIdleTimeoutInMinutes": (value, writes) => {
    // Mattermost's console asks for 5 minutes at least; 0 turns the timeout off.
    if (typeof value !== "number" || !Number.isSafeInteger(value) || (value !== 0 && value < IDLE_MINUTES_MIN) || value > HOURS_MAX * 60) {
      return Effect.fail(invalid("api.config.update.invalid_value.app_error", `ServiceSettings.SessionIdleTimeoutInMinutes must be 0 (off) or a whole number of minutes from ${IDLE_MINUTES_MIN}.`))
    }
    writes.site[KEYS.idleTimeoutMinutes] = value
    return Effect.void
  },
  "TeamSettings.RestrictCreationToDomains": (value, writes) => {
    if (typeof value !== "string" || value.length > DOMAINS_MAX) {
      return Effect.fail(invalid("api.config.update.invalid_value.app_error", `TeamSettings.RestrictCreationToDomains must be text of at most ${DOMAINS_MAX} characters.`))
    }
    writes.site[KEYS.restrictCreationToDomains] = value.trim()
    return Effect.void
  },
  "ServiceSettings.EnableCustomEmoji": (value, writes) => siteSwitch("ServiceSettings.EnableCustomEmoji", KEYS.enableCustomEmoji, value, writes),
  "ServiceSettings.EnableGifPicker": (value, writes) => siteSwitch("ServiceSettings.EnableGifPicker", KEYS.enableGifPicker, value, writes),
  ...Object.fromEntries(Object.entries(SWITCHES).map(([name, { key }]) => [
    `ServiceSettings.${name}`,
    (value: unknown, writes: Writes) => Effect.map(bool(`ServiceSettings.${name}`, value), (b) => void (writes.integrations[key] = b))
  ])),
  "GitLabSettings.Enable": (value, writes) => Effect.map(bool("GitLabSettings.Enable", value), (b) => void (writes.enableSso = (writes.enableSso ?? false) || b)),
  "GoogleSettings.Enable": (value, writes) => Effect.map(bool("GoogleSettings.Enable", value), (b) => void (writes.enableSso = (writes.enableSso ?? false) || b)),
  "OpenIdSettings.Enable": (value, writes) => Effect.map(bool("OpenIdSettings.Enable", value), (b) => void (writes.enableSso = (writes.enableSso ?? false) || b))
}

const refusal = (paths: ReadonlyArray<{ path: string; known: boolean }>) => {
  const shown = paths.slice(0, 5).map(({ path, known }) => {
    const env = FROM_ENVIRONMENT[path]
    const name = path.slice(0, 120)
    return env !== undefined ? `${name} (set with ${env})` : known ? name : `${name} (not a setting of this server)`
  })
  const more = paths.length > 5 ? ` and ${paths.length - 5} more` : ""
  return invalid(
    "api.config.update.not_changeable.app_error",
    `These settings cannot be changed on this server while it runs: ${shown.join(", ")}${more}. Nothing was changed.`
  )
}

/** The settings PUT /config/patch changes at run time ("Section.Setting"), for the console's forms. */
export const writableSettings = (): ReadonlyArray<string> => Object.keys(WRITABLE)

/** Applies `incoming` (a whole document, or a part of one for /config/patch) over `current`. */
export const applyConfig = (current: ConfigDocument, incoming: unknown) =>
  Effect.gen(function*() {
    if (!isObject(incoming)) return yield* invalid("api.config.update.invalid_body.app_error", "The configuration must be a JSON object.")
    const changes = changedSettings(current, incoming)
    const refused = changes.filter((c) => WRITABLE[c.path] === undefined)
    if (refused.length > 0) return yield* refusal(refused)
    const writes: Writes = { site: {}, files: {}, integrations: {} }
    for (const change of changes) yield* WRITABLE[change.path](change.value, writes, current)
    if (writes.site[KEYS.sendPushNotifications] === true) {
      const active = yield* Effect.flatMap(PushSettings, (s) => s.current)
      const proxy = writes.pushProxy === undefined ? Option.isSome(active.proxy) : writes.pushProxy !== null
      if (!proxy && Option.isNone(active.fcm) && Option.isNone(active.apns)) {
        return yield* invalid("api.config.update.push_server_required.app_error", "EmailSettings.SendPushNotifications needs EmailSettings.PushNotificationServer (or push credentials set with /api/v1/admin/push).")
      }
    }
    if (writes.enableSso === true) {
      const providers = yield* Effect.flatMap(SsoDirectory, (d) => d.active)
      if (providers.length === 0) {
        return yield* invalid("api.config.update.sso_no_provider.app_error", "Single sign-on cannot be enabled: no provider is configured (add one with /api/v1/admin/sso).")
      }
    }
    const db = yield* Db
    const now = yield* Clock.currentTimeMillis
    const upsert = (section: string, values: Record<string, unknown>) =>
      db.sql`
        INSERT INTO server_config (section, value, update_at) VALUES (${section}, ${JSON.stringify(values)}::jsonb, ${now})
        ON CONFLICT (section) DO UPDATE SET value = server_config.value || EXCLUDED.value, update_at = EXCLUDED.update_at`
    const sections = Object.entries({ site: writes.site, files: writes.files, integrations: writes.integrations })
      .filter(([, values]) => Object.keys(values).length > 0)
    if (sections.length > 0) {
      yield* db.transaction(Effect.forEach(sections, ([section, values]) => upsert(section, values), { discard: true }))
    }
    if (Object.keys(writes.site).length > 0) yield* Effect.flatMap(RuntimeSettings, (s) => s.changed)
    if (writes.pushProxy !== undefined) yield* Effect.flatMap(PushSettings, (s) => s.update({ push_proxy_url: writes.pushProxy }))
    if (writes.enableSso !== undefined) yield* Effect.flatMap(SsoDirectory, (d) => d.updateSettings({ enable_sso: writes.enableSso }))
    return changes.map((c) => c.path)
  })

/** Merges a partial document over a whole one (PUT /config/patch). */
export const mergeConfig = (base: unknown, patch: unknown): unknown => {
  if (!isObject(base) || !isObject(patch)) return patch
  const merged: Record<string, unknown> = { ...base }
  for (const [key, value] of Object.entries(patch)) merged[key] = mergeConfig(base[key], value)
  return merged
}

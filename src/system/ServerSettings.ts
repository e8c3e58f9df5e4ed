import { Effect, Option, Schema } from "effect"
import { Db, type DbError } from "../../layers/Db.ts"
import { JsonObject, rows } from "../../layers/Rows.ts"
import { PushSettings } from "../push/PushSettings.ts"
import { SsoDirectory } from "../sso/SsoDirectory.ts"

const Sections = rows("ServerSettings section", Schema.Struct({ value: JsonObject }))
const AnyUser = rows("ServerSettings any user", Schema.Struct({ any: Schema.Boolean }))

/**
 * What client config and ping report about the runtime configuration: whether pushes can be sent (PushSettings:
 * the push section and the PUSH_* environment) and which login options exist (SsoDirectory: the sso section and providers).
 * Read per request: primary-key lookups, so an administrator's change shows up at once on every node.
 */
const section = (name: string) =>
  Effect.flatMap(Db, (db) =>
    Effect.map(
      db.read(db.sql`SELECT value FROM server_config WHERE section = ${name}`.pipe(Sections)),
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
 * Password login stays on unless SSO is required. Providers show only while SSO is enabled, and the three provider
 * kinds map to the buttons the clients know, as the mobile SSO routes map them back: the code host to GitLab, the
 * web identity provider to Google, a generic OIDC provider to OpenID (labelled with its display name); the first
 * active provider of a kind, oldest first.
 */
export const loginOptions: Effect.Effect<LoginOptions, DbError, SsoDirectory> = Effect.gen(function*() {
  const directory = yield* SsoDirectory
  const settings = yield* directory.settings
  const providers = settings.enable_sso ? yield* directory.active : []
  const first = (type: string) => Option.fromNullable(providers.find((p) => p.provider_type === type))
  return {
    passwordLogin: !settings.require_sso,
    gitlab: Option.isSome(first("codehost")),
    google: Option.isSome(first("webidp")),
    openId: Option.map(first("oidc"), (p) => p.display_name)
  }
})

/** The site section's display name, if an administrator set one. */
export const siteName: Effect.Effect<string, DbError, Db> = Effect.map(section("site"), (site) => text(site.site_name) || "Team Chat")

/**
 * The `site` section's switches the System Console edits (TeamSettings in Mattermost's config): who may create
 * accounts and teams. Mattermost's defaults: all on.
 */
export interface SiteSwitches {
  readonly enableUserCreation: boolean
  readonly enableOpenServer: boolean
  readonly enableTeamCreation: boolean
  /** ServiceSettings.PostPriority: posts may carry a priority (important, urgent). Mattermost's default is on. */
  readonly postPriority: boolean
  /** ServiceSettings.EnableLinkPreviews: the first link of a post gets an OpenGraph preview (src/links/). On by default. */
  readonly enableLinkPreviews: boolean
  /**
   * ServiceSettings.ExperimentalEnableDefaultChannelLeaveJoinMessages: join/leave system posts in the default channels
   * (src/posts/SystemPosts.ts). Mattermost's default is on.
   */
  readonly defaultChannelLeaveJoinMessages: boolean
}

const switchOn = (value: unknown) => value !== false

export const siteSwitches: Effect.Effect<SiteSwitches, DbError, Db> = Effect.map(section("site"), (site) => ({
  enableUserCreation: switchOn(site.enable_user_creation),
  enableOpenServer: switchOn(site.enable_open_server),
  enableTeamCreation: switchOn(site.enable_team_creation),
  postPriority: switchOn(site.post_priority),
  enableLinkPreviews: switchOn(site.enable_link_previews),
  defaultChannelLeaveJoinMessages: switchOn(site.default_channel_leave_join_messages)
}))

/**
 * The login page's custom branding (TeamSettings.EnableCustomBrand, CustomBrandText, CustomDescriptionText), from
 * the `site` section; the brand image itself is stored by BrandRoutes. Mattermost's defaults: off and empty.
 */
export interface SiteBranding {
  readonly enableCustomBrand: boolean
  readonly customBrandText: string
  readonly customDescriptionText: string
}

export const siteBranding: Effect.Effect<SiteBranding, DbError, Db> = Effect.map(section("site"), (site) => ({
  enableCustomBrand: site.enable_custom_brand === true,
  customBrandText: typeof site.custom_brand_text === "string" ? site.custom_brand_text : "",
  customDescriptionText: typeof site.custom_description_text === "string" ? site.custom_description_text : ""
}))

/** Mattermost's TeamSettings.TeammateNameDisplay values: how the clients show people's names by default. */
export const NAME_DISPLAYS = ["username", "nickname_full_name", "full_name"] as const

/**
 * How the clients show people's names (TeamSettings.TeammateNameDisplay, a person's name_format preference overrides
 * it unless LockTeammateNameDisplay), from the `site` section; Mattermost's defaults: username, not locked.
 */
export interface SiteNameDisplay {
  readonly teammateNameDisplay: (typeof NAME_DISPLAYS)[number]
  readonly lockTeammateNameDisplay: boolean
}

export const siteNameDisplay: Effect.Effect<SiteNameDisplay, DbError, Db> = Effect.map(section("site"), (site) => ({
  teammateNameDisplay: NAME_DISPLAYS.find((d) => d === site.teammate_name_display) ?? "username",
  lockTeammateNameDisplay: site.lock_teammate_name_display === true
}))

/** True until the first account exists: the web app then offers sign-up to the first visitor (NoAccounts). */
export const noAccounts: Effect.Effect<boolean, DbError, Db> = Effect.flatMap(Db, (db) =>
  Effect.map(db.read(db.sql`SELECT EXISTS (SELECT 1 FROM users WHERE NOT is_bot) AS any`.pipe(AnyUser)), (rows) => !rows[0].any))

/**
 * Limits of the `site` section (Mattermost's ServiceSettings.MaximumLoginAttempts and TeamSettings.MaxUsersPerTeam,
 * MaxChannelsPerTeam), with Mattermost's defaults. Read per use, so that a change shows on every node at once.
 */
export interface AccountLimits {
  /** Failed sign-ins (wrong password, wrong second-factor code) after which an account is locked. */
  readonly maximumLoginAttempts: number
  readonly maxUsersPerTeam: number
  readonly maxChannelsPerTeam: number
}

export const LIMIT_DEFAULTS: AccountLimits = { maximumLoginAttempts: 10, maxUsersPerTeam: 50_000, maxChannelsPerTeam: 2_000 }

const positive = (value: unknown, fallback: number) =>
  typeof value === "number" && Number.isSafeInteger(value) && value > 0 ? value : fallback

export const accountLimits: Effect.Effect<AccountLimits, DbError, Db> = Effect.map(section("site"), (site) => ({
  maximumLoginAttempts: positive(site.maximum_login_attempts, LIMIT_DEFAULTS.maximumLoginAttempts),
  maxUsersPerTeam: positive(site.max_users_per_team, LIMIT_DEFAULTS.maxUsersPerTeam),
  maxChannelsPerTeam: positive(site.max_channels_per_team, LIMIT_DEFAULTS.maxChannelsPerTeam)
}))

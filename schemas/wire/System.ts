import { Schema } from "effect"

/**
 * `GET /system/ping` (src/system/SystemRoutes.ts): the short answer every client polls, all values strings; with
 * `get_server_status=true` the health fields follow.
 */
export const Ping = Schema.Struct({
  status: Schema.String,
  AndroidLatestVersion: Schema.String,
  AndroidMinVersion: Schema.String,
  IosLatestVersion: Schema.String,
  IosMinVersion: Schema.String,
  ActiveSearchBackend: Schema.String,
  CanReceiveNotifications: Schema.String,
  database_status: Schema.optionalWith(Schema.String, { exact: true }),
  filestore_status: Schema.optionalWith(Schema.String, { exact: true }),
  /** System admins only: true when the server runs as root. */
  root_status: Schema.optionalWith(Schema.Boolean, { exact: true })
})
export type Ping = typeof Ping.Type

/**
 * `GET /config/client?format=old` and `GET /license/client?format=old`: Mattermost's ClientConfig and ClientLicense,
 * maps whose every value is a string (mattermost-compat.md section 1, rule 8).
 */
export const StringMap = Schema.Record({ key: Schema.String, value: Schema.String })
export type StringMap = typeof StringMap.Type

/** `GET /system/timezones`: the IANA zone names the runtime knows. */
export const TimezoneNames = Schema.Array(Schema.String)

/** `GET /redirect_location`: where a link leads after its redirects. */
export const RedirectLocation = Schema.Struct({ location: Schema.String })
export type RedirectLocation = typeof RedirectLocation.Type

/** The AnalyticsRow of @mattermost/types: one figure of `GET /analytics/old`, by name (or by day). */
export const AnalyticsRow = Schema.Struct({ name: Schema.String, value: Schema.Number })
export type AnalyticsRow = typeof AnalyticsRow.Type

/** `GET /system/onboarding/complete`: Mattermost's System row `FirstAdminSetupComplete`, its value "true" or "false". */
export const OnboardingState = Schema.Struct({ name: Schema.String, value: Schema.String })
export type OnboardingState = typeof OnboardingState.Type

/** `GET /system/schema/version`: the SchemaMigration of @mattermost/types, one per applied migration. */
export const SchemaMigration = Schema.Struct({ version: Schema.Number, name: Schema.String })
export type SchemaMigration = typeof SchemaMigration.Type

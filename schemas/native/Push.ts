import { Schema } from "effect"

/**
 * /api/v1/admin/push: the push section of the server configuration record (docs/push.md). Public values are shown as
 * they are, private ones only as "set"; a PUT changes the fields it names (absent or "set" keeps a value, null or ""
 * clears it, any other string replaces it).
 */

export const PUBLIC_FIELDS = [
  "push_android_project_id",
  "push_ios_key_id",
  "push_ios_team_id",
  "push_ios_bundle_id",
  "push_proxy_url",
  "push_fcm_base_url",
  "push_apns_base_url",
  "push_apns_ca_cert"
] as const

export const PRIVATE_FIELDS = [
  "push_android_access_token",
  "push_android_service_account_key",
  "push_ios_private_key"
] as const

export type PushField = typeof PUBLIC_FIELDS[number] | typeof PRIVATE_FIELDS[number]
export const ALL_FIELDS: ReadonlyArray<PushField> = [...PUBLIC_FIELDS, ...PRIVATE_FIELDS]

const fieldsOf = <S extends Schema.Schema.Any>(value: S) =>
  Object.fromEntries(ALL_FIELDS.map((f) => [f, value])) as Record<PushField, S>

const Value = Schema.NullOr(Schema.String)

export const SettingsPatch = Schema.partial(Schema.Struct(fieldsOf(Value))).annotations({ identifier: "PushSettingsPatch" })
export type SettingsPatch = typeof SettingsPatch.Type

export const SettingsView = Schema.Struct({
  ...fieldsOf(Value.annotations({ description: "the value; \"set\" for a private value that is stored; null when unset" })),
  enabled_transports: Schema.Array(Schema.String).annotations({ description: "the transports with complete credentials: proxy, fcm, apns" }),
  from_environment: Schema.Array(Schema.Literal(...PUBLIC_FIELDS, ...PRIVATE_FIELDS)).annotations({ description: "fields whose value comes from a PUSH_* variable" })
}).annotations({ identifier: "PushSettings" })
export type SettingsView = typeof SettingsView.Type

import type { Role } from "@mattermost/types/roles"
import type { PreferenceType } from "@mattermost/types/preferences"
import type { Session } from "@mattermost/types/sessions"
import type { UserProfile } from "@mattermost/types/users"
import type { ServerLimits } from "@mattermost/types/limits"
import { expect } from "vitest"

/**
 * Runtime checks of response shapes against @mattermost/types. Each spec is typed `Record<keyof T, Kind>`, so the
 * compiler fails when the type gains a field the spec does not mention; "omitted" marks fields Mattermost itself
 * leaves out of the JSON (Go `omitempty`), "optional" fields that may be absent.
 */
type Kind = "string" | "number" | "boolean" | "object" | "array" | "optional" | "omitted"
export type Spec<T> = Record<keyof T, Kind>

export const expectShape = <T>(value: unknown, spec: Spec<T>, what = "value"): T => {
  expect(value, what).toBeTypeOf("object")
  const record = value as Record<string, unknown>
  for (const [key, kind] of Object.entries(spec) as Array<[string, Kind]>) {
    const actual = record[key]
    if (kind === "omitted") {
      expect(actual === undefined || typeof actual !== "function", `${what}.${key}`).toBe(true)
      continue
    }
    if (kind === "optional") continue
    if (kind === "array") expect(Array.isArray(actual), `${what}.${key} should be an array`).toBe(true)
    else if (kind === "object") expect(actual !== null && typeof actual === "object" && !Array.isArray(actual), `${what}.${key} should be an object`).toBe(true)
    else expect(typeof actual, `${what}.${key}`).toBe(kind)
  }
  return value as T
}

export const UserProfileSpec: Spec<UserProfile> = {
  id: "string",
  create_at: "number",
  update_at: "number",
  delete_at: "number",
  username: "string",
  password: "omitted",
  auth_data: "optional",
  auth_service: "string",
  email: "string",
  nickname: "string",
  first_name: "string",
  last_name: "string",
  position: "string",
  roles: "string",
  props: "object",
  notify_props: "object",
  last_password_update: "number",
  last_picture_update: "number",
  locale: "string",
  timezone: "object",
  mfa_active: "boolean",
  last_activity_at: "omitted",
  is_bot: "boolean",
  bot_description: "string",
  terms_of_service_id: "string",
  terms_of_service_create_at: "number",
  remote_id: "optional",
  status: "optional",
  custom_profile_attributes: "optional",
  failed_attempts: "optional"
}

export const RoleSpec: Spec<Role> = {
  id: "string",
  name: "string",
  display_name: "string",
  description: "string",
  create_at: "number",
  update_at: "number",
  delete_at: "number",
  permissions: "array",
  scheme_managed: "boolean",
  built_in: "boolean"
}

export const PreferenceSpec: Spec<PreferenceType> = { category: "string", name: "string", user_id: "string", value: "string" }

export const SessionSpec: Spec<Session> = {
  id: "string",
  token: "string",
  create_at: "number",
  expires_at: "number",
  last_activity_at: "number",
  user_id: "string",
  device_id: "string",
  roles: "string",
  is_oauth: "boolean",
  props: "object",
  team_members: "array",
  local: "boolean"
}

export const ServerLimitsSpec: Spec<ServerLimits> = {
  activeUserCount: "number",
  maxUsersLimit: "number",
  maxUsersHardLimit: "optional",
  lastAccessiblePostTime: "optional",
  postHistoryLimit: "optional",
  singleChannelGuestCount: "optional",
  singleChannelGuestLimit: "optional"
}

/** Every value of a client config or license map is a string (mattermost-compat.md section 1, rule 8). */
export const expectStringMap = (value: unknown) => {
  expect(value).toBeTypeOf("object")
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) expect(typeof v, key).toBe("string")
}

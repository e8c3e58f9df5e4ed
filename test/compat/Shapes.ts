import type { Role } from "@mattermost/types/roles"
import type { PreferenceType } from "@mattermost/types/preferences"
import type { Session } from "@mattermost/types/sessions"
import type { UserProfile } from "@mattermost/types/users"
import type { ServerLimits } from "@mattermost/types/limits"
import type { ChannelCategory } from "@mattermost/types/channel_categories"
import type { ChannelMembership, ServerChannel } from "@mattermost/types/channels"
import type { Post, PostList } from "@mattermost/types/posts"
import type { Team } from "@mattermost/types/teams"
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

const optionalKeys = <K extends string>(...keys: Array<K>) => Object.fromEntries(keys.map((k) => [k, "optional"])) as Record<K, Kind>

export const TeamSpec: Spec<Team> = {
  id: "string",
  create_at: "number",
  update_at: "number",
  delete_at: "number",
  display_name: "string",
  name: "string",
  description: "string",
  email: "string",
  type: "string",
  company_name: "string",
  allowed_domains: "string",
  invite_id: "string",
  allow_open_invite: "boolean",
  scheme_id: "string",
  group_constrained: "boolean",
  ...optionalKeys("policy_id", "last_team_icon_update", "policy_enforced", "policy_actions", "policy_is_active")
}

/** What /users/me/teams/members carries (mattermost-compat.md section 5); the unread counts come from /teams/unread. */
export const TeamMemberSpec = {
  team_id: "string",
  user_id: "string",
  roles: "string",
  delete_at: "number",
  scheme_admin: "boolean",
  scheme_guest: "boolean",
  scheme_user: "boolean"
} satisfies Partial<Record<keyof import("@mattermost/types/teams").TeamMembership, Kind>>

export const ServerChannelSpec: Spec<ServerChannel> = {
  id: "string",
  create_at: "number",
  update_at: "number",
  delete_at: "number",
  team_id: "string",
  type: "string",
  display_name: "string",
  name: "string",
  header: "string",
  purpose: "string",
  last_post_at: "number",
  last_root_post_at: "number",
  creator_id: "string",
  scheme_id: "string",
  group_constrained: "boolean",
  total_msg_count: "number",
  total_msg_count_root: "number",
  ...optionalKeys("teammate_id", "status", "shared", "props", "policy_id", "banner_info", "policy_enforced", "policy_actions",
    "policy_is_active", "default_category_name", "managed_category_name", "autotranslation", "discoverable")
}

export const ChannelMembershipSpec: Spec<ChannelMembership> = {
  channel_id: "string",
  user_id: "string",
  roles: "string",
  last_viewed_at: "number",
  msg_count: "number",
  msg_count_root: "number",
  mention_count: "number",
  mention_count_root: "number",
  urgent_mention_count: "number",
  notify_props: "object",
  last_update_at: "number",
  scheme_user: "boolean",
  scheme_admin: "boolean",
  ...optionalKeys("post_root_id", "autotranslation_disabled")
}

/** Mattermost's SidebarCategory also sends `sort_order` (not in @mattermost/types): the mobile app sorts by it. */
export const ChannelCategorySpec: Spec<ChannelCategory & { sort_order: number }> = {
  id: "string",
  user_id: "string",
  team_id: "string",
  type: "string",
  display_name: "string",
  sorting: "string",
  sort_order: "number",
  channel_ids: "array",
  muted: "boolean",
  collapsed: "boolean"
}

export const PostSpec: Spec<Post> = {
  id: "string",
  create_at: "number",
  update_at: "number",
  edit_at: "number",
  delete_at: "number",
  is_pinned: "boolean",
  user_id: "string",
  channel_id: "string",
  root_id: "string",
  original_id: "string",
  message: "string",
  type: "string",
  props: "object",
  hashtags: "string",
  pending_post_id: "string",
  reply_count: "number",
  metadata: "object",
  ...optionalKeys("file_ids", "failed", "user_activity_posts", "state", "filenames", "last_reply_at", "participants",
    "message_source", "is_following", "exists", "remote_id")
}

export const PostListSpec: Spec<PostList> = {
  order: "array",
  posts: "object",
  next_post_id: "string",
  prev_post_id: "string",
  first_inaccessible_post_time: "number"
}

import { createHash } from "node:crypto"
import type { Role } from "../../schemas/wire/Role.ts"

/**
 * Mattermost's built-in roles with the permissions its default scheme grants after all permission migrations of a
 * 10.x server (team members create channels, channel members edit and delete their own posts, and so on). Clients
 * drive their UI from these lists: without create_post in a member's roles the mobile post box is disabled.
 * Roles are fixed here (no permission schemes), so their ids are derived from their names and stable everywhere.
 */
const CHANNEL_GUEST = [
  "read_channel",
  "read_channel_content",
  "add_reaction",
  "remove_reaction",
  "upload_file",
  "edit_post",
  "delete_post",
  "create_post",
  "use_channel_mentions",
  "use_slash_commands"
]

const CHANNEL_USER = [
  ...CHANNEL_GUEST,
  "manage_public_channel_members",
  "manage_private_channel_members",
  "manage_public_channel_properties",
  "manage_private_channel_properties",
  "delete_public_channel",
  "delete_private_channel",
  "get_public_link",
  "use_group_mentions",
  "read_public_channel_groups",
  "read_private_channel_groups",
  "add_bookmark_public_channel",
  "edit_bookmark_public_channel",
  "delete_bookmark_public_channel",
  "order_bookmark_public_channel",
  "add_bookmark_private_channel",
  "edit_bookmark_private_channel",
  "delete_bookmark_private_channel",
  "order_bookmark_private_channel"
]

const CHANNEL_ADMIN = [
  "manage_channel_roles",
  "use_group_mentions",
  "manage_public_channel_members",
  "manage_private_channel_members",
  "manage_public_channel_banner",
  "manage_private_channel_banner"
]

const TEAM_GUEST = ["view_team"]

const TEAM_USER = [
  "list_team_channels",
  "join_public_channels",
  "read_public_channel",
  "view_team",
  "create_public_channel",
  "create_private_channel",
  "invite_user",
  "add_user_to_team"
]

const TEAM_ADMIN = [
  "remove_user_from_team",
  "manage_team",
  "import_team",
  "manage_team_roles",
  "manage_channel_roles",
  "manage_others_incoming_webhooks",
  "manage_others_outgoing_webhooks",
  "manage_slash_commands",
  "manage_others_slash_commands",
  "manage_incoming_webhooks",
  "manage_outgoing_webhooks",
  "delete_post",
  "delete_others_posts",
  "convert_public_channel_to_private",
  "convert_private_channel_to_public"
]

const SYSTEM_GUEST = ["create_direct_channel", "create_group_channel"]

const SYSTEM_USER = [
  "list_public_teams",
  "join_public_teams",
  "create_direct_channel",
  "create_group_channel",
  "view_members",
  "create_team",
  "create_emojis",
  "delete_emojis"
]

const SYSTEM_ADMIN_ONLY = [
  "assign_system_admin_role",
  "manage_system",
  "manage_roles",
  "manage_system_wide_oauth",
  "edit_other_users",
  "edit_others_posts",
  "manage_oauth",
  "invite_guest",
  "promote_guest",
  "demote_to_guest",
  "create_post_public",
  "create_post_ephemeral",
  "list_users_without_team",
  "manage_jobs",
  "create_user_access_token",
  "read_user_access_token",
  "revoke_user_access_token",
  "create_bot",
  "read_bots",
  "read_others_bots",
  "manage_bots",
  "manage_others_bots",
  "remove_others_reactions",
  "list_private_teams",
  "join_private_teams",
  "read_other_users_teams",
  "manage_emojis",
  "manage_others_emojis",
  "delete_others_emojis",
  "edit_brand",
  "read_jobs",
  "permanent_delete_user",
  "sysconsole_read_user_management_users",
  "sysconsole_write_user_management_users"
]

const unique = (...lists: ReadonlyArray<ReadonlyArray<string>>) => [...new Set(lists.flat())]

interface RoleDefinition {
  readonly name: string
  readonly displayKey: string
  readonly permissions: ReadonlyArray<string>
}

const DEFINITIONS: ReadonlyArray<RoleDefinition> = [
  { name: "system_admin", displayKey: "global_admin", permissions: unique(SYSTEM_ADMIN_ONLY, SYSTEM_USER, TEAM_USER, TEAM_ADMIN, CHANNEL_USER, CHANNEL_ADMIN) },
  { name: "system_user", displayKey: "global_user", permissions: SYSTEM_USER },
  { name: "system_guest", displayKey: "global_guest", permissions: SYSTEM_GUEST },
  { name: "team_admin", displayKey: "team_admin", permissions: TEAM_ADMIN },
  { name: "team_user", displayKey: "team_user", permissions: TEAM_USER },
  { name: "team_guest", displayKey: "team_guest", permissions: TEAM_GUEST },
  { name: "channel_admin", displayKey: "channel_admin", permissions: CHANNEL_ADMIN },
  { name: "channel_user", displayKey: "channel_user", permissions: CHANNEL_USER },
  { name: "channel_guest", displayKey: "channel_guest", permissions: CHANNEL_GUEST }
]

const ID_ALPHABET = "ybndrfg8ejkmcpqxot1uwisza345h769"

/** A 26-character Mattermost-shaped id derived from the role name. */
const roleId = (name: string) => {
  const digest = createHash("sha256").update(`role:${name}`).digest()
  let out = ""
  for (let i = 0; i < 26; i++) out += ID_ALPHABET[digest[i] & 31]
  return out
}

export const ROLES: ReadonlyArray<Role> = DEFINITIONS.map((d) => ({
  id: roleId(d.name),
  name: d.name,
  display_name: `authentication.roles.${d.displayKey}.name`,
  description: `authentication.roles.${d.displayKey}.description`,
  create_at: 0,
  update_at: 0,
  delete_at: 0,
  permissions: [...d.permissions],
  scheme_managed: true,
  built_in: true
}))

export const roleByName = (name: string) => ROLES.find((r) => r.name === name)
export const roleById = (id: string) => ROLES.find((r) => r.id === id)

/** Whether any of the space-separated roles grants the permission. */
export const hasPermission = (roles: string | ReadonlyArray<string>, permission: string) =>
  (typeof roles === "string" ? roles.split(" ") : roles).some((name) => roleByName(name)?.permissions.includes(permission) ?? false)

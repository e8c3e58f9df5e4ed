import type { User } from "../../schemas/wire/User.ts"
import type { UserRow } from "./UserRow.ts"

/**
 * The UserProfile of @mattermost/types. Never carries the password hash or MFA secret. Email, notify props and
 * auth data are shown only to the user themself and to system admins.
 */
export interface Viewer {
  readonly userId: string
  readonly isSystemAdmin: boolean
}

/** Precompiled encoder of the User wire Schema: GET /users/me answers with it on the fast path (test/compat/WireMappers.test.ts). */
export const toWire = (row: UserRow, viewer: Viewer | "self"): User => {
  const privileged = viewer === "self" || viewer.userId === row.id || viewer.isSystemAdmin
  return {
    id: row.id,
    create_at: Number(row.create_at),
    update_at: Number(row.update_at),
    delete_at: Number(row.delete_at),
    username: row.username,
    auth_data: privileged ? row.auth_data ?? "" : "",
    auth_service: row.auth_service,
    email: privileged ? row.email : "",
    email_verified: row.email_verified,
    nickname: row.nickname,
    first_name: row.first_name,
    last_name: row.last_name,
    position: row.position,
    roles: row.roles,
    locale: row.locale,
    notify_props: privileged ? row.notify_props : {},
    props: row.props ?? {},
    last_password_update: privileged ? Number(row.last_password_update) : 0,
    last_picture_update: Number(row.last_picture_update),
    failed_attempts: privileged ? row.failed_attempts : 0,
    mfa_active: privileged ? row.mfa_active : false,
    timezone: row.timezone,
    is_bot: row.is_bot,
    bot_description: "",
    disable_welcome_email: false,
    terms_of_service_id: "",
    terms_of_service_create_at: 0
  }
}

export type UserWire = User

/** A users row as PostgreSQL returns it (bigint columns arrive as strings). */
export interface UserRow {
  readonly id: string
  readonly create_at: string | number
  readonly update_at: string | number
  readonly delete_at: string | number
  readonly username: string
  readonly password: string
  readonly auth_data: string | null
  readonly auth_service: string
  readonly email: string
  readonly email_verified: boolean
  readonly nickname: string
  readonly first_name: string
  readonly last_name: string
  readonly position: string
  readonly roles: string
  readonly locale: string
  readonly timezone: Record<string, string>
  readonly notify_props: Record<string, string>
  readonly props: Record<string, string>
  readonly last_password_update: string | number
  readonly last_picture_update: string | number
  readonly failed_attempts: number
  readonly mfa_active: boolean
  readonly last_login: string | number
  readonly is_bot: boolean
}

export const DEFAULT_NOTIFY_PROPS: Record<string, string> = {
  email: "true",
  push: "mention",
  desktop: "mention",
  desktop_sound: "true",
  mention_keys: "",
  channel: "true",
  first_name: "false",
  push_status: "away",
  comments: "never",
  push_threads: "all",
  desktop_threads: "all",
  email_threads: "all",
  auto_responder_active: "false",
  auto_responder_message: ""
}

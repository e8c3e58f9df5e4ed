import type { Caller } from "../auth/Authenticate.ts"

/**
 * A caller without a session, for what the server does on a user's behalf (a webhook posting as its creator, the
 * system bot sending a reminder): the same rights checks apply as to that user's own requests.
 */
export const actingAs = (user: { readonly id: string; readonly roles: string; readonly is_bot: boolean }, now: number): Caller => {
  const roles = user.roles.split(" ").filter((r) => r !== "")
  return {
    session: {
      id: "", token: "", create_at: now, expires_at: now, last_activity_at: now, user_id: user.id, device_id: "",
      roles: user.roles, is_oauth: false, expired_notify: false, props: user.is_bot ? { is_bot: "true" } : {},
      team_members: [], local: false
    },
    userId: user.id,
    roles,
    isSystemAdmin: roles.includes("system_admin"),
    tokenLocation: "header"
  }
}

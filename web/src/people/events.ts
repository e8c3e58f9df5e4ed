import type { UserProfile } from "@mattermost/types/users"
import { me, sessionEnded, sessionHints } from "../app/state.ts"
import { json, type Handlers } from "../realtime/handlers.ts"
import { statuses, users } from "./state.ts"

/** Profiles and statuses, live: a new name or picture (its URL carries last_picture_update) shows everywhere at once. */
export const peopleEvents: Handlers = {
  status_change: (data) => {
    statuses.value = { ...statuses.value, [data.user_id]: data.status }
  },
  // Mattermost sends the user as an object here; others' copies are sanitized, so they are merged, not replaced.
  user_updated: (data) => {
    const user = json<UserProfile | null>(data.user, null)
    if (!user?.id) return
    users.value = { ...users.value, [user.id]: { ...users.value[user.id], ...user } }
    if (user.id !== me.value?.id) return
    // A new password ends every other session: the server tells the account's sockets first.
    if ((user.last_password_update ?? 0) > (me.value.last_password_update ?? 0)) sessionHints.passwordChangedAt = Date.now()
    me.value = { ...me.value, ...user }
    // The server tells the account's own sockets before it ends their sessions.
    if (user.delete_at > 0) sessionEnded.value = "Your account has been deactivated. Ask an administrator if you think this is a mistake."
  },
  user_role_updated: (data) => {
    if (data.user_id === me.value?.id && typeof data.roles === "string") me.value = { ...me.value!, roles: data.roles }
    const known = users.value[data.user_id]
    if (known && typeof data.roles === "string") users.value = { ...users.value, [data.user_id]: { ...known, roles: data.roles } }
  }
}

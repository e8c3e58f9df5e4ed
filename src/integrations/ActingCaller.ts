import { Effect } from "effect"
import { type Caller, makeCaller } from "../auth/Authenticate.ts"
import { RoleStore } from "../system/RoleStore.ts"

/**
 * A caller without a session, for what the server does on a user's behalf (a webhook posting as its creator, the
 * system bot sending a reminder): the same rights checks apply as to that user's own requests, answered from this
 * node's roles as for a request.
 */
export const actingAs = (user: { readonly id: string; readonly roles: string; readonly is_bot: boolean }, now: number): Effect.Effect<Caller, never, RoleStore> =>
  Effect.map(RoleStore, (store) =>
    makeCaller({
      id: "", token: "", create_at: now, expires_at: now, last_activity_at: now, user_id: user.id, device_id: "",
      roles: user.roles, is_oauth: false, expired_notify: false, props: user.is_bot ? { is_bot: "true" } : {},
      team_members: [], local: false
    }, "header", store.current()))

import { Effect } from "effect"
import { Forbidden } from "../../schemas/Errors.ts"

/**
 * The check every permission-guarded action makes: the holder (a Caller for system scope, a TeamAccess or
 * ChannelAccess from `Access` for team and channel scope) grants the permission, else Mattermost's 403.
 */
export const need = (holder: { readonly can: (permission: string) => boolean }, permission: string): Effect.Effect<void, Forbidden> =>
  holder.can(permission)
    ? Effect.void
    : Effect.fail(new Forbidden({ id: "api.context.permissions.app_error", message: `You do not have the appropriate permissions. (${permission})` }))

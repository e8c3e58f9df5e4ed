import { Effect } from "effect"
import type { Caller } from "../auth/Authenticate.ts"
import { forbidden } from "../http/ApiError.ts"
import { UserIdParam } from "../teams/UserParam.ts"

/**
 * A `{user_id}` path segment of routes that act on the caller's own read state, threads and saved posts: "me" or the
 * caller's id; another user's id is 403.
 */
export const OwnUserParam = UserIdParam

export const ownUser = (caller: Caller, raw: string) =>
  raw === "me" || raw === caller.userId
    ? Effect.succeed(caller.userId)
    : Effect.fail(forbidden("api.context.permissions.app_error", "You do not have the appropriate permissions."))

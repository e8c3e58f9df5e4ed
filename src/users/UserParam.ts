import { Effect } from "effect"
import { selfOrAdmin } from "../access/UserParam.ts"
import type { Caller } from "../auth/Authenticate.ts"

/** The users routes' names for the shared `{user_id}` resolver (src/access/UserParam.ts). */
export { targetUserId } from "../access/UserParam.ts"

/** Own resources (sessions, password, preferences of oneself) or a system admin acting on a user. */
export const requireSelfOrAdmin = (caller: Caller, userId: string) => Effect.asVoid(selfOrAdmin(caller, userId, "this user"))

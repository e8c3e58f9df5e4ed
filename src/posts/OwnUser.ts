import { UserIdOrMe } from "../../schemas/Params.ts"

/**
 * A `{user_id}` path segment of routes that act on the caller's own read state, threads and saved posts: "me" or the
 * caller's id; another user's id is 403 (src/access/UserParam.ts, `selfOnly`).
 */
export const OwnUserParam = UserIdOrMe
export { selfOnly as ownUser } from "../access/UserParam.ts"

import { Effect, Option, Schema } from "effect"
import { forbidden, invalidParam, notFound, permissionDenied } from "../../schemas/Errors.ts"
import { isId, TeamId, UserIdOrMe } from "../../schemas/Params.ts"
import type { Caller } from "../auth/Authenticate.ts"
import { CurrentCaller } from "../auth/Guards.ts"
import * as Decode from "../http/Decode.ts"
import { UserRepo } from "../users/UserRepo.ts"
import { Access } from "./Access.ts"

/**
 * The one resolver of `{user_id}` path segments: "me" names the caller. Who may name someone else depends on the
 * route, so each rule below starts from `resolveUserId`, and refuses with the words Mattermost uses there.
 */

/** "me" resolved, without a permission check (for routes that decide access on the team or channel). */
export const resolveUserId = (caller: Caller, raw: string) => (raw === "me" ? caller.userId : raw)

/**
 * The one "self or admin" rule: `raw` ("me" resolved) if it names the `authed` route's caller, or anyone for system
 * admins; otherwise 403 naming `what`.
 */
export const selfOrAdmin = (raw: string, what = "another user's data") =>
  Effect.flatMap(CurrentCaller, (caller) => {
    const userId = resolveUserId(caller, raw)
    return userId === caller.userId || caller.isSystemAdmin ? Effect.succeed(userId) : Effect.fail(permissionDenied(what))
  })

/**
 * The caller themself only, system admins included (their own read state, threads and saved posts): `raw` ("me"
 * resolved) if it names the `authed` route's caller; otherwise 403.
 */
export const selfOnly = (raw: string) =>
  Effect.flatMap(CurrentCaller, (caller) =>
    resolveUserId(caller, raw) === caller.userId
      ? Effect.succeed(caller.userId)
      : Effect.fail(forbidden("api.context.permissions.app_error", "You do not have the appropriate permissions.")))

const RawUserParams = Schema.Struct({ user_id: Schema.String })

/**
 * The `{user_id}` segment of the path, "me" naming the `authed` route's caller; a malformed id is Mattermost's
 * invalid_param (no check of who).
 */
export const targetUserId = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { user_id } = yield* Decode.params(RawUserParams)
  const userId = resolveUserId(caller, user_id)
  if (!isId(userId)) return yield* invalidParam("user_id")
  return userId
})

/** The `{user_id}` of the path (`targetUserId`), under the "self or admin" rule; otherwise 403 naming `what`. */
export const selfOrAdminUserId = (what: string) => Effect.flatMap(targetUserId, (userId) => selfOrAdmin(userId, what))

/** The `{user_id}` of the path (`targetUserId`), which must name the caller of an `authed` route; otherwise 403 naming `what`. */
export const ownUserId = (what: string) =>
  Effect.gen(function*() {
    const caller = yield* CurrentCaller
    const userId = yield* targetUserId
    if (userId !== caller.userId) return yield* permissionDenied(what)
    return userId
  })

/** `/users/{user_id}/teams/{team_id}/...` of the caller's own data (or anyone's, for system admins) in a team of theirs. */
export const OwnTeamParams = Schema.Struct({ user_id: UserIdOrMe, team_id: TeamId })

export const ownDataInTeam = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const params = yield* Decode.params(OwnTeamParams)
  const userId = yield* selfOrAdmin(params.user_id)
  const access = yield* Access
  yield* access.team(caller, params.team_id)
  // An admin acting for someone else names a user who may not exist (whose data could not be stored).
  if (userId !== caller.userId && Option.isNone(yield* (yield* UserRepo).findById(userId))) {
    return yield* notFound("app.user.missing_account.const", "Unable to find the user.")
  }
  return { userId, teamId: params.team_id }
})

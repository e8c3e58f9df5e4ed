import { Effect, Option, Schema } from "effect"
import { Access } from "../access/Access.ts"
import { type Caller, requireCaller } from "../auth/Authenticate.ts"
import { invalidParam, notFound, permissionDenied } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { UserRepo } from "../users/UserRepo.ts"

/** A `{user_id}` path segment: "me" or an id. */
export const UserIdParam = Schema.Union(Schema.Literal("me"), Decode.Id)

/**
 * Resolves a `{user_id}` path segment to the user whose own data the caller reads or writes: themself, or anyone for
 * system admins.
 */
export const selfOrAdmin = (caller: Caller, raw: string) =>
  Effect.gen(function*() {
    const userId = raw === "me" ? caller.userId : raw
    if (userId !== caller.userId && !caller.isSystemAdmin) return yield* permissionDenied("another user's data")
    return userId
  })

/** Resolves "me" without a permission check (for routes that decide access on the team or channel). */
export const resolveUserId = (caller: Caller, raw: string) => (raw === "me" ? caller.userId : raw)

export const requireId = (value: string, name: string) =>
  /^[a-z0-9]{26}$/.test(value) ? Effect.succeed(value) : Effect.fail(invalidParam(name))

/** page/per_page as Mattermost clients send them (per_page capped at 200). */
export const Paging = {
  page: Decode.QueryInt(0, { min: 0 }),
  per_page: Decode.QueryInt(60, { min: 0, max: 200 })
}

/** `/users/{user_id}/teams/{team_id}/...` of the caller's own data (or anyone's, for system admins) in a team of theirs. */
export const OwnTeamParams = Schema.Struct({ user_id: UserIdParam, team_id: Decode.Id })

export const ownDataInTeam = Effect.gen(function*() {
  const caller = yield* requireCaller
  const params = yield* Decode.params(OwnTeamParams)
  const userId = yield* selfOrAdmin(caller, params.user_id)
  const access = yield* Access
  yield* access.team(caller, params.team_id)
  // An admin acting for someone else names a user who may not exist (whose data could not be stored).
  if (userId !== caller.userId && Option.isNone(yield* (yield* UserRepo).findById(userId))) {
    return yield* notFound("app.user.missing_account.const", "Unable to find the user.")
  }
  return { userId, teamId: params.team_id }
})

import { Effect, Schema } from "effect"
import type { Caller } from "../auth/Authenticate.ts"
import { invalidParam, permissionDenied } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"

const UserIdParams = Schema.Struct({ user_id: Schema.String })

/** The `{user_id}` path segment, where "me" names the caller. */
export const targetUserId = (caller: Caller) =>
  Effect.gen(function*() {
    const { user_id } = yield* Decode.params(UserIdParams)
    if (user_id === "me") return caller.userId
    if (!/^[a-z0-9]{26}$/.test(user_id)) return yield* invalidParam("user_id")
    return user_id
  })

/** Own resources (sessions, password, preferences of oneself) or a system admin acting on a user. */
export const requireSelfOrAdmin = (caller: Caller, userId: string) =>
  caller.userId === userId || caller.isSystemAdmin ? Effect.void : Effect.fail(permissionDenied("this user"))

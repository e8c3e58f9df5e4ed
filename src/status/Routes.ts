import { HttpRouter } from "@effect/platform"
import { Effect, Option, Schema } from "effect"
import { ListOf, MaxItems } from "../../schemas/Limits.ts"
import { Status } from "../../schemas/wire/Status.ts"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import { badRequest, notFound, permissionDenied } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { respondWith, respondWithAll } from "../http/Respond.ts"
import { UserRepo } from "../users/UserRepo.ts"
import { Statuses, StatusValue } from "./Statuses.ts"

/** User statuses over REST (mattermost-compat.md section 5, Users): read one, read many, set one's own. */

const UserParam = Schema.Struct({ user_id: Schema.Union(Schema.Literal("me"), Decode.Id) })

const StatusBody = Schema.Struct({
  user_id: Schema.optional(Schema.String),
  status: Schema.String,
  /** Seconds since the epoch; clients send it only with "dnd". */
  dnd_end_time: Schema.optionalWith(Schema.Number, { default: () => 0 })
})

const IdsBody = ListOf(Decode.Id, MaxItems.userIds)

/** "me" or an existing user's id; unknown users are 404. */
const targetUser = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { user_id } = yield* Decode.params(UserParam)
  const userId = user_id === "me" ? caller.userId : user_id
  if (userId !== caller.userId) {
    const found = yield* (yield* UserRepo).findById(userId)
    if (Option.isNone(found)) return yield* notFound("app.user.missing_account.const", "User not found.")
  }
  return { caller, userId }
})

const getStatus = Effect.gen(function*() {
  const { userId } = yield* targetUser
  const [status] = yield* (yield* Statuses).get([userId])
  return yield* respondWith(Status, status)
})

const getByIds = Effect.gen(function*() {
  const ids = yield* Decode.body(IdsBody)
  if (ids.length === 0) return yield* badRequest("api.context.invalid_param.app_error", "Invalid or missing user_ids parameter in request body.")
  return yield* respondWithAll(Status, yield* (yield* Statuses).get([...new Set(ids)]))
})

const updateStatus = Effect.gen(function*() {
  const { caller, userId } = yield* targetUser
  if (userId !== caller.userId && !caller.isSystemAdmin) return yield* permissionDenied("another user's status")
  const body = yield* Decode.body(StatusBody)
  if (body.user_id !== undefined && body.user_id !== userId) {
    return yield* badRequest("api.context.invalid_body_param.app_error", "Invalid or missing user_id in request body.")
  }
  const status = Schema.decodeUnknownOption(StatusValue)(body.status)
  if (Option.isNone(status)) return yield* badRequest("api.context.invalid_body_param.app_error", "Invalid or missing status in request body.")
  const dndEnd = status.value === "dnd" && body.dnd_end_time > 0 ? Math.floor(body.dnd_end_time) : 0
  return yield* respondWith(Status, yield* (yield* Statuses).setManual(userId, status.value, dndEnd))
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.post("/api/v4/users/status/ids", authed(getByIds)),
  HttpRouter.get("/api/v4/users/:user_id/status", authed(getStatus)),
  HttpRouter.put("/api/v4/users/:user_id/status", authed(updateStatus))
)

import { HttpRouter } from "@effect/platform"
import { Effect, Schema } from "effect"
import { Bot } from "../../schemas/wire/Bot.ts"
import { User } from "../../schemas/wire/User.ts"
import type { DbError } from "../../layers/Db.ts"
import { CreateBot, PatchBot } from "../../schemas/Bot.ts"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import { type ApiError, badRequest, forbidden, notFound, permissionDenied } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { respondWith, respondWithAll } from "../http/Respond.ts"
import { toWire as toUserWire } from "../users/UserWire.ts"
import * as Bots from "./Bots.ts"

/** Bot accounts over /api/v4 (Mattermost's routes and error ids). */

const BotParams = Schema.Struct({ bot_user_id: Decode.Id })
const AssignParams = Schema.Struct({ bot_user_id: Decode.Id, user_id: Decode.Id })
const ListQuery = Schema.Struct({
  page: Decode.QueryInt(0, { min: 0 }),
  per_page: Decode.QueryInt(60, { min: 0, max: 200 }),
  include_deleted: Schema.optionalWith(Decode.QueryBool, { default: () => false }),
  only_orphaned: Schema.optionalWith(Decode.QueryBool, { default: () => false })
})
const GetQuery = Schema.Struct({ include_deleted: Schema.optionalWith(Decode.QueryBool, { default: () => false }) })

type BotErrors =
  | Bots.BotsNotPermitted
  | Bots.BotCreationDisabled
  | Bots.BotNotFound
  | Bots.BotOwnerNotFound
  | Bots.BotUsernameTaken
  | Bots.BotBadUsername
  | Bots.BotConvertInvalid
  | Bots.BotUserNotFound

const handle = <A, R>(effect: Effect.Effect<A, BotErrors | ApiError | DbError, R>) =>
  effect.pipe(Effect.catchTags({
    BotsNotPermitted: () => Effect.fail(permissionDenied("bots")),
    BotCreationDisabled: () => Effect.fail(forbidden("api.bot.create_disabled", "Bot creation has been disabled.")),
    BotNotFound: () => Effect.fail(notFound("store.sql_bot.get.missing.app_error", "Bot does not exist.")),
    BotOwnerNotFound: () => Effect.fail(notFound("app.user.missing_account.const", "Unable to find the user.")),
    BotUsernameTaken: () => Effect.fail(badRequest("app.user.save.username_exists.app_error", "An account with that username already exists.")),
    BotBadUsername: (e) => Effect.fail(badRequest("model.bot.is_valid.username.app_error", `Invalid username: ${e.reason}`)),
    BotConvertInvalid: (e) => Effect.fail(badRequest("api.context.invalid_body_param.app_error", `Invalid ${e.field}: ${e.reason}.`)),
    BotUserNotFound: () => Effect.fail(notFound("app.user.missing_account.const", "Unable to find the user, or it is a bot already."))
  }))

const create = handle(Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const body = yield* Decode.body(CreateBot)
  return yield* respondWith(Bot, yield* Bots.create(caller, body), 201)
}))

const list = handle(Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const q = yield* Decode.query(ListQuery)
  return yield* respondWithAll(Bot, yield* Bots.list(caller, { page: q.page, perPage: q.per_page, includeDeleted: q.include_deleted, onlyOrphaned: q.only_orphaned }))
}))

const get = handle(Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { bot_user_id } = yield* Decode.params(BotParams)
  const { include_deleted } = yield* Decode.query(GetQuery)
  return yield* respondWith(Bot, yield* Bots.get(caller, bot_user_id, include_deleted))
}))

const patch = handle(Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { bot_user_id } = yield* Decode.params(BotParams)
  const body = yield* Decode.body(PatchBot)
  return yield* respondWith(Bot, yield* Bots.patch(caller, bot_user_id, body))
}))

const setActive = (active: boolean) => handle(Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { bot_user_id } = yield* Decode.params(BotParams)
  return yield* respondWith(Bot, yield* Bots.setActive(caller, bot_user_id, active))
}))

const assign = handle(Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { bot_user_id, user_id } = yield* Decode.params(AssignParams)
  return yield* respondWith(Bot, yield* Bots.assign(caller, bot_user_id, user_id))
}))

const ConvertBody = Schema.Struct({
  password: Schema.optional(Schema.String.pipe(Schema.maxLength(200, { message: () => "at most 200 characters" }))),
  email: Schema.optional(Schema.String.pipe(Schema.maxLength(128, { message: () => "at most 128 characters" }))),
  username: Schema.optional(Schema.String.pipe(Schema.maxLength(64, { message: () => "at most 64 characters" })))
})
const ConvertQuery = Schema.Struct({ set_system_admin: Schema.optionalWith(Decode.QueryBool, { default: () => false }) })
const UserParams = Schema.Struct({ user_id: Decode.Id })

const convertToUser = handle(Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { bot_user_id } = yield* Decode.params(BotParams)
  const { set_system_admin } = yield* Decode.query(ConvertQuery)
  const body = yield* Decode.body(ConvertBody)
  const row = yield* Bots.convertToUser(caller, bot_user_id, body, set_system_admin)
  return yield* respondWith(User, toUserWire(row, { userId: caller.userId, isSystemAdmin: caller.isSystemAdmin }))
}))

const convertToBot = handle(Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { user_id } = yield* Decode.params(UserParams)
  return yield* respondWith(Bot, yield* Bots.convertToBot(caller, user_id))
}))

export const routes = HttpRouter.empty.pipe(
  HttpRouter.post("/api/v4/bots/:bot_user_id/convert_to_user", authed(convertToUser)),
  HttpRouter.post("/api/v4/users/:user_id/convert_to_bot", authed(convertToBot)),
  HttpRouter.post("/api/v4/bots", authed(create)),
  HttpRouter.get("/api/v4/bots", authed(list)),
  HttpRouter.get("/api/v4/bots/:bot_user_id", authed(get)),
  HttpRouter.put("/api/v4/bots/:bot_user_id", authed(patch)),
  HttpRouter.patch("/api/v4/bots/:bot_user_id", authed(patch)),
  HttpRouter.post("/api/v4/bots/:bot_user_id/disable", authed(setActive(false))),
  HttpRouter.post("/api/v4/bots/:bot_user_id/enable", authed(setActive(true))),
  HttpRouter.post("/api/v4/bots/:bot_user_id/assign/:user_id", authed(assign))
)

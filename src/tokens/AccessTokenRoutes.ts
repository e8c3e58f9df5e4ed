import { HttpRouter } from "@effect/platform"
import { Effect, Schema } from "effect"
import type { DbError } from "../../layers/Db.ts"
import { CreateAccessToken, SearchTokens, TokenIdBody } from "../../schemas/AccessToken.ts"
import type { DomainError } from "../../schemas/Errors.ts"
import { isId, PagingQuery } from "../../schemas/Params.ts"
import { NewUserAccessToken, UserAccessToken } from "../../schemas/wire/AccessToken.ts"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import { ApiError, badRequest, invalidParam, notFound, permissionDenied } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { ok, respondWith, respondWithAll } from "../http/Respond.ts"
import { targetUserId } from "../access/UserParam.ts"
import * as AccessTokens from "./AccessTokens.ts"

/** Personal access tokens over /api/v4 (Mattermost's routes and error ids). */


const CreateBody = Schema.Struct({
  ...CreateAccessToken.fields,
  expires_at: Schema.optionalWith(Schema.Number.pipe(Schema.int(), Schema.nonNegative()), { default: () => 0 })
})

const TokenIdParams = Schema.Struct({ token_id: Decode.Id })

const toApiError = <A, R>(effect: Effect.Effect<A, AccessTokens.TokensDisabled | AccessTokens.TokenNotPermitted | AccessTokens.TokenNotFound | AccessTokens.TokenUserNotFound | AccessTokens.TokenBadInput | ApiError | DomainError | DbError, R>) =>
  effect.pipe(
    Effect.catchTags({
      TokensDisabled: () =>
        Effect.fail(new ApiError({ status: 501, id: "app.user_access_token.disabled", message: "Personal access tokens are disabled on this server. Please contact your system administrator for details." })),
      TokenNotPermitted: () => Effect.fail(permissionDenied("personal access tokens")),
      TokenNotFound: () => Effect.fail(notFound("app.user_access_token.get_by_id.app_error", "Unable to get the personal access token.")),
      TokenUserNotFound: () => Effect.fail(notFound("app.user.missing_account.const", "Unable to find the user.")),
      TokenBadInput: (e) => Effect.fail(badRequest("api.context.invalid_body_param.app_error", `Invalid ${e.field}: ${e.reason}.`))
    })
  )

const tokenIdFromBody = Effect.flatMap(Decode.body(TokenIdBody), ({ token_id }) =>
  isId(token_id) ? Effect.succeed(token_id) : Effect.fail(invalidParam("token_id")))

const create = toApiError(Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const userId = yield* targetUserId
  const body = yield* Decode.body(CreateBody)
  return yield* respondWith(NewUserAccessToken, yield* AccessTokens.create(caller, userId, body.description, body.expires_at))
}))

const listForUser = toApiError(Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const userId = yield* targetUserId
  const { page, per_page } = yield* Decode.query(PagingQuery)
  return yield* respondWithAll(UserAccessToken, yield* AccessTokens.listForUser(caller, userId, page, per_page))
}))

const listAll = toApiError(Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { page, per_page } = yield* Decode.query(PagingQuery)
  return yield* respondWithAll(UserAccessToken, yield* AccessTokens.listAll(caller, page, per_page))
}))

const get = toApiError(Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { token_id } = yield* Decode.params(TokenIdParams)
  return yield* respondWith(UserAccessToken, yield* AccessTokens.get(caller, token_id))
}))

const revoke = toApiError(Effect.gen(function*() {
  const caller = yield* CurrentCaller
  yield* AccessTokens.revoke(caller, yield* tokenIdFromBody)
  return ok()
}))

const setActive = (active: boolean) => toApiError(Effect.gen(function*() {
  const caller = yield* CurrentCaller
  yield* AccessTokens.setActive(caller, yield* tokenIdFromBody, active)
  return ok()
}))

const search = toApiError(Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { term } = yield* Decode.body(SearchTokens)
  return yield* respondWithAll(UserAccessToken, yield* AccessTokens.search(caller, term))
}))

export const routes = HttpRouter.empty.pipe(
  HttpRouter.post("/api/v4/users/:user_id/tokens", authed(create)),
  HttpRouter.get("/api/v4/users/:user_id/tokens", authed(listForUser)),
  HttpRouter.get("/api/v4/users/tokens", authed(listAll)),
  HttpRouter.post("/api/v4/users/tokens/revoke", authed(revoke)),
  HttpRouter.post("/api/v4/users/tokens/disable", authed(setActive(false))),
  HttpRouter.post("/api/v4/users/tokens/enable", authed(setActive(true))),
  HttpRouter.post("/api/v4/users/tokens/search", authed(search)),
  HttpRouter.get("/api/v4/users/tokens/:token_id", authed(get))
)

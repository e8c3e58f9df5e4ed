import { HttpRouter } from "@effect/platform"
import { Effect, Schema } from "effect"
import type { DbError } from "../../layers/Db.ts"
import { CreateOutgoingWebhook, UpdateOutgoingWebhook } from "../../schemas/OutgoingWebhook.ts"
import { requireCaller } from "../auth/Authenticate.ts"
import { ApiError, badRequest, notFound, permissionDenied } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { created, json, ok } from "../http/Respond.ts"
import type { HookBadInput, HookNotFound, HookNotPermitted } from "./IncomingWebhooks.ts"
import * as Hooks from "./OutgoingWebhooks.ts"

/** Outgoing webhooks management under /api/v4/hooks/outgoing. */

const HookParams = Schema.Struct({ hook_id: Decode.Id })
const IdOrEmpty = Schema.String.pipe(Schema.pattern(/^([a-z0-9]{26})?$/, { message: () => "a 26-character id" }))
const ListQuery = Schema.Struct({
  page: Decode.QueryInt(0, { min: 0 }),
  per_page: Decode.QueryInt(60, { min: 0, max: 200 }),
  team_id: Schema.optionalWith(IdOrEmpty, { default: () => "" }),
  channel_id: Schema.optionalWith(IdOrEmpty, { default: () => "" })
})

type HookErrors = Hooks.OutgoingHooksDisabled | HookNotPermitted | HookNotFound | HookBadInput

const handle = <A, R>(effect: Effect.Effect<A, HookErrors | ApiError | DbError, R>) =>
  effect.pipe(Effect.catchTags({
    OutgoingHooksDisabled: () => Effect.fail(new ApiError({ status: 501, id: "api.outgoing_webhook.disabled.app_error", message: "Outgoing webhooks have been disabled by the system admin." })),
    HookNotPermitted: () => Effect.fail(permissionDenied("outgoing webhooks")),
    HookNotFound: () => Effect.fail(notFound("app.webhooks.get_outgoing.app_error", "Unable to get the webhook.")),
    HookBadInput: (e) => Effect.fail(new ApiError({ status: e.status, id: e.id, message: e.message }))
  }))

const create = handle(Effect.gen(function*() {
  const caller = yield* requireCaller
  const body = yield* Decode.body(CreateOutgoingWebhook)
  return created(yield* Hooks.create(caller, body))
}))

const list = handle(Effect.gen(function*() {
  const caller = yield* requireCaller
  const q = yield* Decode.query(ListQuery)
  return json(yield* Hooks.list(caller, { teamId: q.team_id, channelId: q.channel_id, page: q.page, perPage: q.per_page }))
}))

const get = handle(Effect.gen(function*() {
  const caller = yield* requireCaller
  const { hook_id } = yield* Decode.params(HookParams)
  return json(yield* Hooks.get(caller, hook_id))
}))

const update = handle(Effect.gen(function*() {
  const caller = yield* requireCaller
  const { hook_id } = yield* Decode.params(HookParams)
  const body = yield* Decode.body(UpdateOutgoingWebhook)
  if (body.id !== hook_id) return yield* badRequest("api.context.invalid_param.app_error", "Invalid or missing hook_id parameter in request body.")
  return json(yield* Hooks.update(caller, hook_id, body))
}))

const regenToken = handle(Effect.gen(function*() {
  const caller = yield* requireCaller
  const { hook_id } = yield* Decode.params(HookParams)
  return json(yield* Hooks.regenToken(caller, hook_id))
}))

const remove = handle(Effect.gen(function*() {
  const caller = yield* requireCaller
  const { hook_id } = yield* Decode.params(HookParams)
  yield* Hooks.remove(caller, hook_id)
  return ok()
}))

export const routes = HttpRouter.empty.pipe(
  HttpRouter.post("/api/v4/hooks/outgoing", create),
  HttpRouter.get("/api/v4/hooks/outgoing", list),
  HttpRouter.get("/api/v4/hooks/outgoing/:hook_id", get),
  HttpRouter.put("/api/v4/hooks/outgoing/:hook_id", update),
  HttpRouter.del("/api/v4/hooks/outgoing/:hook_id", remove),
  HttpRouter.post("/api/v4/hooks/outgoing/:hook_id/regen_token", regenToken)
)

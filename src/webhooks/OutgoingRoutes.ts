import { HttpRouter } from "@effect/platform"
import { Effect, Schema } from "effect"
import type { DbError } from "../../layers/Db.ts"
import { CreateOutgoingWebhook, UpdateOutgoingWebhook } from "../../schemas/OutgoingWebhook.ts"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import { ApiError, notFound, permissionDenied } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { ok, respondWith, respondWithAll } from "../http/Respond.ts"
import { OutgoingWebhook } from "../../schemas/wire/Webhook.ts"
import type { HookBadInput, HookNotFound, HookNotPermitted } from "./IncomingWebhooks.ts"
import { onHook, onHookUpdate } from "./HookRoutes.ts"
import * as Hooks from "./OutgoingWebhooks.ts"
import { isId } from "../../schemas/Params.ts"

/** Outgoing webhooks management under /api/v4/hooks/outgoing. */

const IdOrEmpty = Schema.String.pipe(Schema.filter((s) => s === "" || isId(s), { message: () => "a 26-character id" }))
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
  const caller = yield* CurrentCaller
  const body = yield* Decode.body(CreateOutgoingWebhook)
  return yield* respondWith(OutgoingWebhook, yield* Hooks.create(caller, body), 201)
}))

const list = handle(Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const q = yield* Decode.query(ListQuery)
  return yield* respondWithAll(OutgoingWebhook, yield* Hooks.list(caller, { teamId: q.team_id, channelId: q.channel_id, page: q.page, perPage: q.per_page }))
}))

const answer = (hook: OutgoingWebhook) => respondWith(OutgoingWebhook, hook)

const get = handle(onHook((caller, hookId) => Effect.flatMap(Hooks.get(caller, hookId), answer)))

const update = handle(onHookUpdate(UpdateOutgoingWebhook, (caller, hookId, body) => Effect.flatMap(Hooks.update(caller, hookId, body), answer)))

const regenToken = handle(onHook((caller, hookId) => Effect.flatMap(Hooks.regenToken(caller, hookId), answer)))

const remove = handle(onHook((caller, hookId) => Effect.as(Hooks.remove(caller, hookId), ok())))

export const routes = HttpRouter.empty.pipe(
  HttpRouter.post("/api/v4/hooks/outgoing", authed(create)),
  HttpRouter.get("/api/v4/hooks/outgoing", authed(list)),
  HttpRouter.get("/api/v4/hooks/outgoing/:hook_id", authed(get)),
  HttpRouter.put("/api/v4/hooks/outgoing/:hook_id", authed(update)),
  HttpRouter.del("/api/v4/hooks/outgoing/:hook_id", authed(remove)),
  HttpRouter.post("/api/v4/hooks/outgoing/:hook_id/regen_token", authed(regenToken))
)

import { HttpRouter } from "@effect/platform"
import { Clock, Effect, Schema } from "effect"
import { DomainEvent, type EventOf } from "../../schemas/Events.ts"
import { PostAcknowledgement } from "../../schemas/wire/PostMetadata.ts"
import { Access } from "../access/Access.ts"
import type { Caller } from "../auth/Authenticate.ts"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import { EventBus } from "../events/EventBus.ts"
import { forbidden } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { ok, respondWith } from "../http/Respond.ts"
import * as AckRepo from "./AckRepo.ts"
import { OwnUserParam, ownUser } from "./OwnUser.ts"
import type { AcknowledgementJson } from "./PostWire.ts"

/**
 * Post acknowledgements (api4/post.go acknowledgePost / unacknowledgePost): a reader of the post acknowledges it for
 * themself; posts list them in `metadata.acknowledgements`. The removal window is AckRepo's.
 */
const AckParams = Schema.Struct({ user_id: OwnUserParam, post_id: Decode.Id })

const toWire = (row: AckRepo.AckRow): AcknowledgementJson => ({
  user_id: row.user_id,
  post_id: row.post_id,
  acknowledged_at: Number(row.acknowledged_at)
})

/** The caller acting for themself on a post they may read, in a channel that is not archived. */
const acknowledgeable = (caller: Caller, archivedId: string) =>
  Effect.gen(function*() {
    const params = yield* Decode.params(AckParams)
    const userId = yield* ownUser(params.user_id)
    const access = yield* Access
    const { channel } = yield* access.post(caller, params.post_id, "read")
    if (channel.delete_at > 0) {
      return yield* forbidden(archivedId, "Cannot acknowledge posts in an archived channel.")
    }
    return { userId, postId: params.post_id, channelId: channel.id }
  })

const announce = (event: EventOf<"AcknowledgementAdded" | "AcknowledgementRemoved">, channelId: string) =>
  Effect.flatMap(EventBus, (bus) => bus.publish(event, { channel_id: channelId }))

/** Acknowledging again moves acknowledged_at to now (Mattermost's upsert), which restarts the removal window. */
const acknowledge = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const target = yield* acknowledgeable(caller, "api.acknowledgement.save.archived_channel.app_error")
  const row = yield* AckRepo.acknowledge(target.postId, target.userId, yield* Clock.currentTimeMillis)
  const ack = toWire(row)
  yield* announce(DomainEvent.AcknowledgementAdded({ acknowledgement: ack }), target.channelId)
  return yield* respondWith(PostAcknowledgement, ack)
})

const unacknowledge = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const target = yield* acknowledgeable(caller, "api.acknowledgement.delete.archived_channel.app_error")
  const removed = yield* AckRepo.unacknowledge(target.postId, target.userId, yield* Clock.currentTimeMillis)
  yield* announce(DomainEvent.AcknowledgementRemoved({ acknowledgement: toWire(removed) }), target.channelId)
  return ok()
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.post("/api/v4/users/:user_id/posts/:post_id/ack", authed(acknowledge)),
  HttpRouter.del("/api/v4/users/:user_id/posts/:post_id/ack", authed(unacknowledge))
)

import { Effect, Layer } from "effect"
import { EventBus, type LocalEnvelope } from "../events/EventBus.ts"
import { Push, type PushIntent } from "./Push.ts"

/**
 * Turns this node's own events into push intents: each write is pushed once, by the node that handled it. A post
 * may notify its channel's members; reading channels clears their notifications on the user's other devices. Local
 * events carry the typed event (`domain`), so the post arrives as the object the writer built: no JSON round trip.
 */
const intentOf = (envelope: LocalEnvelope): PushIntent | undefined => {
  const event = envelope.domain
  const userId = envelope.broadcast.user_id
  switch (event?._tag) {
    case "Posted":
      return { _tag: "Posted", post: event.post }
    case "ChannelViewed":
      return userId !== "" ? { _tag: "Viewed", userId, channelIds: [event.channelId] } : undefined
    case "MultipleChannelsViewed":
      return userId !== "" ? { _tag: "Viewed", userId, channelIds: Object.keys(event.channelTimes) } : undefined
    default:
      return undefined
  }
}

export const layer = Layer.scopedDiscard(
  Effect.gen(function*() {
    const bus = yield* EventBus
    const push = yield* Push
    // Synchronously in publish: a filter and an offer (issue 10: a Stream per subscriber cost a tenth of a post).
    yield* bus.onLocal((envelope) => {
      const intent = intentOf(envelope)
      if (intent !== undefined) push.submitNow(intent)
    })
  })
)

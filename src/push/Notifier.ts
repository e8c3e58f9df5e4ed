import { Effect, Layer, Stream } from "effect"
import { type Envelope, EventBus } from "../events/EventBus.ts"
import { Push, type PushIntent } from "./Push.ts"

/**
 * Turns this node's own events into push intents: each write is pushed once, by the node that handled it. A post
 * may notify its channel's members; reading channels clears their notifications on the user's other devices.
 */
const intentOf = (envelope: Envelope): PushIntent | undefined => {
  switch (envelope.event) {
    case "posted":
      return { _tag: "Posted", data: envelope.data }
    case "channel_viewed": {
      const channelId = envelope.data.channel_id
      return typeof channelId === "string" && envelope.broadcast.user_id !== ""
        ? { _tag: "Viewed", userId: envelope.broadcast.user_id, channelIds: [channelId] }
        : undefined
    }
    case "multiple_channels_viewed": {
      const times = envelope.data.channel_times
      return typeof times === "object" && times !== null && envelope.broadcast.user_id !== ""
        ? { _tag: "Viewed", userId: envelope.broadcast.user_id, channelIds: Object.keys(times) }
        : undefined
    }
    default:
      return undefined
  }
}

export const layer = Layer.scopedDiscard(
  Effect.gen(function*() {
    const bus = yield* EventBus
    const push = yield* Push
    const events = yield* bus.subscribeLocal
    yield* Effect.forkScoped(
      Stream.runForEach(events, (envelope) => {
        const intent = intentOf(envelope)
        return intent === undefined ? Effect.void : push.submit(intent)
      })
    )
  })
)

import { Effect } from "effect"
import { DomainEvent } from "../../schemas/Events.ts"
import { EventBus } from "../events/EventBus.ts"
import { Hub } from "./Hub.ts"

/**
 * "Someone is typing" in a channel or thread, to the channel's other members: from a socket's `user_typing` action or
 * from POST /users/{user_id}/typing. Throttled per user and channel by the hub (Typing.ts); the typist's own sockets
 * are left out.
 */
export const relayTyping = (userId: string, channelId: string, parentId: string) =>
  Effect.gen(function*() {
    const hub = yield* Hub
    const bus = yield* EventBus
    yield* hub.typing(userId, channelId, bus.publish(DomainEvent.Typing({ parentId, userId }), {
      channel_id: channelId,
      omit_users: { [userId]: true }
    }))
  })

import { Clock, Effect } from "effect"
import { DomainEvent } from "../../schemas/Events.ts"
import { directName } from "../channels/ChannelWire.ts"
import { ensureDirect } from "../channels/DirectChannels.ts"
import { EventBus } from "../events/EventBus.ts"
import { actingAs } from "../integrations/ActingCaller.ts"
import { createPost } from "../posts/CreatePost.ts"
import { SystemBot } from "./SystemBot.ts"

/**
 * A direct message from the system bot to one user (a reminder, a test notification), written as any post is, so
 * that it reaches the user's sockets and, by their settings, their devices and mailbox. The direct channel is created
 * the first time, and the user's clients are told of it.
 */
export const messageFromSystemBot = (userId: string, message: string, trusted: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const botId = yield* Effect.flatMap(SystemBot, (b) => b.userId)
    const { channel, created } = yield* ensureDirect("D", directName(botId, userId), "", botId, [...new Set([botId, userId])])
    if (created) {
      yield* Effect.flatMap(EventBus, (bus) =>
        bus.publish(DomainEvent.DirectAdded({ creatorId: botId, teammateId: userId }), { channel_id: channel.id }))
    }
    const bot = yield* actingAs({ id: botId, roles: "system_user", is_bot: true }, yield* Clock.currentTimeMillis)
    return yield* createPost(bot, { channel_id: channel.id, message, root_id: "", file_ids: [], props: {}, pending_post_id: "", type: "" }, false, trusted)
  })

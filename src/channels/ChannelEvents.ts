import { Effect } from "effect"
import type { EventBusService } from "../events/EventBus.ts"
import type { ChannelRow } from "./ChannelWire.ts"
import { toChannel } from "./ChannelWire.ts"
import type { NewMember } from "./Membership.ts"

/** The channel events of mattermost-compat.md section 9, published after commit. */

export const usersAdded = (bus: EventBusService, members: ReadonlyArray<NewMember>) =>
  Effect.forEach(members, (m) =>
    bus.publish("user_added", { user_id: m.userId, team_id: m.channel.team_id }, { channel_id: m.channel.id }), { discard: true })

/** Two copies, as Mattermost sends them: to the channel's members and to the removed user. */
export const userRemoved = (bus: EventBusService, channelId: string, userId: string, removerId: string) =>
  Effect.zipRight(
    bus.publish("user_removed", { user_id: userId, remover_id: removerId }, { channel_id: channelId }),
    bus.publish("user_removed", { channel_id: channelId, remover_id: removerId }, { user_id: userId })
  )

export const channelUpdated = (bus: EventBusService, row: ChannelRow) =>
  bus.publish("channel_updated", { channel: JSON.stringify(toChannel(row)) }, { channel_id: row.id })

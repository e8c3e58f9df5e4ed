import { Effect } from "effect"
import { DomainEvent } from "../../schemas/Events.ts"
import type { EventBusService } from "../events/EventBus.ts"
import type { ChannelRow } from "./ChannelWire.ts"
import { toChannel } from "./ChannelWire.ts"
import type { NewMember } from "./Membership.ts"

/** The channel events of mattermost-compat.md section 9, published after commit. */

export const usersAdded = (bus: EventBusService, members: ReadonlyArray<NewMember>) =>
  Effect.forEach(members, (m) =>
    bus.publish(DomainEvent.UserAdded({ userId: m.userId, teamId: m.channel.team_id }), { channel_id: m.channel.id }), { discard: true })

/** Two copies, as Mattermost sends them: to the channel's members and to the removed user. */
export const userRemoved = (bus: EventBusService, channelId: string, userId: string, removerId: string) =>
  Effect.zipRight(
    bus.publish(DomainEvent.UserRemoved({ userId, removerId }), { channel_id: channelId }),
    bus.publish(DomainEvent.RemovedFromChannel({ channelId, removerId }), { user_id: userId })
  )

export const channelUpdated = (bus: EventBusService, row: ChannelRow) =>
  bus.publish(DomainEvent.ChannelUpdated({ channel: toChannel(row) }), { channel_id: row.id })

import type { DomainEvent, EventOf, EventTag } from "../../schemas/Events.ts"
import type { Broadcast } from "../events/EventBus.ts"
import type { Subscriptions } from "./Subscriptions.ts"

/**
 * Keeps subscriptions in step with membership events (payloads of mattermost-compat.md section 9), applied before
 * the event itself is delivered: the user added to a channel receives its `user_added`, the creator of a DM its
 * `direct_added`, and a removed user no longer receives the channel's copy of `user_removed` (they get their own).
 * Another node's events reach here typed too (schemas/Events.ts `fromWire` decodes every tag listed here).
 */
type Apply<T extends EventTag> = (subscriptions: Subscriptions, event: EventOf<T>, broadcast: Broadcast) => void

const steps: { readonly [T in EventTag]?: Apply<T> } = {
  UserAdded: (subscriptions, event, broadcast) => subscriptions.addChannel(event.userId, broadcast.channel_id),
  // Two copies of a removal: to the channel (who left) and to the removed user (which channel).
  UserRemoved: (subscriptions, event, broadcast) => subscriptions.removeChannel(event.userId, broadcast.channel_id),
  RemovedFromChannel: (subscriptions, event, broadcast) => subscriptions.removeChannel(broadcast.user_id, event.channelId),
  DirectAdded: (subscriptions, event, broadcast) => {
    subscriptions.addChannel(event.creatorId, broadcast.channel_id)
    subscriptions.addChannel(event.teammateId, broadcast.channel_id)
  },
  GroupAdded: (subscriptions, event, broadcast) => {
    for (const id of event.teammateIds) subscriptions.addChannel(id, broadcast.channel_id)
  },
  ChannelCreated: (subscriptions, event, broadcast) => subscriptions.addChannel(broadcast.user_id, event.channelId),
  AddedToTeam: (subscriptions, event) => subscriptions.addTeam(event.userId, event.teamId),
  LeaveTeam: (subscriptions, event) => subscriptions.removeTeam(event.userId, event.teamId)
}

/** The events that change subscriptions. */
export const membershipEvents: ReadonlyArray<EventTag> = Object.keys(steps) as Array<EventTag>

export const applyMembership = (subscriptions: Subscriptions, event: DomainEvent, broadcast: Broadcast) => {
  const step = steps[event._tag] as Apply<EventTag> | undefined
  if (step !== undefined) step(subscriptions, event, broadcast)
}

import type { Envelope } from "../events/EventBus.ts"
import type { Subscriptions } from "./Subscriptions.ts"

/**
 * Keeps subscriptions in step with membership events (payloads of mattermost-compat.md section 9), applied before
 * the event itself is delivered: the user added to a channel receives its `user_added`, the creator of a DM its
 * `direct_added`, and a removed user no longer receives the channel's copy of `user_removed` (they get their own).
 */
const str = (value: unknown) => (typeof value === "string" ? value : "")

const ids = (value: unknown): ReadonlyArray<string> => {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string")
  if (typeof value !== "string" || value === "") return []
  try {
    return ids(JSON.parse(value))
  } catch {
    return []
  }
}

export const applyMembership = (subscriptions: Subscriptions, envelope: Envelope) => {
  const { data, broadcast } = envelope
  switch (envelope.event) {
    case "user_added":
      subscriptions.addChannel(str(data.user_id), broadcast.channel_id)
      return
    case "user_removed":
      // Two copies: to the channel (data.user_id left) and to the removed user (data.channel_id).
      if (broadcast.channel_id !== "") subscriptions.removeChannel(str(data.user_id), broadcast.channel_id)
      else subscriptions.removeChannel(broadcast.user_id, str(data.channel_id))
      return
    case "direct_added":
      subscriptions.addChannel(str(data.creator_id), broadcast.channel_id)
      subscriptions.addChannel(str(data.teammate_id), broadcast.channel_id)
      return
    case "group_added":
      for (const id of ids(data.teammate_ids)) subscriptions.addChannel(id, broadcast.channel_id)
      return
    case "channel_created":
      subscriptions.addChannel(broadcast.user_id, str(data.channel_id))
      return
    case "added_to_team":
      subscriptions.addTeam(str(data.user_id) || broadcast.user_id, str(data.team_id))
      return
    case "leave_team":
      subscriptions.removeTeam(str(data.user_id), str(data.team_id) || broadcast.team_id)
      return
  }
}

import { Effect } from "effect"
import * as ChannelEvents from "../channels/ChannelEvents.ts"
import type { EventBusService } from "../events/EventBus.ts"
import type { TeamJoin } from "./Membership.ts"
import { type TeamRow, toTeam } from "./TeamWire.ts"

/** The team events of mattermost-compat.md section 9, published after commit. */

export const joined = (bus: EventBusService, teamId: string, join: TeamJoin) =>
  Effect.zipRight(
    Effect.forEach(join.users, (userId) => bus.publish("added_to_team", { team_id: teamId, user_id: userId }, { user_id: userId }), { discard: true }),
    ChannelEvents.usersAdded(bus, join.channels)
  )

/** Two copies: the team's remaining members, and the leaver (who is no longer a member). */
export const left = (bus: EventBusService, teamId: string, userId: string) =>
  Effect.zipRight(
    bus.publish("leave_team", { user_id: userId, team_id: teamId }, { team_id: teamId, omit_users: { [userId]: true } }),
    bus.publish("leave_team", { user_id: userId, team_id: teamId }, { user_id: userId })
  )

export const updated = (bus: EventBusService, row: TeamRow) =>
  bus.publish("update_team", { team: JSON.stringify(toTeam(row, false)) }, { team_id: row.id })

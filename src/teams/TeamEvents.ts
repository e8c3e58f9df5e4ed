import { Effect } from "effect"
import { DomainEvent } from "../../schemas/Events.ts"
import * as ChannelEvents from "../channels/ChannelEvents.ts"
import type { EventBusService } from "../events/EventBus.ts"
import type { TeamJoin } from "./Membership.ts"
import { type TeamRow, toTeam } from "./TeamWire.ts"

/** The team events of mattermost-compat.md section 9, published after commit. */

export const joined = (bus: EventBusService, teamId: string, join: TeamJoin) =>
  Effect.zipRight(
    Effect.forEach(join.users, (userId) => bus.publish(DomainEvent.AddedToTeam({ teamId, userId }), { user_id: userId }), { discard: true }),
    ChannelEvents.usersAdded(bus, join.channels)
  )

/** Two copies: the team's remaining members, and the leaver (who is no longer a member). */
export const left = (bus: EventBusService, teamId: string, userId: string) =>
  Effect.zipRight(
    bus.publish(DomainEvent.LeaveTeam({ userId, teamId }), { team_id: teamId, omit_users: { [userId]: true } }),
    bus.publish(DomainEvent.LeaveTeam({ userId, teamId }), { user_id: userId })
  )

export const updated = (bus: EventBusService, row: TeamRow) =>
  bus.publish(DomainEvent.TeamUpdated({ team: toTeam(row, "public") }), { team_id: row.id })

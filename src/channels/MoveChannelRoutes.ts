import { HttpRouter } from "@effect/platform"
import { Effect, Schema } from "effect"
import { DomainEvent } from "../../schemas/Events.ts"
import { Channel } from "../../schemas/wire/Channel.ts"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import { EventBus } from "../events/EventBus.ts"
import { badRequest } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { respondWith } from "../http/Respond.ts"
import * as SystemPosts from "../posts/SystemPosts.ts"
import { accountLimits } from "../system/ServerSettings.ts"
import * as ChannelEvents from "./ChannelEvents.ts"
import { move } from "./ChannelMove.ts"
import * as ChannelRepo from "./ChannelRepo.ts"
import { toChannel } from "./ChannelWire.ts"

const ChannelIdParams = Schema.Struct({ channel_id: Decode.Id })
const MoveBody = Schema.Struct({ team_id: Decode.Id, force: Schema.optionalWith(Schema.Boolean, { default: () => false }) })

/**
 * POST /api/v4/channels/{channel_id}/move (system admins, as Mattermost): a public or private channel, not a team's
 * default channel, to another live team; see ChannelMove.move for the rules. Members taken out (force) are told as a
 * removal; the channel's new team is told by channel_updated on both teams.
 */
const moveChannel = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { channel_id } = yield* Decode.params(ChannelIdParams)
  const input = yield* Decode.body(MoveBody)
  const channel = yield* ChannelRepo.channelById(channel_id)
  if (channel.type !== "O" && channel.type !== "P") {
    return yield* badRequest("api.channel.move_channel.type.invalid", "Only public and private channels can be moved to another team.")
  }
  if (channel.name === "town-square") {
    return yield* badRequest("api.channel.move_channel.default_channel.app_error", "A team's default channel cannot be moved.")
  }
  if (channel.team_id === input.team_id) return yield* badRequest("api.channel.move_channel.same_team.app_error", "The channel is already in that team.")
  const { maxChannelsPerTeam } = yield* accountLimits
  const { channel: moved, removed } = yield* move(channel_id, input.team_id, input.force, maxChannelsPerTeam)
  const bus = yield* EventBus
  for (const userId of removed) yield* ChannelEvents.userRemoved(bus, channel_id, userId, caller.userId)
  yield* ChannelEvents.channelUpdated(bus, moved)
  yield* SystemPosts.moved({ ...moved, delete_at: Number(moved.delete_at) }, caller.userId, channel.team_id)
  // The old team's members who had it open hear of it there.
  yield* bus.publish(DomainEvent.ChannelUpdated({ channel: toChannel(moved) }), { team_id: channel.team_id })
  return yield* respondWith(Channel, toChannel(moved))
})

export const routes = HttpRouter.empty.pipe(HttpRouter.post("/api/v4/channels/:channel_id/move", authed.admin(moveChannel)))

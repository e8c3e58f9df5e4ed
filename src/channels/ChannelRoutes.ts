import { HttpRouter } from "@effect/platform"
import { Clock, Effect, Schema } from "effect"
import { DomainEvent } from "../../schemas/Events.ts"
import { Channel, ChannelStats, ChannelTimezones } from "../../schemas/wire/Channel.ts"
import { Access } from "../access/Access.ts"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import { EventBus } from "../events/EventBus.ts"
import { badRequest, permissionDenied } from "../http/ApiError.ts"
import { need } from "../access/Permission.ts"
import * as Decode from "../http/Decode.ts"
import { ok, respondWith } from "../http/Respond.ts"
import * as ChannelEvents from "./ChannelEvents.ts"
import * as ChannelRepo from "./ChannelRepo.ts"
import { channelNameProblem, fieldsProblem } from "./ChannelValidation.ts"
import { toChannel } from "./ChannelWire.ts"
import { openDirect, openGroup } from "./DirectChannels.ts"
import * as RateLimit from "../ratelimit/RateLimit.ts"
import * as SystemPosts from "../posts/SystemPosts.ts"
import { accountLimits } from "../system/ServerSettings.ts"

/** Channels: create, read, patch, archive, restore, privacy, DMs and GMs, stats. */

const ChannelIdParams = Schema.Struct({ channel_id: Decode.Id })

const CreateChannelBody = Schema.Struct({
  team_id: Decode.Id,
  name: Schema.String,
  display_name: Schema.String,
  type: Schema.Literal("O", "P"),
  header: Schema.optionalWith(Schema.String, { default: () => "" }),
  purpose: Schema.optionalWith(Schema.String, { default: () => "" })
})

const ChannelPatch = Schema.Struct({
  name: Schema.optional(Schema.String),
  display_name: Schema.optional(Schema.String),
  header: Schema.optional(Schema.String),
  purpose: Schema.optional(Schema.String)
})

const fieldError = (fields: Parameters<typeof fieldsProblem>[0]) => {
  const problem = fieldsProblem(fields)
  return problem === undefined ? Effect.void : Effect.fail(badRequest(problem[0], problem[1]))
}

const createChannel = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const input = yield* Decode.body(CreateChannelBody)
  const access = yield* Access
  const team = yield* access.teamMember(caller, input.team_id)
  yield* need(team, input.type === "P" ? "create_private_channel" : "create_public_channel")
  const name = input.name.trim()
  const nameProblem = channelNameProblem(name)
  if (nameProblem !== undefined) return yield* badRequest("model.channel.is_valid.name.app_error", nameProblem)
  yield* fieldError(input)
  yield* RateLimit.enforceCreation(caller.userId)
  const { maxChannelsPerTeam } = yield* accountLimits
  const now = yield* Clock.currentTimeMillis
  const { channel, added } = yield* ChannelRepo.create({
    teamId: input.team_id,
    type: input.type,
    name,
    displayName: input.display_name.trim(),
    header: input.header,
    purpose: input.purpose,
    creatorId: caller.userId
  }, now, maxChannelsPerTeam)
  const bus = yield* EventBus
  yield* bus.publish(DomainEvent.ChannelCreated({ channelId: channel.id, teamId: channel.team_id }), { user_id: caller.userId })
  yield* ChannelEvents.usersAdded(bus, added)
  return yield* respondWith(Channel, toChannel(channel), 201)
})

const getChannel = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { channel_id } = yield* Decode.params(ChannelIdParams)
  const access = yield* Access
  yield* access.channel(caller, channel_id, "read")
  return yield* respondWith(Channel, toChannel(yield* ChannelRepo.channelById(channel_id)))
})

/**
 * A team channel's properties take manage_public/private_channel_properties in it (members by default); DMs and GMs
 * only have a header and purpose, no name, which their members may change.
 */
const patchChannel = (partial: boolean) =>
  Effect.gen(function*() {
    const caller = yield* CurrentCaller
    const { channel_id } = yield* Decode.params(ChannelIdParams)
    const access = yield* Access
    const granted = yield* access.channel(caller, channel_id, "write")
    const { channel } = granted
    const patch = yield* Decode.body(ChannelPatch)
    if (channel.delete_at !== 0) {
      return yield* badRequest("api.channel.update_channel.deleted.app_error", "The channel has been archived or deleted.")
    }
    const direct = channel.type === "D" || channel.type === "G"
    if (!direct) yield* need(granted, channel.type === "P" ? "manage_private_channel_properties" : "manage_public_channel_properties")
    if (direct && (patch.name !== undefined || patch.display_name !== undefined)) {
      return yield* badRequest("api.channel.update_channel.tried.app_error", "Direct and group message channels have no name to change.")
    }
    if (!partial && !direct && patch.display_name === undefined) {
      return yield* badRequest("model.channel.is_valid.display_name.app_error", "Display name is required.")
    }
    const name = patch.name?.trim()
    if (name !== undefined) {
      const nameProblem = channelNameProblem(name)
      if (nameProblem !== undefined) return yield* badRequest("model.channel.is_valid.name.app_error", nameProblem)
      if (name !== channel.name && channel.name === "town-square") {
        return yield* badRequest("api.channel.update_channel.tried.app_error", "The default channel cannot be renamed.")
      }
    }
    yield* fieldError(patch)
    const now = yield* Clock.currentTimeMillis
    const before = yield* ChannelRepo.channelById(channel.id)
    const updated = yield* ChannelRepo.patch(channel, {
      name,
      displayName: patch.display_name?.trim(),
      header: patch.header,
      purpose: patch.purpose
    }, now)
    const bus = yield* EventBus
    yield* ChannelEvents.channelUpdated(bus, updated)
    yield* SystemPosts.propertiesChanged(channel, caller.userId, before, updated)
    return yield* respondWith(Channel, toChannel(updated))
  })

/** Archives (soft-deletes) a team channel: delete_public/private_channel in it (members by default). */
const archiveChannel = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { channel_id } = yield* Decode.params(ChannelIdParams)
  const access = yield* Access
  const granted = yield* access.channel(caller, channel_id, "write")
  const { channel } = granted
  if (channel.type === "D" || channel.type === "G") {
    return yield* badRequest("api.channel.delete_channel.type.invalid", "Direct and group message channels cannot be archived.")
  }
  yield* need(granted, channel.type === "P" ? "delete_private_channel" : "delete_public_channel")
  if (channel.name === "town-square") {
    return yield* badRequest("api.channel.delete_channel.cannot.app_error", "Unable to delete the default channel town-square.")
  }
  if (channel.delete_at !== 0) {
    return yield* badRequest("api.channel.delete_channel.deleted.app_error", "The channel has been archived or deleted.")
  }
  // Posted before the channel is archived, as Mattermost does: the post is the channel's last.
  yield* SystemPosts.archived(channel, caller.userId)
  const now = yield* Clock.currentTimeMillis
  yield* ChannelRepo.archive(channel_id, now)
  const bus = yield* EventBus
  yield* bus.publish(DomainEvent.ChannelDeleted({ channelId: channel_id, deleteAt: now }), { team_id: channel.team_id })
  return ok()
})

/** Restoring takes manage_team in the channel's team (team admins by default), as in Mattermost. */
const restoreChannel = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { channel_id } = yield* Decode.params(ChannelIdParams)
  const access = yield* Access
  const { channel } = yield* access.channel(caller, channel_id, "read")
  yield* need(yield* access.teamMember(caller, channel.team_id), "manage_team")
  if (channel.delete_at === 0) {
    return yield* badRequest("api.channel.restore_channel.restored.app_error", "The channel is not archived.")
  }
  const restored = yield* ChannelRepo.restore(channel_id, yield* Clock.currentTimeMillis)
  const bus = yield* EventBus
  yield* bus.publish(DomainEvent.ChannelRestored({ channelId: channel_id }), { team_id: channel.team_id })
  yield* SystemPosts.restored({ ...channel, delete_at: 0 }, caller.userId)
  return yield* respondWith(Channel, toChannel(restored))
})

const PrivacyBody = Schema.Struct({ privacy: Schema.Literal("O", "P") })

/** Converts between public and private: convert_public_channel_to_private or the reverse in it (team admins by default). */
const updatePrivacy = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { channel_id } = yield* Decode.params(ChannelIdParams)
  const access = yield* Access
  const granted = yield* access.channel(caller, channel_id, "read")
  const { channel } = granted
  const { privacy } = yield* Decode.body(PrivacyBody)
  if (channel.type !== "O" && channel.type !== "P") {
    return yield* badRequest("api.channel.update_channel_privacy.invalid_type.app_error", "Only team channels have a privacy setting.")
  }
  yield* need(granted, privacy === "P" ? "convert_public_channel_to_private" : "convert_private_channel_to_public")
  if (channel.name === "town-square" && privacy === "P") {
    return yield* badRequest("api.channel.convert_channel_to_private.default_channel_error", "The default channel cannot be private.")
  }
  const converted = yield* ChannelRepo.setPrivacy(channel_id, privacy, yield* Clock.currentTimeMillis)
  const bus = yield* EventBus
  yield* bus.publish(DomainEvent.ChannelConverted({ channelId: channel_id, channelType: privacy }), { team_id: channel.team_id })
  yield* ChannelEvents.channelUpdated(bus, converted)
  if (channel.type !== privacy) yield* SystemPosts.privacyChanged({ ...channel, type: privacy }, caller.userId, privacy)
  return yield* respondWith(Channel, toChannel(converted))
})

const knownUsers = (ids: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const rows = yield* ChannelRepo.activeUsers(ids)
    if (rows.length !== ids.length) return yield* badRequest("api.channel.create_channel.direct_channel.app_error", "Unknown user.")
    return rows
  })

/** Creates the channel unless one of that name exists, then makes sure every user is a member. */
const DirectBody = Schema.Tuple(Decode.Id, Decode.Id)

const createDirect = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const ids = yield* Decode.body(DirectBody)
  yield* need(caller, "create_direct_channel")
  if (!ids.includes(caller.userId) && !caller.isSystemAdmin) return yield* permissionDenied("this direct channel")
  yield* knownUsers([...new Set(ids)])
  return yield* respondWith(Channel, toChannel(yield* openDirect(caller.userId, ids[0], ids[1])), 201)
})

const GROUP_MIN = 3
const GROUP_MAX = 8
const GroupBody = Schema.Array(Decode.Id).pipe(Schema.maxItems(100))

const createGroup = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const ids = yield* Decode.body(GroupBody)
  yield* need(caller, "create_group_channel")
  const members = [...new Set([...ids, caller.userId])]
  if (members.length < GROUP_MIN || members.length > GROUP_MAX) {
    return yield* badRequest("api.channel.create_group.bad_size.app_error",
      `Group message channels must contain at least ${GROUP_MIN} and no more than ${GROUP_MAX} users.`)
  }
  const users = yield* knownUsers(members)
  return yield* respondWith(Channel, toChannel(yield* openGroup(caller.userId, users)), 201)
})

const StatsQuery = Schema.Struct({ exclude_files_count: Schema.optionalWith(Decode.QueryBool, { default: () => false }) })

const channelStats = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { channel_id } = yield* Decode.params(ChannelIdParams)
  const q = yield* Decode.query(StatsQuery)
  const access = yield* Access
  yield* access.channel(caller, channel_id, "read")
  const stats = yield* ChannelRepo.stats(channel_id, !q.exclude_files_count)
  return yield* respondWith(ChannelStats, {
    channel_id,
    member_count: stats.members,
    guest_count: stats.guests,
    pinnedpost_count: stats.pinned,
    // Mattermost answers -1 when the count was not asked for.
    files_count: stats.files ?? -1
  })
})

/** The distinct time zones of the channel's members (for "@here" style notices in the webapp). */
const channelTimezones = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { channel_id } = yield* Decode.params(ChannelIdParams)
  const access = yield* Access
  yield* access.channel(caller, channel_id, "read")
  return yield* respondWith(ChannelTimezones, yield* ChannelRepo.memberTimezones(channel_id))
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.post("/api/v4/channels", authed(createChannel)),
  HttpRouter.post("/api/v4/channels/direct", authed(createDirect)),
  HttpRouter.post("/api/v4/channels/group", authed(createGroup)),
  HttpRouter.get("/api/v4/channels/:channel_id", authed(getChannel)),
  HttpRouter.put("/api/v4/channels/:channel_id", authed(patchChannel(false))),
  HttpRouter.put("/api/v4/channels/:channel_id/patch", authed(patchChannel(true))),
  HttpRouter.del("/api/v4/channels/:channel_id", authed(archiveChannel)),
  HttpRouter.post("/api/v4/channels/:channel_id/restore", authed(restoreChannel)),
  HttpRouter.put("/api/v4/channels/:channel_id/privacy", authed(updatePrivacy)),
  HttpRouter.get("/api/v4/channels/:channel_id/stats", authed(channelStats)),
  HttpRouter.get("/api/v4/channels/:channel_id/timezones", authed(channelTimezones))
)

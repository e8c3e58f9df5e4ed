import { HttpRouter } from "@effect/platform"
import { Clock, Effect, Option, Schema } from "effect"
import { DomainEvent } from "../../schemas/Events.ts"
import { ChannelMember, ChannelUnread, ChannelViewResponse } from "../../schemas/wire/ChannelMember.ts"
import { ChannelParams, isId, PagingQuery, UserIdOrMe, UserParams } from "../../schemas/Params.ts"
import { Access } from "../access/Access.ts"
import { resolveUserId, selfOrAdmin } from "../access/UserParam.ts"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import { EventBus } from "../events/EventBus.ts"
import { badRequest, invalidParam, notFound, permissionDenied } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import * as SystemPosts from "../posts/SystemPosts.ts"
import { need } from "../access/Permission.ts"
import { json, ok, respondWith, respondWithAll } from "../http/Respond.ts"
import * as ChannelEvents from "./ChannelEvents.ts"
import * as ChannelMemberRepo from "./ChannelMemberRepo.ts"
import { ChannelViews } from "./ChannelViews.ts"
import { memberMissing, membersOf } from "./ChannelRepo.ts"
import { toChannelMember, toViewResponse } from "./ChannelWire.ts"

/** Channel memberships: list, add, remove, notify props, roles, view and unread. */

const ChannelUserParams = Schema.Struct({ ...ChannelParams.fields, user_id: UserIdOrMe })
const IdsBody = Schema.Array(Decode.Id).pipe(Schema.maxItems(1000))
const RolesBody = Schema.Struct({ roles: Schema.String })
const SchemeRolesBody = Schema.Struct({ scheme_admin: Schema.Boolean, scheme_user: Schema.Boolean })

const listMembers = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { channel_id } = yield* Decode.params(ChannelParams)
  const q = yield* Decode.query(PagingQuery)
  const access = yield* Access
  yield* access.channel(caller, channel_id, "read")
  const rows = yield* ChannelMemberRepo.listPage(channel_id, q.per_page, q.page * q.per_page)
  return yield* respondWithAll(ChannelMember, rows.map(toChannelMember))
})

const getMember = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const params = yield* Decode.params(ChannelUserParams)
  const access = yield* Access
  yield* access.channel(caller, params.channel_id, "read")
  const [row] = yield* membersOf(params.channel_id, [resolveUserId(caller, params.user_id)])
  if (row === undefined) return yield* memberMissing()
  return yield* respondWith(ChannelMember, toChannelMember(row))
})

const membersByIds = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { channel_id } = yield* Decode.params(ChannelParams)
  const ids = yield* Decode.body(IdsBody)
  const access = yield* Access
  yield* access.channel(caller, channel_id, "read")
  const rows = yield* membersOf(channel_id, [...new Set(ids)])
  return yield* respondWithAll(ChannelMember, rows.map(toChannelMember))
})

const AddBody = Schema.Struct({
  user_id: Schema.optional(Decode.Id),
  user_ids: Schema.optional(Schema.Array(Decode.Id).pipe(Schema.maxItems(1000))),
  post_root_id: Schema.optional(Schema.String)
})

/**
 * Joining and adding, by permission as in Mattermost: joining a public channel oneself takes join_public_channels in
 * its team (team members by default); adding others takes manage_public/private_channel_members in the channel
 * (its members by default). Everyone added must belong to the channel's team. DMs never take members; GMs are
 * fixed at creation, as in Mattermost.
 */
const membersPermission = (type: string) => type === "P" ? "manage_private_channel_members" : "manage_public_channel_members"

/**
 * post_root_id (the web app's "add them to the channel" offer under a reply): the add posts go in that post's thread.
 * As Mattermost: a malformed id is a 400, a missing post a 404, a post of another channel a 400. A reply's id stands
 * for its thread (Mattermost would fail to write the post and only log it).
 */
const addedInThread = (channelId: string, postRootId: string) =>
  Effect.gen(function*() {
    if (postRootId === "") return ""
    if (!isId(postRootId)) return yield* invalidParam("post_root_id")
    const place = yield* SystemPosts.threadPlaceOf(postRootId)
    if (place === undefined) return yield* notFound("app.post.get.app_error", "Unable to get the post.")
    if (place.channelId !== channelId) return yield* invalidParam("post_root_id")
    return place.rootId
  })

const addMembers = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { channel_id } = yield* Decode.params(ChannelParams)
  const body = yield* Decode.body(AddBody)
  const access = yield* Access
  const granted = yield* access.channel(caller, channel_id, "read")
  const { channel } = granted
  const userIds = [...new Set(body.user_ids ?? (body.user_id !== undefined ? [body.user_id] : []))]
  if (userIds.length === 0) return yield* badRequest("api.context.invalid_body_param.app_error", "Invalid or missing user_id in request body.")
  if (channel.type !== "O" && channel.type !== "P") {
    return yield* badRequest("api.channel.add_user_to_channel.type.app_error", "Can not add user to this channel type.")
  }
  if (channel.delete_at !== 0) {
    return yield* badRequest("api.channel.add_user.to.channel.failed.deleted.app_error", "The channel has been archived.")
  }
  const onlySelf = userIds.length === 1 && userIds[0] === caller.userId
  yield* need(granted, onlySelf && channel.type === "O" ? "join_public_channels" : membersPermission(channel.type))
  if ((yield* ChannelMemberRepo.countActiveTeamMembers(channel.team_id, userIds)) !== userIds.length) {
    return yield* badRequest("api.channel.add_members.user_denied", "Users must be members of the channel's team.")
  }
  const rootId = yield* addedInThread(channel.id, body.post_root_id ?? "")
  const now = yield* Clock.currentTimeMillis
  const target = { id: channel.id, team_id: channel.team_id, type: channel.type }
  const added = yield* ChannelMemberRepo.add(target, userIds, now)
  const bus = yield* EventBus
  yield* ChannelEvents.usersAdded(bus, added)
  // Mattermost: joining oneself posts system_join_channel, adding someone system_add_to_channel by the adder.
  const addedIds = added.map((m) => m.userId)
  if (addedIds.includes(caller.userId)) yield* SystemPosts.joinedChannel(channel, caller.userId)
  yield* SystemPosts.addedToChannel(channel, caller.userId, addedIds.filter((id) => id !== caller.userId), rootId)
  const rows = yield* membersOf(channel_id, userIds)
  const members = rows.map(toChannelMember)
  return yield* (body.user_ids !== undefined ? respondWithAll(ChannelMember, members, 201) : respondWith(ChannelMember, members[0], 201))
})

/** Leaving, or removing someone: manage_public/private_channel_members in the channel (its members by default). */
const removeMember = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const params = yield* Decode.params(ChannelUserParams)
  const userId = resolveUserId(caller, params.user_id)
  const access = yield* Access
  const granted = yield* access.channel(caller, params.channel_id, "read")
  const { channel } = granted
  if (channel.type === "D") return yield* badRequest("api.channel.remove_user_from_channel.direct.app_error", "Users cannot leave a direct message channel.")
  if (channel.type === "G" && userId !== caller.userId) {
    return yield* badRequest("api.channel.remove_members.denied", "Members cannot be removed from a group message channel.")
  }
  if (channel.name === "town-square") {
    return yield* badRequest("api.channel.remove.default.app_error", "Unable to remove user from the default channel town-square.")
  }
  if (userId !== caller.userId) yield* need(granted, membersPermission(channel.type))
  if (!(yield* ChannelMemberRepo.remove(channel.id, userId))) return yield* memberMissing()
  const bus = yield* EventBus
  yield* ChannelEvents.userRemoved(bus, channel.id, userId, caller.userId)
  yield* SystemPosts.leftOrRemoved(channel, caller.userId, userId)
  return ok()
})

const memberUpdated = (channelId: string, userId: string) =>
  Effect.gen(function*() {
    const [row] = yield* membersOf(channelId, [userId])
    const bus = yield* EventBus
    yield* bus.publish(DomainEvent.ChannelMemberUpdated({ member: toChannelMember(row) }), { user_id: userId })
  })

const NotifyProps = Schema.Record({ key: Schema.String, value: Schema.String })

const LEVELS = ["default", "all", "mention", "none"]

/** The values Mattermost accepts for the notification settings it knows; other keys pass through untouched. */
const NOTIFY_VALUES: Record<string, ReadonlyArray<string> | undefined> = {
  desktop: LEVELS,
  email: LEVELS,
  push: LEVELS,
  desktop_threads: LEVELS,
  push_threads: LEVELS,
  mark_unread: ["all", "mention"],
  ignore_channel_mentions: ["default", "off", "on"],
  channel_auto_follow_threads: ["off", "on"],
  desktop_sound: ["default", "on", "off"]
}

/** Only the member (or a system admin) changes their notification settings; unknown keys are kept as given. */
const updateNotifyProps = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const params = yield* Decode.params(ChannelUserParams)
  const userId = yield* selfOrAdmin(params.user_id)
  const props = yield* Decode.body(NotifyProps)
  const access = yield* Access
  yield* access.channel(caller, params.channel_id, "read")
  const { channel_id: _c, user_id: _u, ...settings } = props
  const wrong = Object.entries(settings).find(([key, value]) => NOTIFY_VALUES[key] !== undefined && !NOTIFY_VALUES[key].includes(value))
  if (wrong !== undefined) {
    return yield* badRequest("model.channel_member.is_valid.notify_level.app_error", `Invalid value for ${wrong[0]}.`)
  }
  const now = yield* Clock.currentTimeMillis
  if (!(yield* ChannelMemberRepo.mergeNotifyProps(params.channel_id, userId, settings, now))) return yield* memberMissing()
  yield* memberUpdated(params.channel_id, userId)
  return ok()
})

const setAdmin = (channelId: string, userId: string, admin: boolean) =>
  Effect.gen(function*() {
    const caller = yield* CurrentCaller
    const access = yield* Access
    const granted = yield* access.channel(caller, channelId, "read")
    const { channel } = granted
    yield* need(granted, "manage_channel_roles")
    if (channel.type === "D" || channel.type === "G") {
      return yield* badRequest("api.channel.update_channel_member_roles.scheme_role.app_error", "Direct and group channels have no roles.")
    }
    const now = yield* Clock.currentTimeMillis
    if (!(yield* ChannelMemberRepo.setSchemeAdmin(channelId, userId, admin, now))) return yield* memberMissing()
    yield* memberUpdated(channelId, userId)
    return ok()
  })

/** Channel roles: "channel_user" or "channel_user channel_admin". */
const updateRoles = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const params = yield* Decode.params(ChannelUserParams)
  const { roles } = yield* Decode.body(RolesBody)
  const set = new Set(roles.split(" ").filter((r) => r !== ""))
  if (!set.has("channel_user") || [...set].some((r) => r !== "channel_user" && r !== "channel_admin")) {
    return yield* badRequest("api.channel.update_channel_member_roles.scheme_role.app_error", "Invalid channel member roles.")
  }
  return yield* setAdmin(params.channel_id, resolveUserId(caller, params.user_id), set.has("channel_admin"))
})

const updateSchemeRoles = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const params = yield* Decode.params(ChannelUserParams)
  const body = yield* Decode.body(SchemeRolesBody)
  if (!body.scheme_user) {
    return yield* badRequest("api.channel.update_channel_member_roles.scheme_role.app_error", "Members keep the channel_user role.")
  }
  return yield* setAdmin(params.channel_id, resolveUserId(caller, params.user_id), body.scheme_admin)
})

export const ViewBody = Schema.Struct({
  channel_id: Schema.optionalWith(Schema.String, { default: () => "" }),
  prev_channel_id: Schema.optionalWith(Schema.String, { default: () => "" }),
  collapsed_threads_supported: Schema.optional(Schema.Boolean)
})

/**
 * Marks channels read for the user: everything up to now is viewed, counts catch up with the channel's totals and
 * mentions clear. Only channels the user belongs to change, and only those not read already: a client views a channel
 * each time it switches to it, and rewriting a row that is already read cost a write and its commit per switch. A
 * channel already read keeps its last_viewed_at (nothing was posted since: it is not older than the channel's last
 * post), which the answer reports as it is.
 *
 * The user's sockets get `multiple_channels_viewed` alone, as from Mattermost 9 on: `channel_viewed` is its deprecated
 * predecessor (model.WebsocketEventChannelViewed), which the clients handle only for older servers and which cost
 * every channel switch a second event, its delivery and a second push intent for the same channels (issue 31).
 */
const markViewed = (userId: string, channelIds: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const ids = [...new Set(channelIds.filter((id) => id !== ""))]
    if (ids.some((id) => !isId(id))) return yield* badRequest("api.context.invalid_body_param.app_error", "Invalid channel_id.")
    const now = yield* Clock.currentTimeMillis
    // A channel switch's view (one or two channels) shares its statement with other users' views under load
    // (ChannelViews.ts); a list to mark read is one statement of its own.
    const rows = ids.length <= 2 ? yield* (yield* ChannelViews).markViewed(userId, ids, now) : yield* ChannelMemberRepo.markViewed(userId, ids, now)
    const answer = toViewResponse(rows)
    const times = answer.last_viewed_at_times
    if (rows.length > 0) yield* (yield* EventBus).publish(DomainEvent.MultipleChannelsViewed({ channelTimes: times }), { user_id: userId })
    return answer
  })

/** POST /channels/members/{user_id}/view once the user and the body are known (also src/http/FastPath.ts). */
export const viewedChannel = (userId: string, body: typeof ViewBody.Type) =>
  markViewed(userId, [body.channel_id, body.prev_channel_id])

const viewChannel = Effect.gen(function*() {
  const params = yield* Decode.params(UserParams)
  const userId = yield* selfOrAdmin(params.user_id)
  const body = yield* Decode.body(ViewBody)
  // Already in wire form (toViewResponse is the Schema's precompiled encoder): this route is hot, as on the fast path.
  return json(yield* viewedChannel(userId, body))
})

/** Marks several channels read at once (the webapp's "mark as read"). */
const markRead = Effect.gen(function*() {
  const params = yield* Decode.params(UserParams)
  const userId = yield* selfOrAdmin(params.user_id)
  const ids = yield* Decode.body(IdsBody)
  return yield* respondWith(ChannelViewResponse, yield* markViewed(userId, ids))
})

const channelUnread = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const params = yield* Decode.params(ChannelUserParams)
  const userId = yield* selfOrAdmin(params.user_id)
  const access = yield* Access
  yield* access.channel(caller, params.channel_id, "read")
  const found = yield* ChannelMemberRepo.withChannelTotals(params.channel_id, userId)
  if (Option.isNone(found)) return yield* memberMissing()
  const row = found.value
  const markAll = row.notify_props.mark_unread !== "mention"
  return yield* respondWith(ChannelUnread, {
    team_id: row.team_id,
    channel_id: row.channel_id,
    user_id: row.user_id,
    msg_count: markAll ? Math.max(0, Number(row.total_msg_count) - Number(row.msg_count)) : 0,
    msg_count_root: markAll ? Math.max(0, Number(row.total_msg_count_root) - Number(row.msg_count_root)) : 0,
    mention_count: Number(row.mention_count),
    mention_count_root: Number(row.mention_count_root),
    urgent_mention_count: Number(row.urgent_mention_count),
    last_viewed_at: Number(row.last_viewed_at),
    notify_props: row.notify_props
  })
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v4/channels/:channel_id/members", authed(listMembers)),
  HttpRouter.post("/api/v4/channels/:channel_id/members", authed(addMembers)),
  HttpRouter.post("/api/v4/channels/:channel_id/members/ids", authed(membersByIds)),
  HttpRouter.get("/api/v4/channels/:channel_id/members/:user_id", authed(getMember)),
  HttpRouter.del("/api/v4/channels/:channel_id/members/:user_id", authed(removeMember)),
  HttpRouter.put("/api/v4/channels/:channel_id/members/:user_id/notify_props", authed(updateNotifyProps)),
  HttpRouter.put("/api/v4/channels/:channel_id/members/:user_id/roles", authed(updateRoles)),
  HttpRouter.put("/api/v4/channels/:channel_id/members/:user_id/schemeRoles", authed(updateSchemeRoles)),
  HttpRouter.post("/api/v4/channels/members/:user_id/view", authed(viewChannel)),
  HttpRouter.post("/api/v4/channels/members/:user_id/mark_read", authed(markRead)),
  HttpRouter.get("/api/v4/users/:user_id/channels/:channel_id/unread", authed(channelUnread))
)

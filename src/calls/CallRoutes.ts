import { HttpRouter } from "@effect/platform"
import { Clock, Effect, Option, Schema } from "effect"
import { DomainEvent } from "../../schemas/Events.ts"
import { CallChannelState, CallsConfig, CallState, CallsVersion } from "../../schemas/wire/Calls.ts"
import { Access } from "../access/Access.ts"
import { authed, CurrentCaller, publicRoute } from "../auth/Guards.ts"
import { EventBus } from "../events/EventBus.ts"
import { ApiError, badRequest, forbidden } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { ok, respondWith, respondWithAll } from "../http/Respond.ts"
import { Push } from "../push/Push.ts"
import { CallRepo } from "./CallRepo.ts"
import { CALLS_PLUGIN_ID, callsConfig, callsVersion, toCallState, toChannelState } from "./CallWire.ts"

/**
 * The Calls plugin surface the apps need to show and ring calls, under /plugins/com.mattermost.calls (not /api/v4),
 * on the plugin's own paths (mattermost-compat.md section 10). Two paths are this server's: starting a call (the
 * plugin starts calls when a client joins over its media connection, which is not served here) and Ring. Audio and
 * video media are out of scope.
 */
const BASE = `/plugins/${CALLS_PLUGIN_ID}`

const ChannelParam = Schema.Struct({ channel_id: Decode.Id })
const EnabledBody = Schema.Struct({ enabled: Schema.Boolean })

const isDirectOrGroup = (type: string) => type === "D" || type === "G"

const noCall = () => badRequest("app.calls.no_call_ongoing.app_error", "There is no call ongoing in this channel.")

const version = respondWith(CallsVersion, callsVersion)

const config = respondWith(CallsConfig, callsConfig)

const channels = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const repo = yield* CallRepo
  return yield* respondWithAll(CallChannelState, (yield* repo.statesForUser(caller.userId)).map(toChannelState))
})

const channelState = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { channel_id } = yield* Decode.params(ChannelParam)
  yield* (yield* Access).channel(caller, channel_id, "read")
  const repo = yield* CallRepo
  return yield* respondWith(CallChannelState, toChannelState(yield* repo.channelState(channel_id)))
})

/**
 * Switches calls on or off in a channel: whoever may manage the channel's roles (manage_channel_roles: channel, team
 * and system admins by default, as the Calls plugin checks), and the members of a DM or group channel.
 */
const setEnabled = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { channel_id } = yield* Decode.params(ChannelParam)
  const access = yield* (yield* Access).channel(caller, channel_id, "write")
  const { enabled } = yield* Decode.body(EnabledBody)
  const repo = yield* CallRepo
  if (!isDirectOrGroup(access.channel.type) && !access.can("manage_channel_roles")) {
    return yield* forbidden("api.context.permissions.app_error", "Only channel admins may switch calls on or off here.")
  }
  yield* repo.setEnabled(channel_id, enabled)
  const bus = yield* EventBus
  yield* bus.publish(enabled ? DomainEvent.CallsEnabled() : DomainEvent.CallsDisabled(), { channel_id })
  return yield* respondWith(CallChannelState, { channel_id, enabled })
})

/**
 * POST /calls/{channel_id}/start: starts the channel's call, announces it, and in a DM or group channel rings the
 * other members.
 */
const start = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { channel_id } = yield* Decode.params(ChannelParam)
  const { channel } = yield* (yield* Access).channel(caller, channel_id, "write")
  if (channel.delete_at > 0) return yield* badRequest("app.calls.channel_archived.app_error", "Calls cannot start in an archived channel.")
  const repo = yield* CallRepo
  const state = yield* repo.channelState(channel_id)
  if (Option.contains(state.enabled, false)) return yield* forbidden("app.calls.disabled.app_error", "Calls are disabled in this channel.")
  const now = yield* Clock.currentTimeMillis
  const started = yield* repo.start(channel_id, caller.userId, now)
  if (Option.isNone(started)) {
    return yield* new ApiError({ status: 409, id: "app.calls.call_already_ongoing.app_error", message: "A call is already ongoing in this channel." })
  }
  const call = started.value
  const bus = yield* EventBus
  yield* bus.publish(DomainEvent.CallStarted({
    id: call.id,
    channelId: channel_id,
    startAt: call.start_at,
    threadId: call.thread_id,
    postId: call.post_id,
    ownerId: call.owner_id
  }), { channel_id })
  if (isDirectOrGroup(channel.type)) {
    const push = yield* Push
    yield* push.submit({ _tag: "Ring", callId: call.id, channelId: channel_id, callerId: caller.userId, threadId: call.thread_id, postId: call.post_id, skip: [] })
  }
  return yield* respondWith(CallState, toCallState(call), 201)
})

/** POST /calls/{channel_id}/ring: rings the other members again, except those who dismissed this call. */
const ring = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { channel_id } = yield* Decode.params(ChannelParam)
  const { channel } = yield* (yield* Access).channel(caller, channel_id, "write")
  if (!isDirectOrGroup(channel.type)) return yield* badRequest("app.calls.ring_not_supported.app_error", "Only calls in direct and group messages ring.")
  const repo = yield* CallRepo
  const active = yield* repo.active(channel_id)
  if (Option.isNone(active)) return yield* noCall()
  const call = active.value
  const push = yield* Push
  yield* push.submit({
    _tag: "Ring",
    callId: call.id,
    channelId: channel_id,
    callerId: caller.userId,
    threadId: call.thread_id,
    postId: call.post_id,
    skip: Object.keys(call.dismissed).filter((userId) => call.dismissed[userId])
  })
  return ok()
})

/** POST /calls/{channel_id}/dismiss-notification: stops the ringing for the caller, on all their devices. */
const dismiss = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { channel_id } = yield* Decode.params(ChannelParam)
  yield* (yield* Access).channel(caller, channel_id, "read")
  const repo = yield* CallRepo
  const dismissed = yield* repo.dismiss(channel_id, caller.userId)
  if (Option.isNone(dismissed)) return yield* noCall()
  const bus = yield* EventBus
  yield* bus.publish(DomainEvent.CallDismissed({ userId: caller.userId, callId: dismissed.value.id }), { user_id: caller.userId })
  return ok()
})

/** POST /calls/{channel_id}/end: the call's owner or a system admin ends it for everyone. */
const end = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { channel_id } = yield* Decode.params(ChannelParam)
  yield* (yield* Access).channel(caller, channel_id, "read")
  const repo = yield* CallRepo
  const active = yield* repo.active(channel_id)
  if (Option.isNone(active)) return yield* noCall()
  if (active.value.owner_id !== caller.userId && !caller.isSystemAdmin) {
    return yield* forbidden("api.context.permissions.app_error", "Only the call's host or a system admin may end it.")
  }
  const now = yield* Clock.currentTimeMillis
  const ended = yield* repo.end(channel_id, now)
  if (Option.isNone(ended)) return yield* noCall()
  const bus = yield* EventBus
  yield* bus.publish(DomainEvent.CallEnded({ channelId: channel_id, callId: ended.value.id }), { channel_id })
  return ok()
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get(`${BASE}/version`, publicRoute(version)),
  HttpRouter.get(`${BASE}/config`, authed(config)),
  HttpRouter.get(`${BASE}/channels`, authed(channels)),
  HttpRouter.get(`${BASE}/:channel_id`, authed(channelState)),
  HttpRouter.post(`${BASE}/:channel_id`, authed(setEnabled)),
  HttpRouter.post(`${BASE}/calls/:channel_id/start`, authed(start)),
  HttpRouter.post(`${BASE}/calls/:channel_id/ring`, authed(ring)),
  HttpRouter.post(`${BASE}/calls/:channel_id/dismiss-notification`, authed(dismiss)),
  HttpRouter.post(`${BASE}/calls/:channel_id/end`, authed(end))
)

import { Clock, Context, Effect, Layer, Metric, Option, Queue } from "effect"
import { Cache } from "../../layers/Cache.ts"
import { Db } from "../../layers/Db.ts"
import { pushesDropped } from "../../layers/PushSender.ts"
import type { EventPost } from "../../schemas/Events.ts"
import * as DeviceRepo from "../devices/DeviceRepo.ts"
import { RuntimeSettings } from "../system/RuntimeSettings.ts"
import { decide, parseMentions } from "./Decide.ts"
import * as PushQueue from "./PushQueue.ts"
import * as PushSettings from "./PushSettings.ts"
import { callPush, clearPush, messagePush } from "./PushTemplate.ts"
import { makeRecipients } from "./Recipients.ts"

/**
 * Deciding who gets which push. Work arrives as intents (a post was made, channels were viewed, a call should ring)
 * on a bounded per-node queue; a few workers turn each into queued deliveries. Whoever submits an intent (the
 * event subscriber, a Calls handler) returns at once: nothing here runs on a request's path or can fail it.
 */
export type PushIntent =
  /** The post of a `posted` event, as the writer built it (typed; never re-parsed from the event's JSON). */
  | { readonly _tag: "Posted"; readonly post: EventPost }
  | { readonly _tag: "Viewed"; readonly userId: string; readonly channelIds: ReadonlyArray<string> }
  | {
    readonly _tag: "Ring"
    readonly callId: string
    readonly channelId: string
    readonly callerId: string
    readonly threadId: string
    readonly postId: string
    /** Users who dismissed this call: never rung again for it. */
    readonly skip: ReadonlyArray<string>
  }

export interface PushService {
  readonly submit: (intent: PushIntent) => Effect.Effect<void>
  /** The same, outside any effect (a listener of EventBus.onLocal). */
  readonly submitNow: (intent: PushIntent) => void
}

export class Push extends Context.Tag("service/Push")<Push, PushService>() {}

const INTENT_CAPACITY = 1_000
const DECIDERS = 4
/** A clear push only goes where a message push may still be showing: the mark lives this long. */
const SHOWN_TTL = "7 days"
/** One view can cover many channels; clear at most this many at once. */
const MAX_CLEARS = 20

const shownKey = (userId: string, channelId: string) => `push:shown:${userId}:${channelId}`

const DND = new Set(["dnd", "ooo"])

const intentDropped = Metric.tagged(pushesDropped, "reason", "intent_queue_full")

export const make = Effect.gen(function*() {
  const db = yield* Db
  const cache = yield* Cache
  const settings = yield* PushSettings.PushSettings
  const devices = yield* DeviceRepo.DeviceRepo
  const queue = yield* PushQueue.PushQueue
  const runtime = yield* RuntimeSettings
  const recipients = makeRecipients(db)
  const intents = yield* Effect.acquireRelease(Queue.dropping<PushIntent>(INTENT_CAPACITY), Queue.shutdown)

  /** Nothing is decided (or read) when EmailSettings.SendPushNotifications is off or no transport has credentials. */
  const pushIsOn = Effect.map(settings.current, (c) =>
    runtime.current().sendPushNotifications && (Option.isSome(c.proxy) || Option.isSome(c.fcm) || Option.isSome(c.apns)))

  const posted = (post: EventPost) =>
    Effect.gen(function*() {
      if (post.type.startsWith("system_")) return
      const channel = yield* recipients.channel(post.channel_id)
      if (channel === undefined || channel.delete_at > 0) return
      const members = yield* recipients.members(channel.id, post.user_id, post.root_id)
      const context = {
        channelType: channel.type,
        isReply: post.root_id !== "",
        mentions: parseMentions(post.message),
        forced: typeof post.props.force_notification === "string"
      }
      const chosen = members.filter((m) => decide(m, context) === "push")
      const mentionOf = new Map(chosen.map((m) => [
        m.userId,
        context.mentions.channel || context.mentions.all || context.mentions.here ? "channel" as const
        : context.mentions.usernames.has(m.username.toLowerCase()) ? "explicit" as const
        : "none" as const
      ]))
      const contents = runtime.current().pushContents
      if (chosen.length === 0) return
      const now = yield* Clock.currentTimeMillis
      const targets = yield* devices.devicesOf(chosen.map((m) => m.userId), now)
      if (targets.length === 0) return
      const badges = yield* recipients.badges([...new Set(targets.map((d) => d.userId))])
      const override = post.props.from_webhook === "true" && typeof post.props.override_username === "string"
        ? post.props.override_username
        : undefined
      const senderName = override ?? (yield* recipients.userName(post.user_id)) ?? ""
      const displayName = channel.display_name !== "" ? channel.display_name : channel.name
      yield* queue.offer(targets.map((device) => ({
        device,
        template: messagePush({
          post: { id: post.id, root_id: post.root_id, message: post.message, hasFiles: (post.file_ids ?? []).length > 0 },
          channel: { id: channel.id, type: channel.type, team_id: channel.team_id, display_name: displayName },
          sender: { id: post.user_id, name: senderName },
          badge: badges.get(device.userId) ?? 0,
          contents,
          mention: mentionOf.get(device.userId) ?? "none"
        })
      })))
      yield* Effect.forEach(
        new Set(targets.map((d) => d.userId)),
        (userId) => cache.set(shownKey(userId, channel.id), "1", SHOWN_TTL).pipe(Effect.ignore),
        { discard: true }
      )
    })

  const viewed = (userId: string, channelIds: ReadonlyArray<string>) =>
    Effect.gen(function*() {
      const shown = yield* Effect.filter(
        channelIds.slice(0, MAX_CLEARS),
        (channelId) => cache.take(shownKey(userId, channelId)).pipe(Effect.map(Option.isSome), Effect.orElseSucceed(() => false))
      )
      if (shown.length === 0) return
      const now = yield* Clock.currentTimeMillis
      const targets = yield* devices.devicesOf([userId], now)
      if (targets.length === 0) return
      const badge = (yield* recipients.badges([userId])).get(userId) ?? 0
      yield* queue.offer(shown.flatMap((channelId) => targets.map((device) => ({ device, template: clearPush(channelId, badge) }))))
    })

  const ring = (intent: Extract<PushIntent, { _tag: "Ring" }>) =>
    Effect.gen(function*() {
      const channel = yield* recipients.channel(intent.channelId)
      if (channel === undefined || (channel.type !== "D" && channel.type !== "G")) return
      const skip = new Set(intent.skip)
      const members = (yield* recipients.members(channel.id, intent.callerId, ""))
        .filter((m) => !skip.has(m.userId) && !DND.has(m.status))
      if (members.length === 0) return
      const now = yield* Clock.currentTimeMillis
      const targets = yield* devices.devicesOf(members.map((m) => m.userId), now)
      if (targets.length === 0) return
      const callerName = (yield* recipients.userName(intent.callerId)) ?? ""
      const template = callPush({
        callId: intent.callId,
        channel: { id: channel.id, team_id: channel.team_id, type: channel.type, display_name: channel.display_name !== "" ? channel.display_name : channel.name },
        caller: { id: intent.callerId, name: callerName },
        threadId: intent.threadId,
        postId: intent.postId
      })
      yield* queue.offer(targets.map((device) => ({ device, template })))
    })

  const handle = (intent: PushIntent) =>
    Effect.gen(function*() {
      if (!(yield* pushIsOn)) return
      switch (intent._tag) {
        case "Posted":
          return yield* posted(intent.post)
        case "Viewed":
          return yield* viewed(intent.userId, intent.channelIds)
        case "Ring":
          return yield* ring(intent)
      }
    }).pipe(Effect.catchAllCause((cause) => Effect.logError("push decision failed", cause).pipe(Effect.annotateLogs({ intent: intent._tag }))))

  yield* Effect.forkScoped(
    Effect.forever(Effect.flatMap(Queue.take(intents), handle)).pipe(Effect.replicateEffect(DECIDERS, { concurrency: DECIDERS, discard: true }))
  )

  const service: PushService = {
    submit: (intent) =>
      Effect.flatMap(Queue.offer(intents, intent), (accepted) =>
        accepted ? Effect.void : Metric.increment(intentDropped)),
    submitNow: (intent) => {
      // With push off (as the settings' cache knows), nothing would be decided: no decider is woken for it (issue 10).
      if (settings.offNow() || !runtime.current().sendPushNotifications) return
      if (!intents.unsafeOffer(intent)) intentDropped.unsafeUpdate(1, [])
    }
  }
  return service
})

/** Deciding pushes; its queue (PushQueue), settings and devices are composed in src/Composition.ts. */
export const layer = Layer.scoped(Push, make)

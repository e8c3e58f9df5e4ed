import { type Cause, Context, Effect, Layer, Option, Schedule, Schema, Stream } from "effect"
import { Cache } from "../../layers/Cache.ts"
import { newId } from "../../layers/Crypto.ts"
import { Db, type DbError } from "../../layers/Db.ts"
import { PubSub } from "../../layers/PubSub.ts"
import { AppConfig } from "../Config.ts"
import { type Envelope, EventBus } from "../events/EventBus.ts"
import { Presence } from "../status/Presence.ts"
import { Statuses } from "../status/Statuses.ts"
import { type AdmitInput, type Admitted, makeAdmission } from "./Admission.ts"
import type { Connection } from "./Connection.ts"
import { makeDispatch } from "./Dispatch.ts"
import { makeHeartbeat } from "./Heartbeat.ts"
import { HubState, quietly } from "./HubState.ts"
import { makeOwnerRecords } from "./OwnerRecords.ts"
import { makeRealtimeRepo } from "./RealtimeRepo.ts"
import type { LiveSocket } from "./Socket.ts"
import { ControlMessageJson, CONTROL_TOPIC } from "./Takeover.ts"
import { makeTyping } from "./Typing.ts"

/**
 * The node's realtime hub. It owns this node's connections, delivers every cluster event (EventBus.localEvents and
 * remoteEvents) to the local ones it concerns, and hands a connection over when its client comes back on another
 * node. Its parts, sharing one HubState: Admission.ts (admission and takeover), Dispatch.ts (delivery and the
 * sockets closed by ended sessions or missed events), Heartbeat.ts (pings, session checks, handover at shutdown),
 * OwnerRecords.ts (which node holds a connection) and Typing.ts (the typing throttle).
 */
export type { AdmitInput, Admitted } from "./Admission.ts"

/** How often socket sessions are checked for expiry (in memory; the database only for those past their time). */
const EXPIRY_CHECK_MS = 1000

export interface HubService {
  readonly nodeId: string
  /** Registers an authenticated socket: resumes its connection or starts a fresh one with hello; None when refused. */
  readonly admit: (input: AdmitInput) => Effect.Effect<Option.Option<Admitted>, DbError>
  /** The socket went away: its connection stays resumable for a while; presence and status follow. */
  readonly socketClosed: (connection: Connection, socketId: string, ws: LiveSocket) => Effect.Effect<void>
  /** Whether the user is in the channel (memory first, then one lookup that also repairs the memory). */
  readonly isChannelMember: (userId: string, channelId: string) => Effect.Effect<boolean>
  readonly channelsOf: (userId: string) => ReadonlyArray<string>
  /** A typing event through `publish`, throttled per user and channel (Typing.ts). */
  readonly typing: (userId: string, channelId: string, publish: Effect.Effect<void>) => Effect.Effect<void>
  /** Sockets open on this node. */
  readonly socketCount: Effect.Effect<number>
  /** Distinct users with a socket open on this node. */
  readonly userCount: Effect.Effect<number>
  /**
   * For a node shutting down, its sockets closed: waits (bounded) while connections whose socket closed since
   * `closedSince` may still be taken over by other nodes (Heartbeat.ts).
   */
  readonly handOver: (closedSince: number) => Effect.Effect<void>
}

export class Hub extends Context.Tag("service/Hub")<Hub, HubService>() {}

const decodeControl = Schema.decodeUnknownOption(ControlMessageJson)

export const make = Effect.gen(function*() {
  const bus = yield* EventBus
  const pubsub = yield* PubSub
  const cache = yield* Cache
  const db = yield* Db
  const presence = yield* Presence
  const statuses = yield* Statuses
  const repo = makeRealtimeRepo(db)
  const state = new HubState(newId(), repo)
  const records = makeOwnerRecords(cache, state.nodeId)
  const admission = makeAdmission({ state, records, repo, cache, pubsub, presence, statuses })
  const delivery = makeDispatch(state, records, repo, yield* Effect.clock)
  const config = yield* AppConfig
  const periodic = makeHeartbeat({ state, repo, cache, presence, endSessions: delivery.endSessions, handoverMs: config.shutdownHandoverMs })
  const typing = makeTyping(yield* Effect.scope)

  // Two consumers rather than one merged stream: a merge moves every event through one more queue and fiber.
  const deliverAll = (events: Stream.Stream<Envelope>) =>
    events.pipe(
      Stream.runForEach((envelope) => delivery.dispatchRemote(envelope).pipe(Effect.catchAllCause((cause) => Effect.logError("event delivery failed", cause)))),
      Effect.forkScoped
    )
  // This node's own events by a queue-taking fiber rather than a Stream (issue 10: fewer steps per event).
  // Delivered inside the publish when nothing has to wait (issue 10: no wake-up of the hub's fiber per post).
  const deliveryFailed = (cause: Cause.Cause<unknown>) => Effect.logError("event delivery failed", cause)
  yield* bus.runLocal((envelope) => {
    const rest = delivery.dispatchLocalNow(envelope)
    return rest === undefined ? undefined : Effect.catchAllCause(rest, deliveryFailed)
  })
  yield* deliverAll(bus.remoteEvents)
  yield* pubsub.gaps.pipe(Stream.runForEach(() => quietly(delivery.resetAll)), Effect.forkScoped)
  yield* pubsub.subscribe(CONTROL_TOPIC).pipe(
    Stream.filterMap(decodeControl),
    Stream.runForEach((message) => quietly(admission.onControl(message))),
    Effect.forkScoped
  )
  const heartbeatMs = config.wsPingIntervalMs
  yield* quietly(Effect.zipRight(periodic.heartbeat, periodic.checkSessions(true))).pipe(
    Effect.repeat(Schedule.spaced(heartbeatMs)),
    Effect.delay(heartbeatMs),
    Effect.forkScoped
  )
  yield* quietly(periodic.checkSessions(false)).pipe(Effect.repeat(Schedule.spaced(EXPIRY_CHECK_MS)), Effect.delay(EXPIRY_CHECK_MS), Effect.forkScoped)

  const { subscriptions } = state
  const service: HubService = {
    nodeId: state.nodeId,
    admit: admission.admit,
    socketClosed: admission.socketClosed,
    isChannelMember: (userId, channelId) =>
      Effect.gen(function*() {
        if (subscriptions.hasChannel(userId, channelId)) return true
        const member = yield* repo.isChannelMember(userId, channelId).pipe(Effect.orElseSucceed(() => false))
        if (member) subscriptions.addChannel(userId, channelId)
        return member
      }),
    channelsOf: (userId) => [...(subscriptions.user(userId)?.channels ?? [])],
    typing,
    handOver: periodic.handOver,
    socketCount: Effect.sync(() => state.socketCount),
    userCount: Effect.sync(() => {
      let n = 0
      for (const user of subscriptions.users.values()) {
        for (const c of user.connections) {
          if (c.isOpen) {
            n++
            break
          }
        }
      }
      return n
    })
  }
  return service
})

export const layer = Layer.scoped(Hub, make)

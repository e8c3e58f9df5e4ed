import { Clock, Context, Effect, Layer, Option, PubSub as LocalPubSub, Schedule, Schema, type Scope, Stream } from "effect"
import { newId } from "../../layers/Crypto.ts"
import { PubSub } from "../../layers/PubSub.ts"

/**
 * The cluster-wide event bus. Each event is the Mattermost WebSocket event without its seq: `event`, `data` (payload
 * fields exactly as mattermost-compat.md section 9 gives them, JSON strings where Mattermost sends strings) and
 * `broadcast` (who receives it). Features publish after their transaction commits; every node's hub subscribes.
 * The envelope is encoded once here, and decoded once on each other node.
 */
export const Broadcast = Schema.Struct({
  /** Only this user's sockets. */
  user_id: Schema.optionalWith(Schema.String, { default: () => "" }),
  /** Members of this channel. */
  channel_id: Schema.optionalWith(Schema.String, { default: () => "" }),
  /** Members of this team. */
  team_id: Schema.optionalWith(Schema.String, { default: () => "" }),
  /** Users left out, as Mattermost's map of user id to true. */
  omit_users: Schema.optionalWith(Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Boolean })), { default: () => null }),
  /** Leave out one connection (the sender's own socket). */
  omit_connection_id: Schema.optionalWith(Schema.String, { default: () => "" }),
  /** Every authenticated socket. */
  broadcast_to_all: Schema.optionalWith(Schema.Boolean, { default: () => false })
})
export type Broadcast = typeof Broadcast.Type
export type BroadcastInput = typeof Broadcast.Encoded

export const Envelope = Schema.Struct({
  event: Schema.String,
  data: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  broadcast: Broadcast,
  /** Milliseconds since the epoch, when the event was published. */
  created_at: Schema.Number,
  /** The node that published it, which delivers it to its own sockets without waiting for the bus. */
  origin: Schema.optionalWith(Schema.String, { default: () => "" })
})
export type Envelope = typeof Envelope.Type

/**
 * The broadcast with Schema's defaults filled in, built directly: decoding each published envelope with the Schema
 * (already typed by the caller) and encoding it again cost about 5% of a POST /posts in a profile (issue 10). Other
 * nodes still decode what they receive with the Schema.
 */
const withDefaults = (b: BroadcastInput): Broadcast => ({
  user_id: b.user_id ?? "",
  channel_id: b.channel_id ?? "",
  team_id: b.team_id ?? "",
  omit_users: b.omit_users ?? null,
  omit_connection_id: b.omit_connection_id ?? "",
  broadcast_to_all: b.broadcast_to_all ?? false
})

const EnvelopeJson = Schema.parseJson(Envelope)
const encode = Schema.encodeSync(EnvelopeJson)
const decode = Schema.decodeUnknownOption(EnvelopeJson)

export const TOPIC = "service:events"
/**
 * Internal event a node publishes after its outbox overflowed during an outage: the other nodes missed events they
 * can no longer get, so they reset their sockets (the clients reconnect, get a new hello and resync).
 */
export const RESET_SOCKETS_EVENT = "service_reset_sockets"
/** Events kept for the other nodes while the bus is unreachable; past this the oldest go and the others are reset. */
export const OUTBOX_MAX = 50_000
const FLUSH_EVERY = "200 millis"

export interface EventBusService {
  /** Publishes after commit; a bus failure is logged and never fails the write that caused it. */
  readonly publish: (event: string, data: Record<string, unknown>, broadcast: BroadcastInput) => Effect.Effect<void>
  /**
   * Every event published from now on by the other nodes, as the bus brings them. With localEvents, everything the
   * realtime hub delivers: this node's own come straight from memory, and their copies from the bus are skipped.
   */
  readonly remoteEvents: Stream.Stream<Envelope>
  /**
   * Events published by this node only: work that must happen once per write, on the node that handled it
   * (push notifications), subscribes here.
   */
  readonly localEvents: Stream.Stream<Envelope>
  /**
   * The same events, subscribed at once rather than when the stream starts running: a background worker built at
   * start-up uses it so that nothing published before its fiber first runs is missed.
   */
  readonly subscribeLocal: Effect.Effect<Stream.Stream<Envelope>, never, Scope.Scope>
  /** Events waiting for the bus to come back (0 when it is up). */
  readonly outboxSize: Effect.Effect<number>
}

export class EventBus extends Context.Tag("service/EventBus")<EventBus, EventBusService>() {}

export const make = Effect.gen(function*() {
  const pubsub = yield* PubSub
  const local = yield* LocalPubSub.unbounded<Envelope>()
  // Local sockets get this node's events without a round trip through the bus (and its JSON both ways); the copies
  // the bus brings back are skipped. Events of one node still arrive in the order it published them.
  const origin = newId()

  // The outbox: events the other nodes have not been sent because the bus failed (Redis down). They go out in
  // order once it answers again, so an outage delays them instead of losing them; while it holds anything, new
  // events queue behind it to keep the order. In memory, per node: a node that dies with a full outbox takes it
  // along, which its sockets' clients see as that node's restart.
  const outbox: Array<string> = []
  let overflowed = false
  let queuedSince = 0
  const enqueue = (message: string) =>
    Effect.gen(function*() {
      if (outbox.length === 0) {
        queuedSince = yield* Clock.currentTimeMillis
        yield* Effect.logWarning("event bus unreachable: keeping events for the other nodes until it is back")
      }
      outbox.push(message)
      if (outbox.length > OUTBOX_MAX) {
        outbox.splice(0, outbox.length - OUTBOX_MAX)
        overflowed = true
      }
    })
  const flush = Effect.gen(function*() {
    let sent = 0
    while (outbox.length > 0) {
      const ok = yield* pubsub.publish(TOPIC, outbox[0]).pipe(Effect.as(true), Effect.orElseSucceed(() => false))
      if (!ok) return
      outbox.shift()
      sent++
    }
    if (overflowed) {
      const created_at = yield* Clock.currentTimeMillis
      const reset = encode(Schema.decodeSync(Envelope)({ event: RESET_SOCKETS_EVENT, data: {}, broadcast: {}, created_at, origin }))
      if (!(yield* pubsub.publish(TOPIC, reset).pipe(Effect.as(true), Effect.orElseSucceed(() => false)))) return
      overflowed = false
    }
    if (sent > 0) {
      const now = yield* Clock.currentTimeMillis
      yield* Effect.logInfo("event bus back: delivered the events kept for the other nodes")
        .pipe(Effect.annotateLogs({ events: sent, waited_ms: now - queuedSince }))
    }
  })
  yield* flush.pipe(Effect.repeat(Schedule.spaced(FLUSH_EVERY)), Effect.forkScoped)

  const service: EventBusService = {
    outboxSize: Effect.sync(() => outbox.length),
    publish: (event, data, broadcast) =>
      Effect.gen(function*() {
        const created_at = yield* Clock.currentTimeMillis
        const envelope: Envelope = { event, data, broadcast: withDefaults(broadcast), created_at, origin }
        yield* LocalPubSub.publish(local, envelope)
        // The encoded envelope is the envelope itself (no field is transformed), so JSON.stringify is its encoding.
        const message = JSON.stringify(envelope)
        if (outbox.length > 0) return yield* enqueue(message)
        yield* pubsub.publish(TOPIC, message).pipe(Effect.catchAll(() => enqueue(message)))
      }).pipe(
        Effect.catchAllCause((cause) => Effect.logError("event publish failed", cause).pipe(Effect.annotateLogs({ event })))
      ),
    remoteEvents: pubsub.subscribe(TOPIC).pipe(Stream.filterMap((raw) => Option.filter(decode(raw), (e) => e.origin !== origin))),
    localEvents: Stream.fromPubSub(local),
    subscribeLocal: Effect.map(LocalPubSub.subscribe(local), (queue) => Stream.fromQueue(queue))
  }
  return service
})

export const layer = Layer.scoped(EventBus, make)

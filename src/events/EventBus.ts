import { Clock, Context, Effect, Layer, Option, PubSub as LocalPubSub, Queue, Schedule, Schema, type Scope, Stream } from "effect"
import { newId } from "../../layers/Crypto.ts"
import { PubSub } from "../../layers/PubSub.ts"
import { type DomainEvent, type EventName, EventNames, toWire } from "../../schemas/Events.ts"

/**
 * The cluster-wide event bus. Features publish typed domain events (schemas/Events.ts) after their transaction
 * commits, with a `broadcast` (who receives it). The bus turns each into the Mattermost WebSocket event without its
 * seq once (`event`, `data`: mattermost-compat.md section 9, JSON strings where Mattermost sends strings); every
 * node's hub builds its frames from that. On this node, consumers also get the typed event itself (`domain`: push
 * reads the post object, not its JSON); the cross-node envelope carries the wire form, encoded once here and decoded
 * once with the Schema on each other node.
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
  /**
   * The event's number among its origin's, from 1 (0: none): the same event can reach the bus more than once (a
   * publish that timed out on a stalled Redis is executed when it wakes, and the outbox sends it again), and each
   * receiver delivers an origin's number once.
   */
  id: Schema.optionalWith(Schema.Number, { default: () => 0 }),
  /** The node that published it, which delivers it to its own sockets without waiting for the bus. */
  origin: Schema.optionalWith(Schema.String, { default: () => "" })
})
export type Envelope = typeof Envelope.Type

/**
 * An event this node published: the envelope and the typed event it was made from (undefined for an event outside
 * the domain union, which only tests publish). Never serialized: other nodes get the envelope alone.
 */
export interface LocalEnvelope extends Envelope {
  readonly domain: DomainEvent | undefined
}

/**
 * Publishing. A domain event is typed by its tag (the compiler rejects a wrong payload); a name and raw data are
 * accepted only for a name that is no domain event's (tests' probes and custom events; src/ never publishes one, as
 * test/architecture/Events.test.ts checks).
 */
export interface Publish {
  (event: DomainEvent, broadcast: BroadcastInput): Effect.Effect<void>
  <const N extends string>(event: N extends EventName ? never : N, data: Record<string, unknown>, broadcast: BroadcastInput): Effect.Effect<void>
}

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
/** Origins (node processes) whose event numbers a receiver keeps; a node's restart is a new origin. */
const MAX_ORIGINS = 1024
/** Numbers above an origin's contiguous run kept while waiting for the missing ones (lost, in an overflowed outbox). */
const MAX_AHEAD = 4096

/**
 * Whether an event number of an origin arrives for the first time, for one receiver: all numbers up to `floor` were
 * seen, and those in `ahead` above it. A few numbers per origin, whatever the traffic.
 */
export const makeFirstSeen = () => {
  const origins = new Map<string, { floor: number; readonly ahead: Set<number> }>()
  return (origin: string, id: number): boolean => {
    if (id <= 0) return true
    let seen = origins.get(origin)
    if (seen === undefined) {
      if (origins.size >= MAX_ORIGINS) origins.delete(origins.keys().next().value!)
      origins.set(origin, seen = { floor: id - 1, ahead: new Set() })
    }
    if (id <= seen.floor || seen.ahead.has(id)) return false
    seen.ahead.add(id)
    while (seen.ahead.delete(seen.floor + 1)) seen.floor++
    if (seen.ahead.size > MAX_AHEAD) {
      // The missing numbers will not come (an outbox overflowed and the other nodes were reset): stop waiting.
      const sorted = [...seen.ahead].sort((a, b) => a - b)
      for (const n of sorted.slice(0, sorted.length - MAX_AHEAD / 2)) {
        seen.ahead.delete(n)
        seen.floor = n
      }
      while (seen.ahead.delete(seen.floor + 1)) seen.floor++
    }
    return true
  }
}

export interface EventBusService {
  /** Publishes after commit; a bus failure is logged and never fails the write that caused it. */
  readonly publish: Publish
  /**
   * Every event published from now on by the other nodes, as the bus brings them (none with the in-memory bus: there
   * are no other nodes). With localEvents, everything the
   * realtime hub delivers: this node's own come straight from memory, and their copies from the bus are skipped.
   */
  readonly remoteEvents: Stream.Stream<Envelope>
  /** The session ids of each SessionEnded another node published, from now on (none in memory: no other node). */
  readonly sessionsEnded: Stream.Stream<ReadonlyArray<string>>
  /**
   * Events published by this node only: work that must happen once per write, on the node that handled it
   * (push notifications), subscribes here.
   */
  readonly localEvents: Stream.Stream<LocalEnvelope>
  /**
   * The same events, subscribed at once rather than when the stream starts running: a background worker built at
   * start-up uses it so that nothing published before its fiber first runs is missed.
   */
  readonly subscribeLocal: Effect.Effect<Stream.Stream<LocalEnvelope>, never, Scope.Scope>
  /**
   * The same events, handed to `listener` synchronously inside `publish`, in publishing order, from now until the
   * scope closes. For subscribers whose work per event is a filter and an offer to their own queue (push, mails,
   * outgoing webhooks): a Stream per subscriber cost about a tenth of a POST /posts in a profile (a fiber step and a
   * channel executor per event and subscriber; issue 10). The listener must not block or throw; a throw is logged.
   */
  readonly onLocal: (listener: (event: LocalEnvelope) => void) => Effect.Effect<void, never, Scope.Scope>
  /**
   * The same events, handled one after another, in publishing order, by `handle`: for a subscriber whose work is
   * mostly plain code (the realtime hub's delivery). `handle` is called synchronously inside `publish` while nothing
   * is waiting (issue 10: no fiber woken per post), and does what it can there; the effect it returns, if any (work
   * that waits, such as a lookup), runs on one fiber taking from a queue, and later events wait behind it in that
   * queue, so the order holds. Like a listener, `handle` must not block or throw.
   */
  readonly runLocal: (handle: (event: LocalEnvelope) => Effect.Effect<void> | undefined) => Effect.Effect<void, never, Scope.Scope>
  /** Events waiting for the bus to come back (0 when it is up). */
  readonly outboxSize: Effect.Effect<number>
}

export class EventBus extends Context.Tag("service/EventBus")<EventBus, EventBusService>() {}

/**
 * This node's envelope of a typed event, its wire `data` built on first read (issue 10): the bus reads it only when
 * another node will get the event, the hub only when a socket here does; push, mails and outgoing webhooks read the
 * typed event. An own enumerable property (a getter, kept once read), so spreading or comparing the envelope sees
 * `data` as before.
 */
const ownEnvelope = (domain: DomainEvent, broadcast: Broadcast, created_at: number, id: number, origin: string): LocalEnvelope => {
  let data: Record<string, unknown> | undefined
  return {
    event: EventNames[domain._tag],
    get data() {
      return data ??= toWire(domain).data
    },
    broadcast,
    created_at,
    id,
    origin,
    domain
  }
}

/** The session ids in a decoded SessionEnded's data (its wire form: `session_ids`); none when they are not strings. */
const sessionIdsOf = (data: Readonly<Record<string, unknown>>): ReadonlyArray<string> => {
  const ids = data.session_ids
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === "string") : []
}

export const make = Effect.gen(function*() {
  const pubsub = yield* PubSub
  const local = yield* LocalPubSub.unbounded<LocalEnvelope>()
  // Local sockets get this node's events without a round trip through the bus (and its JSON both ways); the copies
  // the bus brings back are skipped. Events of one node still arrive in the order it published them.
  const origin = newId()
  const ownSuffix = `,"origin":${JSON.stringify(origin)}}`
  const listeners = new Set<(event: LocalEnvelope) => void>()
  /** The last event number this node gave. */
  let numbered = 0

  // The outbox: events the other nodes have not been sent because the bus failed (Redis down). They go out in
  // order once it answers again, so an outage delays them instead of losing them; while it holds anything, new
  // events queue behind it to keep the order. In memory, per node: a node that dies with a full outbox takes it
  // along, which its sockets' clients see as that node's restart.
  const outbox: Array<string> = []
  // In memory no other node exists: nothing is published to the bus, whose only reader would be this node's own
  // subscriber skipping its own events (issue 10: a Stream step and an envelope's JSON per post, for nothing).
  const shared = pubsub.reachesOtherNodes
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
      const reset = encode(Schema.decodeSync(Envelope)({ event: RESET_SOCKETS_EVENT, data: {}, broadcast: {}, created_at, id: ++numbered, origin }))
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

  // One reader of the bus for the whole node, not one per subscriber: each message is looked at once and each other
  // node's event decoded once, then handed to the subscribers (the hub, the page cache, the sessions' copies). With a
  // reader each, every event (this node's own, which the bus brings back too) cost each of them a Stream step and
  // a decode (issue 31). This node's own messages end with its origin, as both encodings above write it last, so
  // they are skipped before the Schema decodes anything (issue 10); copies of an event already seen are dropped.
  // None in memory (nothing is published there).
  const remote = yield* LocalPubSub.unbounded<Envelope>()
  const ended = yield* LocalPubSub.unbounded<ReadonlyArray<string>>()
  if (shared) {
    const firstSeen = makeFirstSeen()
    yield* pubsub.subscribe(TOPIC).pipe(
      Stream.runForEach((raw) =>
        Effect.sync(() => {
          if (raw.endsWith(ownSuffix)) return
          const envelope = decode(raw)
          if (Option.isNone(envelope) || envelope.value.origin === origin || !firstSeen(envelope.value.origin, envelope.value.id)) return
          if (envelope.value.event === EventNames.SessionEnded) ended.unsafeOffer(sessionIdsOf(envelope.value.data))
          remote.unsafeOffer(envelope.value)
        })
      ),
      Effect.forkScoped
    )
  }

  const service: EventBusService = {
    outboxSize: Effect.sync(() => outbox.length),
    publish: ((first: DomainEvent | string, second: Record<string, unknown> | BroadcastInput, third?: BroadcastInput) => {
      const domain = typeof first === "string" ? undefined : first
      const broadcast = domain === undefined ? third ?? {} : second as BroadcastInput
      // Plain code around three effects (the clock, this node's subscribers, the bus), not an Effect.gen: it runs for
      // every post and every other event (issue 10).
      return Effect.clockWith((clock) => {
        const created_at = clock.unsafeCurrentTimeMillis()
        const id = ++numbered
        const b = withDefaults(broadcast)
        // The wire form is built at most once, from the typed event (plain code, no Schema: see schemas/Events.ts).
        const envelope: LocalEnvelope = domain === undefined
          ? { event: first as string, data: second, broadcast: b, created_at, id, origin, domain }
          : ownEnvelope(domain, b, created_at, id, origin)
        const event = envelope.event
        let failures: Array<unknown> | undefined
        for (const listener of listeners) {
          try {
            listener(envelope)
          } catch (error) {
            ;(failures ??= []).push(error)
          }
        }
        // The encoded envelope is the envelope itself (no field is transformed), so JSON.stringify of its fields is
        // its encoding: one JSON encode per publish, as before events were typed (the typed event stays here).
        // The local PubSub is unbounded: offering never waits, so it is done here rather than as one more step.
        local.unsafeOffer(envelope)
        const published = !shared ? Effect.void : Effect.suspend(() => {
          const message = JSON.stringify({ event, data: envelope.data, broadcast: b, created_at, id, origin })
          return outbox.length > 0 ? enqueue(message) : Effect.catchAll(pubsub.publish(TOPIC, message), () => enqueue(message))
        })
        return failures === undefined ? published : Effect.zipRight(
          Effect.forEach(failures, (error) => Effect.logError("local event listener failed", error).pipe(Effect.annotateLogs({ event })), { discard: true }),
          published
        )
      }).pipe(
        Effect.catchAllCause((cause) => Effect.logError("event publish failed", cause).pipe(Effect.annotateLogs({ event: domain?._tag ?? first })))
      )
    }) as Publish,
    remoteEvents: !shared ? Stream.never : Stream.fromPubSub(remote),
    sessionsEnded: !shared ? Stream.never : Stream.fromPubSub(ended),
    localEvents: Stream.fromPubSub(local),
    subscribeLocal: Effect.map(LocalPubSub.subscribe(local), (queue) => Stream.fromQueue(queue)),
    onLocal: (listener) =>
      Effect.acquireRelease(Effect.sync(() => listeners.add(listener)), () => Effect.sync(() => listeners.delete(listener))).pipe(Effect.asVoid),
    // Handled in the listener while nothing waits; else through its own queue and fiber (issue 10).
    runLocal: (handle) =>
      Effect.flatMap(Effect.acquireRelease(Queue.unbounded<Effect.Effect<void>>(), Queue.shutdown), (queue) => {
        // Work queued or running on the fiber: while there is any, later events queue behind it.
        let pending = 0
        const listener = (event: LocalEnvelope) => {
          const work = pending === 0 ? handle(event) : Effect.suspend(() => handle(event) ?? Effect.void)
          if (work === undefined) return
          pending++
          queue.unsafeOffer(work)
        }
        return Effect.zipRight(
          Effect.acquireRelease(Effect.sync(() => listeners.add(listener)), () => Effect.sync(() => listeners.delete(listener))),
          Effect.forkScoped(Effect.forever(
            // A batch per wake-up: under load one suspension serves many events.
            Effect.flatMap(Queue.takeBetween(queue, 1, 64), (batch) =>
              Effect.ensuring(
                Effect.forEach(batch, (work) => work, { discard: true }),
                Effect.sync(() => {
                  pending -= batch.length
                })
              ))
          ))
        )
      }).pipe(Effect.asVoid)
  }
  return service
})

export const layer = Layer.scoped(EventBus, make)

import { Context, Data, Effect, Layer, PubSub as EffectPubSub, Redacted, Stream } from "effect"
import type { RedisOptions } from "ioredis"
import { Redis } from "ioredis"
import { isRedisUnavailable } from "./RedisFailures.ts"
import { makeCircuitBreaker, Policies, type CircuitOpenError } from "./Resilience.ts"

/**
 * The cluster-wide message bus. Messages are strings here; typed, Schema-encoded envelopes live one level up
 * (src/events/EventBus.ts) so that each event is encoded once and every node decodes it the same way.
 */
/** A publish Redis has not answered within this fails (and counts toward the breaker). */
const PUBLISH_TIMEOUT_MS = 1_000

export class PubSubError extends Data.TaggedError("PubSubError")<{ readonly op: string; readonly cause: unknown }> {}

export interface PubSubService {
  /**
   * Whether a message can reach another process (Redis: yes). In memory it reaches only this process's own
   * subscribers, so a publisher that is the topic's only reader here (the event bus) need not publish at all.
   */
  readonly reachesOtherNodes: boolean
  readonly publish: (topic: string, message: string) => Effect.Effect<void, PubSubError | CircuitOpenError>
  /** Messages published to the topic from now on, by any node (this one included). */
  readonly subscribe: (topic: string) => Stream.Stream<string>
  /**
   * One element each time this node's subscriptions came back after a break: whatever other nodes published
   * meanwhile never arrived here (Redis pub/sub keeps nothing for an absent subscriber), so state that depends on
   * having seen every message must be rebuilt. Never emits in memory.
   */
  readonly gaps: Stream.Stream<void>
}

export class PubSub extends Context.Tag("service/PubSub")<PubSub, PubSubService>() {}

export const makeMemory = Effect.sync(() => {
  // One hub per topic: a message wakes only its own topic's subscribers. With one hub for every topic, each post's
  // event woke the user cache's, the takeover's and the outgoing hooks' subscribers too, a fiber step each only to
  // drop it (issue 10).
  const hubs = new Map<string, EffectPubSub.PubSub<string>>()
  const hubOf = (topic: string) => {
    let hub = hubs.get(topic)
    if (hub === undefined) hubs.set(topic, hub = Effect.runSync(EffectPubSub.unbounded<string>()))
    return hub
  }
  const service: PubSubService = {
    reachesOtherNodes: false,
    publish: (topic, message) => Effect.asVoid(EffectPubSub.publish(hubOf(topic), message)),
    gaps: Stream.never,
    subscribe: (topic) => Stream.suspend(() => Stream.fromPubSub(hubOf(topic)))
  }
  return service
})

export const makeRedis = (url: Redacted.Redacted) =>
  Effect.gen(function*() {
    const open = (name: string, options: RedisOptions = {}) =>
      Effect.acquireRelease(
        Effect.sync(() => new Redis(Redacted.value(url), { lazyConnect: true, connectionName: name, ...options })),
        (c) => Effect.promise(() => c.quit().catch(() => c.disconnect()))
      ).pipe(
        Effect.tap((c) =>
          Effect.tryPromise({ try: () => c.connect(), catch: (cause) => new PubSubError({ op: "connect", cause }) }).pipe(
            Effect.retry(Policies.idempotentStore)
          )
        ),
        Effect.tap((c) => Effect.sync(() => c.on("error", () => {})))
      )
    // A Redis connection in subscriber mode cannot publish, so each node keeps one of each.
    // A publish while Redis is away fails at once (no offline queue, no retries): the request that published must
    // not wait for a reconnection; the event bus keeps what could not be sent (src/events/EventBus.ts).
    const publisher = yield* open("service-pub", { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: PUBLISH_TIMEOUT_MS })
    const subscriber = yield* open("service-sub")
    const gaps = yield* EffectPubSub.unbounded<void>()
    // ioredis resubscribes by itself when the connection comes back; what was published in between is gone.
    let broken = false
    subscriber.on("close", () => {
      broken = true
    })
    subscriber.on("ready", () => {
      if (!broken) return
      broken = false
      Effect.runSync(EffectPubSub.publish(gaps, undefined))
    })
    // One hub per topic, as in memory: a message wakes only its own topic's subscribers. With one hub for every
    // topic, each event woke every subscriber of the node (the user cache's, the takeover's, the page cache's clear,
    // the outgoing hooks'...), a Stream step each only to filter it out; in a profile of SERVICE_WORKERS=split's
    // sockets worker those steps were a fifth of its CPU (issue 31).
    const hubs = new Map<string, EffectPubSub.PubSub<string>>()
    const hubOf = (topic: string) => {
      let hub = hubs.get(topic)
      if (hub === undefined) hubs.set(topic, hub = Effect.runSync(EffectPubSub.unbounded<string>()))
      return hub
    }
    // One SUBSCRIBE per topic; later subscribers wait for the same confirmation, so none starts before Redis delivers.
    const subscriptions = new Map<string, Promise<unknown>>()
    const redisSubscribe = (topic: string) => {
      let pending = subscriptions.get(topic)
      if (pending === undefined) {
        pending = subscriber.subscribe(topic)
        pending.catch(() => subscriptions.delete(topic))
        subscriptions.set(topic, pending)
      }
      return pending
    }
    subscriber.on("message", (topic: string, message: string) => {
      const hub = hubs.get(topic)
      if (hub !== undefined) Effect.runSync(EffectPubSub.publish(hub, message))
    })
    // Like the cache's: an error reply fails that publish alone (RedisFailures.ts).
    const breaker = yield* makeCircuitBreaker({
      name: "redis-pubsub",
      maxFailures: 3,
      resetAfter: "1 second",
      isFailure: (e) => e instanceof PubSubError && isRedisUnavailable(e)
    })
    const service: PubSubService = {
      reachesOtherNodes: true,
      publish: (topic, message) =>
        breaker.protect(
          // The second's limit is ioredis's own (commandTimeout): an Effect timeout forks a fiber and a timer per
          // publish, which for every event of a busy node cost more than the publish (issue 31).
          Effect.tryPromise({ try: () => publisher.publish(topic, message), catch: (cause) => new PubSubError({ op: "publish", cause }) })
        ).pipe(Effect.asVoid),
      gaps: Stream.fromPubSub(gaps),
      subscribe: (topic) =>
        Stream.unwrapScoped(Effect.gen(function*() {
          const queue = yield* EffectPubSub.subscribe(hubOf(topic))
          yield* Effect.tryPromise(() => redisSubscribe(topic)).pipe(Effect.retry(Policies.idempotentStore), Effect.orDie)
          return Stream.fromQueue(queue)
        }))
    }
    return service
  })

export const layerMemory: Layer.Layer<PubSub> = Layer.scoped(PubSub, makeMemory)
export const layerRedis = (url: Redacted.Redacted): Layer.Layer<PubSub, PubSubError> => Layer.scoped(PubSub, makeRedis(url))

import { expect } from "@effect/vitest"
import { Effect, Fiber, Ref, type Scope, Stream } from "effect"
import type { PubSubService } from "../../layers/PubSub.ts"

/** The behaviour every PubSub implementation owes its callers, run against memory and Redis. */
export interface PubSubHarness {
  readonly make: Effect.Effect<PubSubService, unknown, Scope.Scope>
  /** A topic no other run shares. */
  readonly topic: (name: string) => string
}

const PROBE = "__probe__"

/**
 * Collects a topic's messages in the background. A subscription starts when its stream runs, so the collector
 * publishes probes until one comes back: from then on it is certain to see every message.
 */
const collector = (pubsub: PubSubService, topic: string) =>
  Effect.gen(function*() {
    const received = yield* Ref.make<ReadonlyArray<string>>([])
    yield* pubsub.subscribe(topic).pipe(
      Stream.runForEach((m) => Ref.update(received, (all) => [...all, m])),
      Effect.forkScoped
    )
    const within = <A, E, R>(what: string, effect: Effect.Effect<A, E, R>) =>
      Effect.timeoutFail(effect, { duration: "5 seconds", onTimeout: () => new Error(`${what} on ${topic}`) })
    yield* within("no subscription", Effect.gen(function*() {
      while (!(yield* Ref.get(received)).includes(PROBE)) {
        yield* pubsub.publish(topic, PROBE)
        yield* Effect.sleep("20 millis")
      }
    }))
    const messages = Effect.map(Ref.get(received), (all) => all.filter((m) => m !== PROBE))
    return {
      /** Waits until `n` messages arrived (and fails after a few seconds). */
      awaitCount: (n: number) =>
        within(`fewer than ${n} messages`, Effect.gen(function*() {
          let all = yield* messages
          while (all.length < n) {
            yield* Effect.sleep("10 millis")
            all = yield* messages
          }
          return all
        }))
    }
  })

type Case = readonly [name: string, body: (h: PubSubHarness) => Effect.Effect<void, unknown, Scope.Scope>]

export const pubSubContract: ReadonlyArray<Case> = [
  ["a subscriber receives its topic's messages in order and no other topic's", (h) =>
    Effect.gen(function*() {
      const pubsub = yield* h.make
      const topic = h.topic("a")
      const other = h.topic("b")
      const sub = yield* collector(pubsub, topic)
      yield* pubsub.publish(other, "elsewhere")
      for (const m of ["one", "two", "three"]) yield* pubsub.publish(topic, m)
      expect(yield* sub.awaitCount(3)).toEqual(["one", "two", "three"])
    })],

  ["every subscriber of a topic receives every message", (h) =>
    Effect.gen(function*() {
      const pubsub = yield* h.make
      const topic = h.topic("fanout")
      const first = yield* collector(pubsub, topic)
      const second = yield* collector(pubsub, topic)
      yield* pubsub.publish(topic, "hello")
      expect(yield* first.awaitCount(1)).toEqual(["hello"])
      expect(yield* second.awaitCount(1)).toEqual(["hello"])
    })],

  ["a subscriber sees only what was published after it subscribed", (h) =>
    Effect.gen(function*() {
      const pubsub = yield* h.make
      const topic = h.topic("late")
      yield* pubsub.publish(topic, "before")
      const sub = yield* collector(pubsub, topic)
      yield* pubsub.publish(topic, "after")
      expect(yield* sub.awaitCount(1)).toEqual(["after"])
    })],

  ["a subscription ends with its scope while others continue", (h) =>
    Effect.gen(function*() {
      const pubsub = yield* h.make
      const topic = h.topic("scoped")
      const stays = yield* collector(pubsub, topic)
      const leaving = yield* Effect.fork(Effect.scoped(Effect.gen(function*() {
        const sub = yield* collector(pubsub, topic)
        yield* pubsub.publish(topic, "first")
        return yield* sub.awaitCount(1)
      })))
      expect(yield* Fiber.join(leaving)).toEqual(["first"])
      yield* pubsub.publish(topic, "second")
      expect(yield* stays.awaitCount(2)).toEqual(["first", "second"])
    })]
]

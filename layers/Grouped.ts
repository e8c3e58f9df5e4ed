import { Effect, Exit, Runtime } from "effect"

/**
 * Group commit for a hot statement (issue 31): requests of the same kind by different callers share one statement
 * when they arrive while an earlier one is in flight. A request that finds fewer than `maxInFlight` statements
 * running sends its own at once, so at low load nothing waits and nothing changes; under load the requests that queue
 * behind a running statement go together in the next one, so the statements per request fall as the load rises,
 * where each statement (a round trip that wakes a PostgreSQL backend, competing for the same cores) is what made a
 * busy node slower still.
 *
 * Written here rather than taken from Effect: its request batching (`Effect.request`, `RequestResolver`) groups the
 * requests of one fiber's composition, not those of concurrent fibers, which is what concurrent HTTP requests are.
 *
 * `run` runs the statement for a list of distinct keys (at most `maxBatch`, and each accepted by `fits` given those
 * taken before it: a key that does not fit waits for a later statement) and returns each key's answer; it runs in the
 * runtime the batcher was made in, not in the requesting fiber. A failed statement fails every request of its batch,
 * as each would have failed alone; a request interrupted while queued leaves the queue.
 */
export interface GroupedOptions<K, A, E> {
  readonly run: (keys: ReadonlyArray<K>) => Effect.Effect<(key: K) => A, E>
  readonly maxBatch: number
  readonly maxInFlight: number
  /** Whether `key` may join the keys already taken for a statement (default: always). The first key always goes. */
  readonly fits?: (key: K, taken: ReadonlyArray<K>) => boolean
  /** Called per statement with its number of requests (metrics). */
  readonly onBatch?: (requests: number) => void
}

interface Waiting<K, A, E> {
  readonly key: K
  readonly resume: (effect: Effect.Effect<A, E>) => void
}

export const grouped = <K, A, E>(options: GroupedOptions<K, A, E>): Effect.Effect<(key: K) => Effect.Effect<A, E>> =>
  Effect.map(Effect.runtime<never>(), (runtime) => {
    const runFork = Runtime.runFork(runtime)
    let queue: Array<Waiting<K, A, E>> = []
    let inFlight = 0

    /** The next statement's requests, in arrival order; the rest stay queued in theirs. */
    const take = (): Array<Waiting<K, A, E>> => {
      const fits = options.fits
      if (fits === undefined || queue.length === 1) return queue.splice(0, options.maxBatch)
      const batch: Array<Waiting<K, A, E>> = []
      const keys: Array<K> = []
      const rest: Array<Waiting<K, A, E>> = []
      for (const waiting of queue) {
        if (batch.length < options.maxBatch && (batch.length === 0 || fits(waiting.key, keys))) {
          batch.push(waiting)
          keys.push(waiting.key)
        } else rest.push(waiting)
      }
      queue = rest
      return batch
    }

    const start = () => {
      const batch = take()
      const keys = [...new Set(batch.map((w) => w.key))]
      inFlight++
      options.onBatch?.(batch.length)
      const fiber = runFork(options.run(keys))
      fiber.addObserver((exit) => {
        inFlight--
        if (Exit.isSuccess(exit)) {
          const answer = exit.value
          for (const waiting of batch) waiting.resume(Effect.sync(() => answer(waiting.key)))
        } else {
          for (const waiting of batch) waiting.resume(Exit.failCause(exit.cause))
        }
        if (queue.length > 0 && inFlight < options.maxInFlight) start()
      })
    }

    return (key: K) =>
      Effect.async<A, E>((resume) => {
        const waiting: Waiting<K, A, E> = { key, resume }
        queue.push(waiting)
        if (inFlight < options.maxInFlight) start()
        // Interrupted while still queued: it leaves the queue (once in a running batch, its answer is ignored).
        return Effect.sync(() => {
          const at = queue.indexOf(waiting)
          if (at !== -1) queue.splice(at, 1)
        })
      })
  })

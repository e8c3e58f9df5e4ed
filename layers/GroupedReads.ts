import { Effect, Exit, Runtime } from "effect"

/**
 * Group commit for a hot read (issue 31): requests for the same kind of row by different keys (users) share one
 * statement when they arrive while an earlier one is in flight. A request that finds fewer than `maxInFlight`
 * statements running sends its own at once, so at low load nothing waits and nothing changes; under load the
 * requests that queue behind a running statement go together in the next one, so the statements per request fall as
 * the load rises, where each statement (a round trip that wakes a PostgreSQL backend, competing for the same cores)
 * is what made a busy node slower still.
 *
 * Written here rather than taken from Effect: its request batching (`Effect.request`, `RequestResolver`) groups the
 * requests of one fiber's composition, not those of concurrent fibers, which is what concurrent HTTP requests are.
 *
 * `run` reads the rows of a list of distinct keys (at most `maxBatch`) and returns each key's answer; it runs in the
 * runtime the batcher was made in, not in the requesting fiber. A failed statement fails every request of its batch,
 * as each would have failed alone; a request interrupted while queued leaves the queue.
 */
export interface GroupedOptions<K, A, E> {
  readonly run: (keys: ReadonlyArray<K>) => Effect.Effect<(key: K) => A, E>
  readonly maxBatch: number
  readonly maxInFlight: number
  /** Called per statement with its number of keys (metrics). */
  readonly onBatch?: (size: number) => void
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

    const start = () => {
      const batch = queue.length <= options.maxBatch ? queue : queue.slice(0, options.maxBatch)
      queue = queue.length <= options.maxBatch ? [] : queue.slice(options.maxBatch)
      const keys = [...new Set(batch.map((w) => w.key))]
      inFlight++
      options.onBatch?.(keys.length)
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

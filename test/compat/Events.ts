import { Effect, Fiber, Stream } from "effect"
import { type Envelope, EventBus } from "../../src/events/EventBus.ts"
import type { TestServer } from "../support/TestServer.ts"

/**
 * Records what a test server publishes on its event bus. A probe event is published and awaited before returning,
 * so the subscription is known to be live and no event of the test can be missed.
 */
export const recordEvents = async (server: TestServer) => {
  const events: Array<Envelope> = []
  const fiber = server.runtime.runFork(
    Effect.flatMap(EventBus, (bus) => Stream.runForEach(bus.localEvents, (e) => Effect.sync(() => events.push(e))))
  )
  const waitFor = async (predicate: (e: Envelope) => boolean, timeoutMs = 5000): Promise<Envelope> => {
    const started = Date.now()
    for (;;) {
      const found = events.find(predicate)
      if (found !== undefined) return found
      if (Date.now() - started > timeoutMs) throw new Error("expected event was not published")
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  }
  for (;;) {
    await server.runtime.runPromise(Effect.flatMap(EventBus, (bus) => bus.publish("test_probe", {}, {})))
    const seen = await waitFor((e) => e.event === "test_probe", 200).then(() => true, () => false)
    if (seen) break
  }
  return {
    events,
    waitFor,
    clear: () => events.splice(0, events.length),
    stop: () => server.runtime.runPromise(Fiber.interrupt(fiber))
  }
}

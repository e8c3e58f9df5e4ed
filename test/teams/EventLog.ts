import { Effect, Fiber, Stream } from "effect"
import { type Envelope, EventBus } from "../../src/events/EventBus.ts"
import type { TestServer } from "../support/TestServer.ts"

/** Records every event the server publishes, so tests can check payloads and broadcast scopes. */
export interface EventLog {
  readonly events: Array<Envelope>
  readonly named: (event: string) => ReadonlyArray<Envelope>
  readonly clear: () => void
  readonly stop: () => Promise<void>
}

export const recordEvents = async (server: TestServer): Promise<EventLog> => {
  const events: Array<Envelope> = []
  const fiber = server.runtime.runFork(
    Effect.flatMap(EventBus, (bus) => Stream.runForEach(bus.localEvents, (e) => Effect.sync(() => events.push(e))))
  )
  // Let the subscription start before the test acts.
  await new Promise((resolve) => setTimeout(resolve, 50))
  return {
    events,
    named: (event) => events.filter((e) => e.event === event),
    clear: () => void events.splice(0),
    stop: () => server.runtime.runPromise(Fiber.interrupt(fiber)).then(() => undefined)
  }
}

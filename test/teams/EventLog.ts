import type { Envelope } from "../../src/events/EventBus.ts"
import { recordEvents as record } from "../compat/Events.ts"
import type { TestServer } from "../support/TestServer.ts"

/** The shared event recorder, with a lookup by event name. */
export interface EventLog {
  readonly events: Array<Envelope>
  readonly named: (event: string) => ReadonlyArray<Envelope>
  readonly clear: () => void
  readonly stop: () => Promise<unknown>
}

export const recordEvents = async (server: TestServer): Promise<EventLog> => {
  const log = await record(server)
  return {
    events: log.events,
    named: (event) => log.events.filter((e) => e.event === event),
    clear: () => void log.clear(),
    stop: log.stop
  }
}

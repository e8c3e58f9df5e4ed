import { Clock, Context, Effect, Layer } from "effect"

/**
 * The recent security events of this node, kept in memory for the System Console's Health page (GET
 * /api/v1/admin/security_events) beside the structured log line each one writes. A bounded ring: the newest
 * `CAPACITY` events, lost on restart; the log remains the record to keep and to search.
 */
export interface RecordedEvent {
  readonly at: number
  readonly name: string
  readonly severity: string
  readonly details: Readonly<Record<string, string | number | boolean>>
}

export interface SecurityEventLogService {
  /** Keeps an event; of its details only plain values (strings, numbers, booleans). */
  readonly record: (event: { readonly name: string; readonly severity: string; readonly details: Record<string, unknown> }) => Effect.Effect<void>
  /** Newest first; `total` is how many the node holds. */
  readonly page: (offset: number, limit: number) => Effect.Effect<{ readonly events: ReadonlyArray<RecordedEvent>; readonly total: number }>
}

export class SecurityEventLog extends Context.Tag("service/SecurityEventLog")<SecurityEventLog, SecurityEventLogService>() {}

export const CAPACITY = 1000

/** Only plain values are kept, so that an event's details never carry an object the log would not show either. */
const plain = (details: Record<string, unknown>) => {
  const out: Record<string, string | number | boolean> = {}
  for (const [k, v] of Object.entries(details)) {
    if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") out[k] = v
  }
  return out
}

export const make = Effect.sync((): SecurityEventLogService => {
  const ring: Array<RecordedEvent> = []
  return {
    record: (event) =>
      Effect.map(Clock.currentTimeMillis, (at) => {
        ring.push({ at, name: event.name, severity: event.severity, details: plain(event.details) })
        if (ring.length > CAPACITY) ring.shift()
      }),
    page: (offset, limit) =>
      Effect.sync(() => {
        const newestFirst = ring.slice().reverse()
        return { events: newestFirst.slice(offset, offset + limit), total: ring.length }
      })
  }
})

export const layer = Layer.effect(SecurityEventLog, make)

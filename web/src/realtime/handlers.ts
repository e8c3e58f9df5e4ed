/**
 * A feature's WebSocket handlers: event name → what it does with the event's `data` and `broadcast`. Each feature
 * keeps its own table next to its state (`channels/events.ts`, `posts/events.ts`, …); `realtime/socket.ts` calls
 * every table's handler for an event, so an event several features care about (preferences) reaches each of them.
 */
export type Handlers = Readonly<Record<string, (data: Record<string, any>, broadcast: Record<string, any>) => void>>

/** The JSON text many events carry (`"post": "{…}"`), read without throwing on a malformed frame. */
export const json = <T>(text: unknown, fallback: T): T => {
  if (typeof text !== "string") return (text as T) ?? fallback
  try {
    return JSON.parse(text) as T
  } catch {
    return fallback
  }
}

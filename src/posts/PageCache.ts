import { Context, Effect, Layer, Stream } from "effect"
import { PubSub } from "../../layers/PubSub.ts"
import { AppConfig } from "../Config.ts"
import { EventBus, type Envelope, RESET_SOCKETS_EVENT } from "../events/EventBus.ts"

/**
 * A per-node cache of channel pages as the text they are answered with (issue 31). Channel pages are the most
 * frequent read clients make (a channel switch, a scroll) and the most expensive: about 0.6 ms of PostgreSQL and
 * 1 ms of the service to walk, hydrate, parse and encode 60 posts. In a chat channel far more people read a page than
 * write to it, so most pages can be answered from memory; the access check still runs in PostgreSQL on every request
 * (a small statement), so what a cached page saves is the walk, the hydration and the JSON, never a permission.
 *
 * What may be cached: a page's text is the same for every caller unless the caller's thread membership shows in it,
 * which happens only with collapsed threads (`is_following`, and the participants' profiles in the extended form).
 * So a page without collapsed threads is shared by every reader of the channel, a collapsed-threads page only when
 * none of its roots has a thread, and an extended one never (ListRoutes.channelPage decides).
 *
 * Correctness rests on invalidation by the event bus: every change of what a page shows (a post created, edited,
 * deleted or pinned, a reaction, an acknowledgement, a link preview, a reply updating its root's thread) is published
 * as an event broadcast to the channel, after its transaction commits, on this node and every other. Each such event
 * marks its channel changed here, and an entry is used only if its channel did not change since the read that made
 * it started. Three gaps are closed separately:
 * - a read that started before a change committed and finishes after the event would store what it read before:
 *   a read takes a ticket (the event counter) when it starts and stores only if its channel's last change is older;
 * - events lost between nodes (the bus reports a gap, or its outbox overflowed and asks every node to reset): all
 *   entries are dropped;
 * - writes that publish no event per channel (an import, a new custom emoji that reactions already named): their
 *   writers call `clear`, which also reaches the other nodes over the bus; entries also expire after TTL_MS, a bound
 *   on staleness should a change ever go unannounced.
 * Other nodes learn of a change when its event reaches them (milliseconds, as their sockets do).
 */
export interface PageCacheService {
  /** The cached text of `key` in `channelId` while it is current, else undefined. */
  readonly get: (channelId: string, key: string) => string | undefined
  /** A ticket for a read of `channelId` about to start: `put` stores its result only if nothing changed since. */
  readonly ticket: () => number
  readonly put: (channelId: string, key: string, ticket: number, text: string) => void
  /** Drops every page, on this node and the others (writes no channel event announces: imports). */
  readonly clear: Effect.Effect<void>
}

export class PageCache extends Context.Tag("service/PageCache")<PageCache, PageCacheService>() {}

export const PAGE_CACHE_CLEAR_TOPIC = "service:page-cache-clear"
const TTL_MS = 15_000
/** Characters of text kept (a 60-post page is about 30,000): roughly 64 MB at most. */
const MAX_CHARS = 32_000_000
/** Channels whose last change is remembered; beyond it the memory is reset (and every entry with it). */
const MAX_CHANGED = 100_000

/** Events broadcast to a channel that change nothing a page shows (typing is the frequent one). */
const NOT_CONTENT = new Set(["typing", "user_typing", "channel_viewed", "channel_member_updated"])

interface Entry {
  readonly channelId: string
  readonly text: string
  readonly ticket: number
  readonly at: number
}

/** SERVICE_PAGE_CACHE=false: every page is read (a bench measuring the read itself, or ruling the cache out). */
const off: PageCacheService = { get: () => undefined, ticket: () => 0, put: () => undefined, clear: Effect.void }

export const make = Effect.gen(function*() {
  if (!(yield* AppConfig).pageCache) return off
  const bus = yield* EventBus
  const pubsub = yield* PubSub
  const clock = yield* Effect.clock

  const entries = new Map<string, Entry>()
  let chars = 0
  /** The event counter: every change takes the next number. */
  let counter = 0
  /** Per channel, the number of its last change. */
  const changed = new Map<string, number>()
  /** Tickets at or below this were taken before everything was dropped. */
  let floor = 0

  const dropAll = () => {
    floor = ++counter
    changed.clear()
    entries.clear()
    chars = 0
  }
  const channelChanged = (channelId: string) => {
    if (changed.size >= MAX_CHANGED) dropAll()
    changed.set(channelId, ++counter)
  }
  const onEvent = (envelope: Pick<Envelope, "event" | "broadcast">) => {
    const channelId = envelope.broadcast.channel_id
    if (channelId !== "") {
      if (!NOT_CONTENT.has(envelope.event)) channelChanged(channelId)
    } else if (envelope.event === RESET_SOCKETS_EVENT || envelope.event === "emoji_added") {
      // Lost events; a new custom emoji appears in the metadata of posts that already reacted with its name.
      dropAll()
    }
  }
  const current = (entry: Entry, now: number) =>
    entry.ticket >= floor && now - entry.at < TTL_MS && (changed.get(entry.channelId) ?? 0) <= entry.ticket

  yield* bus.onLocal(onEvent)
  yield* bus.remoteEvents.pipe(Stream.runForEach((envelope) => Effect.sync(() => onEvent(envelope))), Effect.forkScoped)
  yield* pubsub.gaps.pipe(Stream.runForEach(() => Effect.sync(dropAll)), Effect.forkScoped)
  yield* pubsub.subscribe(PAGE_CACHE_CLEAR_TOPIC).pipe(Stream.runForEach(() => Effect.sync(dropAll)), Effect.forkScoped)

  const service: PageCacheService = {
    get: (channelId, key) => {
      const entry = entries.get(`${channelId}|${key}`)
      if (entry === undefined) return undefined
      if (current(entry, clock.unsafeCurrentTimeMillis())) return entry.text
      entries.delete(`${channelId}|${key}`)
      chars -= entry.text.length
      return undefined
    },
    ticket: () => counter,
    put: (channelId, key, ticket, text) => {
      if (ticket < floor || (changed.get(channelId) ?? 0) > ticket || text.length > MAX_CHARS / 100) return
      const id = `${channelId}|${key}`
      const old = entries.get(id)
      if (old !== undefined) {
        entries.delete(id)
        chars -= old.text.length
      }
      // Oldest first out (Map keeps insertion order): a page read again is stored again, at the end.
      while (chars + text.length > MAX_CHARS && entries.size > 0) {
        const [oldestId, oldest] = entries.entries().next().value!
        entries.delete(oldestId)
        chars -= oldest.text.length
      }
      entries.set(id, { channelId, text, ticket, at: clock.unsafeCurrentTimeMillis() })
      chars += text.length
    },
    clear: Effect.zipRight(
      Effect.sync(dropAll),
      Effect.ignore(pubsub.publish(PAGE_CACHE_CLEAR_TOPIC, "all"))
    )
  }
  return service
})

export const layer = Layer.scoped(PageCache, make)

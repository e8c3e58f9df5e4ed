import { Context, Effect, Layer, Stream } from "effect"
import { pageCacheCounts } from "../../layers/Metrics.ts"
import { PubSub } from "../../layers/PubSub.ts"
import { AppConfig } from "../Config.ts"
import { type DomainEvent, type EventTag, tagOf } from "../../schemas/Events.ts"
import { EventBus, type Envelope, RESET_SOCKETS_EVENT } from "../events/EventBus.ts"
import { PageReaders } from "./PageReaders.ts"

/**
 * A per-node cache of channel pages as the text they are answered with (issue 31). Channel pages are the most
 * frequent read clients make (a channel switch, a scroll) and the most expensive: about 0.6 ms of PostgreSQL and
 * 1 ms of the service to walk, hydrate, parse and encode 60 posts. In a chat channel far more people read a page than
 * write to it, so most pages can be answered from memory. Access is decided on every request: from the access row of
 * the caller's last allowed read of the channel while no event since could have changed it (PageReaders), else by the
 * access check in PostgreSQL (a small statement); a cached page saves the walk, the hydration and the JSON.
 *
 * What may be cached: a page's text is the same for every caller unless the caller's thread membership shows in it,
 * which happens only with collapsed threads (`is_following`, and the participants' profiles in the extended form).
 * So a page without collapsed threads is shared by every reader of the channel as its text; a collapsed-threads page
 * whose roots have threads is kept as pieces around each root's `is_following`, which a hit fills in for the caller
 * (FollowingPage); an extended one is never cached (ListRoutes.channelPage decides).
 *
 * Correctness rests on invalidation by the event bus: every change of what a page shows (a post created, edited,
 * deleted or pinned, a reaction, an acknowledgement, a link preview, a reply updating its root's thread) is published
 * as an event broadcast to the channel, after its transaction commits, on this node and every other. Each such event
 * marks its channel changed here, and an entry is used only if its channel did not change since the read that made
 * it started. Three gaps are closed separately:
 * - a read that started before a change committed and finishes after the event would store what it read before:
 *   a read takes a ticket (the event counter) as its statement goes out (Db.beforeSend; before it starts where the
 *   statement runs otherwise) and stores only if its channel's last change is older;
 * - events lost between nodes (the bus reports a gap, or its outbox overflowed and asks every node to reset): all
 *   entries are dropped;
 * - changes no channel event announces: a new custom emoji (reactions may already name it) drops everything on its
 *   event, and an import publishes on PAGE_CACHE_CLEAR_TOPIC, which drops everything on every node; entries also
 *   expire after TTL_MS, a bound on staleness should a change ever go unannounced.
 * Other nodes learn of a change when its event reaches them (milliseconds, as their sockets do).
 */
export interface PageCacheService {
  /** The cached page of `key` in `channelId` while it is current, else undefined. */
  readonly get: (channelId: string, key: string) => KeptPage | undefined
  /** As `get` where the page is current, without counting or dropping anything otherwise (FastPath's first look). */
  readonly peek: (channelId: string, key: string) => KeptPage | undefined
  /** A ticket for a read of `channelId` about to start: `put` stores its result only if nothing changed since. */
  readonly ticket: () => number
  /** Stores a page's text; with `leading`, page 0 or 1 of plain root posts, which new root posts shift. */
  readonly put: (channelId: string, key: string, ticket: number, page: CachedPage, leading?: LeadingPage) => void
  /** The access row of the user's last allowed read of the channel's pages while still good, else undefined (PageReaders). */
  readonly reader: (userId: string, channelId: string) => unknown
  /** A ticket for an access check about to start: `keepReader` stores its row only if no event since could change it. */
  readonly readerTicket: () => number
  /** Keeps an allowed read's access row. */
  readonly keepReader: (userId: string, channelId: string, ticket: number, row: unknown) => void
}

export class PageCache extends Context.Tag("service/PageCache")<PageCache, PageCacheService>() {}

export const PAGE_CACHE_CLEAR_TOPIC = "service:page-cache-clear"
/**
 * A bound on staleness should a change ever go unannounced: every known change invalidates through its event, so this
 * only limits the harm of a missed one. At 15 s (until 2026-11-28) the re-reads it caused were a third of all pages
 * read in the load simulation (5.8% of all pages at 5,000 users, `service_page_cache_misses_total{reason="expired"}`).
 */
const TTL_MS = 60_000
/**
 * Characters kept: texts and a newest page's parts (as UTF-8 bytes), and pieces. A 60-post newest page is about
 * 30,000 of them (its posts' JSON; it kept its text beside them, twice that, until 2026-11-29): 3,200 such pages, the
 * two newest of 1,600 channels, about 96 MB. At 32 million (until 2026-11-28) the newest pages of the load simulation's 310-410 channels at 7,500-10,000 users did not fit,
 * and the oldest went out as others came in: 22-30% of pages were read for want of an entry, against 0.1% at 5,000
 * users (200 channels).
 */
const MAX_CHARS = 96_000_000
/** Channels whose last change is remembered; beyond it the memory is reset (and every entry with it). */
const MAX_CHANGED = 100_000

/** Events broadcast to a channel that change nothing a page shows (typing is the frequent one). */
const NOT_CONTENT: ReadonlySet<EventTag> = new Set<EventTag>(["Typing", "ChannelViewed", "MultipleChannelsViewed", "ChannelMemberUpdated"])

/** A page's text, the same for every reader, or a collapsed-threads page that shows each reader's is_following. */
export type CachedPage = string | FollowingPage
/**
 * A cached page as kept: the shared text as its UTF-8 bytes. Written to each reader as is: as text, Node joined it to
 * the answer's head (a 30-60 KB string made per answer), flattened and encoded it for every reader, about a tenth of
 * a cached page's CPU (`perf record` of bench/routes-cpu.ts, 2026-11-28).
 */
export type KeptPage = Buffer | FollowingPage

const kept = (page: CachedPage): KeptPage => typeof page === "string" ? Buffer.from(page, "utf8") : page

/**
 * A collapsed-threads page whose roots with a thread show the reader's own `is_following`: its text in pieces, the
 * reader's boolean for `threads[i]` between `pieces[i]` and `pieces[i + 1]` (ListRoutes looks them up with the
 * access check, in the same statement).
 */
export interface FollowingPage {
  readonly pieces: ReadonlyArray<string>
  readonly threads: ReadonlyArray<string>
}

export const followingText = (page: FollowingPage, following: ReadonlySet<string>) => {
  let text = page.pieces[0]
  for (let i = 0; i < page.threads.length; i++) text += (following.has(page.threads[i]) ? "true" : "false") + page.pieces[i + 1]
  return text
}

const sum = (texts: ReadonlyArray<string>) => texts.reduce((n, text) => n + text.length, 0)

/** Characters an entry holds: bytes of its text, its pieces, or a leading page's parts (and its ids twice). */
const sizeOf = (entry: KeptPage | LeadingPage) =>
  Buffer.isBuffer(entry) ? entry.length : "pieces" in entry ? sum(entry.pieces) : byteSum(entry.entries) + entry.order.length * 60

const byteSum = (parts: ReadonlyArray<Buffer>) => {
  let n = 0
  for (const part of parts) n += part.length
  return n
}

/**
 * A page as kept: its text, or (a newest page) its parts, written out on each read (leadingPageBytes). A newest page
 * changes with every new root post of its channel: written out at each change and kept, its text (30-60 KB) lived
 * until the next post replaced it, long enough to outlive the young generation. Those texts were most of what the
 * service's heap and buffers kept growing by under load (6.5 MB a second at 8,000 users in the load simulation), and
 * V8 starts a full collection whenever buffers grow by 64 MB: one every 7 to 10 seconds, each a latency spike of
 * 0.3-1 s (issue 31). Written out per read, the text dies young; its parts, a post's JSON each, are what stays.
 */
interface Entry {
  readonly channelId: string
  readonly text: KeptPage | undefined
  /** Characters held. */
  readonly size: number
  readonly ticket: number
  readonly at: number
  readonly leading: LeadingPage | undefined
}

/**
 * One of a channel's two newest pages (page 0 or 1, no anchor) whose posts are all roots without a thread, kept as
 * its parts: a new root post adds itself in front of page 0 and pushes its last post to the front of page 1, whose
 * last post goes (issue 31: in a busy channel every post invalidated the pages most often asked for, the ones a
 * channel switch and a scroll read). Each post's text is as the page encodes it (toWire for the page's options,
 * JSON.stringify), so the page made of the parts is the page a read gives (test/posts/PageCache.test.ts compares
 * them with a server without the cache).
 */
export interface LeadingPage {
  readonly page: 0 | 1
  readonly perPage: number
  readonly collapsedThreads: boolean
  readonly order: ReadonlyArray<string>
  /**
   * Each post of `order`, in that order, as the page writes it (`"id":json`) in UTF-8, made once per post (pageEntry):
   * a read copies these bytes into its answer. Written out from the posts' JSON text on each read instead, a page's
   * read cost 42 µs (PageCache.test's parts, on the 2026-11-29 AMD EPYC host), a sixth of a cached page's CPU, and
   * the pages 0 and 1 of channels are 44% of the load simulation's requests (issue 31); copied, 14 µs.
   */
  readonly entries: ReadonlyArray<Buffer>
  /** The text before the posts (`listHead(order)`), made once per page rather than per read. */
  readonly head: string
  /** The post before the page (newer: page 0's last for page 1), "" for page 0. */
  readonly next: string
  /** The post after the page (older), "" when none. */
  readonly prev: string
  /** create_at of the page's newest post (0 when empty): only a newer post may be put in front of page 0. */
  readonly newestAt: number
}

/**
 * A post list's text as JSON.stringify(postList(...)) writes it (PostWire.postList's keys, in its order), from its
 * order and the JSON of each of its posts in that order (a list whose posts are exactly its order).
 */
export const listText = (
  order: ReadonlyArray<string>,
  posts: ReadonlyArray<string>,
  cursors: { readonly next: string; readonly prev: string; readonly hasNext: boolean }
) => {
  let map = ""
  for (let i = 0; i < order.length; i++) map += `${i === 0 ? "" : ","}${JSON.stringify(order[i])}:${posts[i]}`
  return `${listHead(order)}${map}${listTail(cursors)}`
}

const listHead = (order: ReadonlyArray<string>) => `{"order":${JSON.stringify(order)},"posts":{`

const listTail = (cursors: { readonly next: string; readonly prev: string; readonly hasNext: boolean }) =>
  `},"next_post_id":${JSON.stringify(cursors.next)},"prev_post_id":${JSON.stringify(cursors.prev)},"has_next":${cursors.hasNext},` +
  `"first_inaccessible_post_time":0}`

/**
 * A post as a page's bytes hold it, `"id":json`, in a buffer of its own (allocUnsafeSlow): a slice of Node's shared
 * 8 KB pool, which every small Buffer (each WebSocket frame) is cut from, would keep the whole pool alive for as long as
 * the page keeps the post. Post ids are ASCII.
 */
const pageEntry = (id: string, json: string): Buffer => {
  const bytes = Buffer.allocUnsafeSlow(id.length + 3 + Buffer.byteLength(json, "utf8"))
  bytes[0] = QUOTE
  let at = 1 + bytes.write(id, 1, "latin1")
  bytes[at++] = QUOTE
  bytes[at++] = COLON
  bytes.write(json, at, "utf8")
  return bytes
}

/** A newest page (page 0 or 1) from its posts' JSON text, as `listText` would write it. */
export const leadingPage = (page: Omit<LeadingPage, "entries" | "head"> & { readonly posts: ReadonlyArray<string> }): LeadingPage => ({
  page: page.page,
  perPage: page.perPage,
  collapsedThreads: page.collapsedThreads,
  order: page.order,
  entries: page.order.map((id, i) => pageEntry(id, page.posts[i])),
  head: listHead(page.order),
  next: page.next,
  prev: page.prev,
  newestAt: page.newestAt
})

/**
 * A newest page's text as UTF-8, as `listText` writes it: its parts' bytes copied into one buffer (writing the posts'
 * JSON text into it on each read took three times as long). The head and tail are ASCII.
 */
export const leadingPageBytes = (page: LeadingPage): Buffer => {
  const tail = listTail({ next: page.next, prev: page.prev, hasNext: page.prev !== "" })
  const { entries, head } = page
  const bytes = Buffer.allocUnsafe(head.length + tail.length + Math.max(0, entries.length - 1) + byteSum(entries))
  let at = bytes.write(head, 0, "latin1")
  for (let i = 0; i < entries.length; i++) {
    if (i > 0) bytes[at++] = COMMA
    bytes.set(entries[i], at)
    at += entries[i].length
  }
  bytes.write(tail, at, "latin1")
  return bytes
}
const COMMA = 0x2c
const QUOTE = 0x22
const COLON = 0x3a

/** A raw NUL never appears in JSON text (JSON.stringify escapes it): it marks where a reader's boolean goes. */
const SLOT = "\u0000"

/**
 * A collapsed-threads page as pieces around the is_following of each root in `threads`, from its posts' JSON (the
 * field toWire writes last), or undefined if a post does not end so.
 */
export const followingPage = (
  order: ReadonlyArray<string>,
  posts: ReadonlyArray<string>,
  threads: ReadonlySet<string>,
  cursors: { readonly next: string; readonly prev: string; readonly hasNext: boolean }
): FollowingPage | undefined => {
  const slotted: Array<string> = []
  const shown: Array<string> = []
  for (let i = 0; i < order.length; i++) {
    if (!threads.has(order[i])) {
      slotted.push(posts[i])
      continue
    }
    const json = posts[i]
    const cut = json.endsWith(`"is_following":true}`) ? 5 : json.endsWith(`"is_following":false}`) ? 6 : -1
    if (cut === -1) return undefined
    slotted.push(`${json.slice(0, -cut)}${SLOT}}`)
    shown.push(order[i])
  }
  return { pieces: listText(order, slotted, cursors).split(SLOT), threads: shown }
}

/**
 * Whether a new post can just be put in front of a newest page: not a reply (its root's thread changes), nor a
 * post with files, a priority, acknowledgements or other metadata (from their own tables), nor one whose props
 * PostgreSQL would write differently (jsonb orders an object's keys by length, then bytes, and may reformat nested
 * values; keys are held to ASCII, where JavaScript's order of same-length keys is jsonb's byte order), nor a
 * deleted one.
 */
const ASCII = /^[\x20-\x7e]*$/
const plainRoot = (post: Readonly<Record<string, unknown>>): boolean => {
  if (post.root_id !== "" || post.delete_at !== 0 || typeof post.id !== "string" || typeof post.create_at !== "number") return false
  if (post.file_ids !== undefined || post.reply_count !== 0) return false
  const metadata = post.metadata as Readonly<Record<string, ReadonlyArray<unknown> | object | undefined>> | undefined
  if (metadata === undefined || metadata.priority !== undefined) return false
  for (const list of ["files", "reactions", "acknowledgements", "embeds", "emojis"] as const) {
    const items = metadata[list]
    if (!Array.isArray(items) || items.length !== 0) return false
  }
  const props = post.props
  if (props === null || typeof props !== "object") return false
  let previous: string | undefined
  for (const [key, value] of Object.entries(props)) {
    if ((value !== null && typeof value === "object") || !ASCII.test(key)) return false
    if (previous !== undefined && (previous.length > key.length || (previous.length === key.length && previous >= key))) return false
    previous = key
  }
  return true
}

/** Page 0 with `post` in front, or undefined when it cannot be made so (see plainRoot; or not newer). */
export const withNewPost = (page: LeadingPage, post: Readonly<Record<string, unknown>>): LeadingPage | undefined => {
  if (page.page !== 0 || !plainRoot(post) || (post.create_at as number) <= page.newestAt) return undefined
  const json = JSON.stringify(post)
  // toWire's collapsed-threads fields of a root, last (a new root has no thread yet).
  const text = page.collapsedThreads ? `${json.slice(0, -1)},"last_reply_at":0,"participants":[],"is_following":false}` : json
  return pushedIn(page, post.id as string, pageEntry(post.id as string, text), "", post.create_at as number)
}

/** The page with a post put in front (its id and entry) and, if it was full, its last post pushed out. */
const pushedIn = (page: LeadingPage, id: string, entry: Buffer, next: string, newestAt: number): LeadingPage => {
  const full = page.order.length === page.perPage
  const order = [id, ...(full ? page.order.slice(0, -1) : page.order)]
  return {
    ...page,
    order,
    entries: [entry, ...(full ? page.entries.slice(0, -1) : page.entries)],
    head: listHead(order),
    next,
    prev: full ? page.order[page.order.length - 1] : page.prev,
    newestAt
  }
}

/**
 * Page 1 after a post pushed `before`'s last post out of page 0 (`after` is page 0 with the post): that post goes
 * in front of page 1. Undefined when page 0 was not full (nothing moved) or the pages do not match.
 */
export const shiftedBy = (page: LeadingPage, before: LeadingPage, after: LeadingPage): LeadingPage | undefined => {
  if (page.page !== 1 || before.order.length !== before.perPage || page.perPage !== before.perPage || page.next !== before.order[before.order.length - 1]) return undefined
  return pushedIn(page, before.order[before.order.length - 1], before.entries[before.entries.length - 1], after.order[after.order.length - 1], page.newestAt)
}

/** SERVICE_PAGE_CACHE=false: every page is read (a bench measuring the read itself, or ruling the cache out). */
const off: PageCacheService = {
  get: () => undefined,
  peek: () => undefined,
  ticket: () => 0,
  put: () => undefined,
  reader: () => undefined,
  readerTicket: () => 0,
  keepReader: () => undefined
}

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
  /** Tickets below this were taken before everything was dropped. */
  let floor = 0

  /** Per channel, the keys of its entries holding a newest page, which a new root post extends. */
  const leadingKeys = new Map<string, Set<string>>()

  const readers = new PageReaders()

  const dropAll = () => {
    readers.forgetAll()
    floor = ++counter
    changed.clear()
    entries.clear()
    leadingKeys.clear()
    chars = 0
  }
  const store = (id: string, entry: Entry) => {
    const old = entries.get(id)
    if (old !== undefined) {
      entries.delete(id)
      chars -= old.size
    }
    // Oldest first out (Map keeps insertion order): a page read again is stored again, at the end.
    while (chars + entry.size > MAX_CHARS && entries.size > 0) {
      const [oldestId, oldest] = entries.entries().next().value!
      entries.delete(oldestId)
      chars -= oldest.size
    }
    entries.set(id, entry)
    chars += entry.size
    if (entry.leading !== undefined) {
      let keys = leadingKeys.get(entry.channelId)
      if (keys === undefined) leadingKeys.set(entry.channelId, keys = new Set())
      keys.add(id)
    }
  }
  const channelChanged = (channelId: string) => {
    if (changed.size >= MAX_CHANGED) dropAll()
    changed.set(channelId, ++counter)
  }
  /**
   * A new post in the channel, from this node: each newest page of the channel that was current until now takes
   * the post in front, as a read after the post would give it, and stays current. The change is recorded first, so
   * reads that started before the post still do not store.
   */
  const advance = (channelId: string, post: Readonly<Record<string, unknown>>) => {
    const keys = leadingKeys.get(channelId)
    const before = changed.get(channelId) ?? 0
    channelChanged(channelId)
    if (keys === undefined) return
    leadingKeys.delete(channelId)
    const now = clock.unsafeCurrentTimeMillis()
    // Current until this post: read after every earlier change of the channel, not expired, not dropped.
    const currentBefore = (entry: Entry | undefined): entry is Entry & { readonly leading: LeadingPage } =>
      entry !== undefined && entry.leading !== undefined && entry.ticket >= floor && now - entry.at < TTL_MS && before <= entry.ticket
    const keep = (id: string, entry: Entry, leading: LeadingPage) =>
      store(id, { channelId, text: undefined, size: sizeOf(leading), ticket: counter, at: entry.at, leading })
    // Page 0 first: page 1 takes what page 0 pushed out (the same key but its page number).
    const moved = new Map<string, { readonly before: LeadingPage; readonly after: LeadingPage }>()
    for (const id of keys) {
      const entry = entries.get(id)
      if (!currentBefore(entry) || entry.leading.page !== 0) continue
      const after = withNewPost(entry.leading, post)
      if (after === undefined) continue
      keep(id, entry, after)
      moved.set(id, { before: entry.leading, after })
    }
    for (const id of keys) {
      const entry = entries.get(id)
      if (!currentBefore(entry) || entry.leading.page !== 1) continue
      const pageZero = moved.get(`${channelId}|0${id.slice(channelId.length + 2)}`)
      const shifted = pageZero === undefined ? undefined : shiftedBy(entry.leading, pageZero.before, pageZero.after)
      if (shifted !== undefined) keep(id, entry, shifted)
    }
  }
  // This node's events come typed; other nodes' are told apart by their tag (schemas/Events.ts tagOf).
  const onEvent = (envelope: Envelope, domain: DomainEvent | undefined) => {
    const tag = domain?._tag ?? tagOf(envelope.event, envelope.data)
    readers.onEvent(tag)
    const channelId = envelope.broadcast.channel_id
    if (channelId !== "") {
      // This node's new posts carry their wire object; other nodes' (their JSON text) only mark the change.
      if (domain?._tag === "Posted") advance(channelId, domain.post)
      else if (tag === undefined || !NOT_CONTENT.has(tag)) channelChanged(channelId)
    } else if (envelope.event === RESET_SOCKETS_EVENT || tag === "EmojiAdded") {
      // Lost events; a new custom emoji appears in the metadata of posts that already reacted with its name.
      dropAll()
    }
  }
  const textOf = (entry: Entry): KeptPage => entry.text ?? leadingPageBytes(entry.leading!)
  /** Whether nothing dropped everything and the channel did not change since `ticket` was taken. */
  const unchangedSince = (channelId: string, ticket: number) => ticket >= floor && (changed.get(channelId) ?? 0) <= ticket

  yield* bus.onLocal((envelope) => onEvent(envelope, envelope.domain))
  yield* bus.remoteEvents.pipe(Stream.runForEach((envelope) => Effect.sync(() => onEvent(envelope, undefined))), Effect.forkScoped)
  yield* pubsub.gaps.pipe(Stream.runForEach(() => Effect.sync(dropAll)), Effect.forkScoped)
  yield* pubsub.subscribe(PAGE_CACHE_CLEAR_TOPIC).pipe(Stream.runForEach(() => Effect.sync(dropAll)), Effect.forkScoped)

  const service: PageCacheService = {
    get: (channelId, key) => {
      const entry = entries.get(`${channelId}|${key}`)
      if (entry === undefined) {
        pageCacheCounts.absent++
        return undefined
      }
      if (!unchangedSince(channelId, entry.ticket)) pageCacheCounts.changed++
      else if (clock.unsafeCurrentTimeMillis() - entry.at >= TTL_MS) pageCacheCounts.expired++
      else return textOf(entry)
      entries.delete(`${channelId}|${key}`)
      chars -= entry.size
      leadingKeys.get(channelId)?.delete(`${channelId}|${key}`)
      return undefined
    },
    peek: (channelId, key) => {
      const entry = entries.get(`${channelId}|${key}`)
      return entry !== undefined && unchangedSince(channelId, entry.ticket) && clock.unsafeCurrentTimeMillis() - entry.at < TTL_MS
        ? textOf(entry)
        : undefined
    },
    ticket: () => counter,
    put: (channelId, key, ticket, page, leading) => {
      if (!unchangedSince(channelId, ticket)) return
      // A newest page is kept as its parts only (Entry).
      const text = leading === undefined ? kept(page) : undefined
      const size = sizeOf(text ?? leading!)
      if (size > MAX_CHARS / 100) return
      store(`${channelId}|${key}`, { channelId, text, size, ticket, at: clock.unsafeCurrentTimeMillis(), leading })
    },
    reader: (userId, channelId) => readers.get(userId, channelId, clock.unsafeCurrentTimeMillis()),
    readerTicket: () => readers.ticket(),
    keepReader: (userId, channelId, ticket, row) => readers.put(userId, channelId, ticket, row, clock.unsafeCurrentTimeMillis())
  }
  return service
})

export const layer = Layer.scoped(PageCache, make)

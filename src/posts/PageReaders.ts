import type { EventTag } from "../../schemas/Events.ts"

/**
 * Who was let read a channel's pages on this node (issue 31): per user and channel, the access row (Access's gate)
 * of an allowed read, so that a page answered from PageCache does not send its access check to PostgreSQL again.
 * At the load simulation's mix about two requests in five are such pages, and the check was their only statement
 * (about 0.1 ms of the service's CPU and as much of PostgreSQL's each).
 *
 * The row is kept, not the decision: Access decides again from it on every request, with the caller of that request
 * (a system administrator demoted since is refused what only the role allowed). What the row holds (membership of
 * the channel and of its team, the channel's type, the member roles) changes only with an event every node hears,
 * the same events by which each node's sockets learn whom to send a channel's posts to (src/realtime). Rather than
 * follow each, any event that is not known to leave readers as they were forgets every row (READERS_UNCHANGED: the
 * frequent ones, posts, views, typing, statuses, are such); so do a gap in the bus, an import, and expiry after
 * TTL_MS, a bound should a change ever go unannounced. A read that started before such an event stores nothing
 * (its ticket is older than the forgetting). Only rows that allowed are kept: a refusal is checked again each time.
 */
export class PageReaders {
  private readonly rows = new Map<string, { readonly row: unknown; readonly at: number }>()
  /** The event counter of the last forgetting: rows of reads that started before it are not stored. */
  private floor = 0
  private counter = 0

  /** A ticket for an access check about to start. */
  ticket(): number {
    return this.counter
  }

  forgetAll(): void {
    this.floor = ++this.counter
    this.rows.clear()
  }

  /** The event's effect on readers: forgets everything unless the event is known to change no one's access. */
  onEvent(tag: EventTag | undefined): void {
    if (tag === undefined || !READERS_UNCHANGED.has(tag)) this.forgetAll()
  }

  /** The access row of `userId`'s last allowed read of `channelId`, while nothing since could have changed it. */
  get(userId: string, channelId: string, now: number): unknown {
    const key = `${userId}|${channelId}`
    const entry = this.rows.get(key)
    if (entry === undefined) return undefined
    if (now - entry.at < TTL_MS) return entry.row
    this.rows.delete(key)
    return undefined
  }

  /** Keeps the row of an allowed read whose ticket was taken before its statement went out. */
  put(userId: string, channelId: string, ticket: number, row: unknown, now: number): void {
    if (ticket < this.floor) return
    const key = `${userId}|${channelId}`
    this.rows.delete(key)
    // Oldest first out (a Map keeps insertion order; a row kept again goes to the end).
    if (this.rows.size >= MAX_ROWS) this.rows.delete(this.rows.keys().next().value!)
    this.rows.set(key, { row, at: now })
  }
}

/**
 * Ten minutes: a user reads each of their channels about every minute and a half in the load simulation, so a
 * shorter bound would mostly forget rows before they are used again. It only limits the harm of a change no event
 * announced, which the sockets of src/realtime would suffer from just as long as the socket stays open.
 */
const TTL_MS = 600_000
/** Rows kept: about 300 bytes each, 30 MB at most (10,000 users in 5 channels each take 50,000). */
const MAX_ROWS = 100_000

/**
 * Events that change no one's access to any channel: content, read state, personal settings, presence and calls.
 * Every other event (memberships, channels, teams, users, roles, schemes, and any this list does not know) forgets
 * every row, so a new kind of event is safe until it is listed here.
 */
const READERS_UNCHANGED: ReadonlySet<EventTag> = new Set<EventTag>([
  "Posted",
  "PostEdited",
  "PostDeleted",
  "EphemeralMessage",
  "PostUnread",
  "AcknowledgementAdded",
  "AcknowledgementRemoved",
  "ReactionAdded",
  "ReactionRemoved",
  "EmojiAdded",
  "ThreadUpdated",
  "ThreadRead",
  "ThreadsAllRead",
  "ThreadFollowChanged",
  "ChannelViewed",
  "MultipleChannelsViewed",
  "CategoriesUpdated",
  "CategoryOrderUpdated",
  "CategoryCreated",
  "CategoryDeleted",
  "StatusChange",
  "Typing",
  "PreferencesChanged",
  "PreferencesDeleted",
  "PreferenceChanged",
  "DraftCreated",
  "DraftUpdated",
  "DraftDeleted",
  "OpenDialog",
  "CallStarted",
  "CallEnded",
  "CallDismissed"
])

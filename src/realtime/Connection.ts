import type { EventTag } from "../../schemas/Events.ts"
import { type EncodedEvent, frame, type Kept, type ProtocolName } from "./Frames.ts"
import type { LiveSocket } from "./Socket.ts"

/**
 * One logical connection: its sequence and replay buffer outlive the socket carrying it, so that a client that
 * reconnects with `connection_id` and `sequence_number` continues where it stopped (mattermost-compat.md 8.5).
 * Plain mutable state, touched only from the hub's synchronous code.
 */
export const REPLAY_MAX_EVENTS = 128
export const REPLAY_MAX_AGE_MS = 5 * 60 * 1000
/** Past this many unsent bytes, events a client can do without (typing, statuses) are skipped. */
export const SOFT_BUFFER_BYTES = 256 * 1024
/** Past this many unsent bytes the socket is closed; the client resumes from the replay buffer. */
export const HARD_BUFFER_BYTES = 4 * 1024 * 1024
export const CLOSE_SLOW_CONSUMER = { code: 1008, reason: "send queue full" } as const

/** Mattermost drops these for backed-up connections (8.8): `typing`, `status_change`, `multiple_channels_viewed`. */
export const DROPPABLE: ReadonlySet<EventTag> = new Set<EventTag>(["Typing", "StatusChange", "MultipleChannelsViewed"])

export interface ReplayEntry {
  readonly seq: number
  readonly at: number
  readonly prefix: string
}

/** A replay buffer's first capacity; it doubles up to REPLAY_MAX_EVENTS as a connection keeps more. */
const FIRST_CAPACITY = 2

export class Connection {
  ws: LiveSocket | undefined = undefined
  /** Identifies the socket currently carrying the connection (presence counts sockets, not connections). */
  socketId = ""
  nextSeq = 0
  /**
   * The replay buffer, a ring of `size` slots from `head`: each slot the event's shared `Kept` and its number here.
   * A ring rather than an array trimmed from the front: every connection of a busy node keeps its last 128 events,
   * and each delivery then dropped the oldest with `splice`, which moved the other 127 and allocated the removed one's
   * array (3% of the service's CPU at 8,750 users in the load simulation, issue 31); and a `{ seq, at, prefix }`
   * object per connection and event, living minutes, was a steady stream of objects for the garbage collector to
   * promote and mark. Now a delivery writes two slots and allocates nothing.
   */
  private kept: Array<Kept | undefined> = []
  private seqs: Array<number> = []
  private head = 0
  private size = 0
  /** While a takeover from another node is in flight, events wait here instead of getting numbers. */
  pending: Array<EncodedEvent> | undefined = undefined
  /**
   * Unset while connected: once any connection has held a time here, a number field would give every connection a
   * 16-byte box for it.
   */
  disconnectedAt: number | undefined = undefined
  /** The sequence number the client would have expected when its socket went away. */
  seqAtDisconnect = 0
  /** The session that authenticated the socket carrying the connection, and when it expires: ending it ends the socket. */
  sessionId = ""
  sessionExpiresAt = 0
  activeChannel = ""

  constructor(
    readonly id: string,
    readonly userId: string,
    readonly protocol: ProtocolName
  ) {}

  get isOpen() {
    return this.ws !== undefined && this.ws.readyState === 1
  }

  /** Numbers the event, keeps it for replay and writes it if a socket is attached and keeping up. */
  deliver(event: EncodedEvent, now: number) {
    if (this.pending !== undefined) {
      this.pending.push(event)
      return
    }
    // Droppable first: the buffered amount reads four objects per socket (ws, its sender, the socket, its state).
    if (event.droppable && this.ws !== undefined && this.ws.bufferedAmount > SOFT_BUFFER_BYTES) return
    const seq = this.record(event.kept(this.protocol, now), now)
    const ws = this.ws
    if (ws === undefined || ws.readyState !== 1) return
    if (ws.bufferedAmount > HARD_BUFFER_BYTES) return ws.close(CLOSE_SLOW_CONSUMER.code, CLOSE_SLOW_CONSUMER.reason)
    ws.sendShared(event.sharedFrame(this.protocol), seq)
  }

  /**
   * Hello takes the first number but is not kept for replay: a client learns its connection_id from hello, so one
   * that comes back to resume has already received it.
   */
  greet(prefix: string) {
    this.write(frame(prefix, this.nextSeq++))
  }

  /** Each event takes the next number and is kept for replay; the caller sends it. */
  record(kept: Kept, now: number) {
    const seq = this.nextSeq++
    let capacity = this.kept.length
    if (this.size === capacity) {
      if (capacity < REPLAY_MAX_EVENTS) capacity = this.grow()
      else {
        this.head = this.head + 1 === capacity ? 0 : this.head + 1
        this.size--
      }
    }
    const slot = this.slot(this.size)
    this.kept[slot] = kept
    this.seqs[slot] = seq
    this.size++
    this.trim(now)
    return seq
  }

  /** Drops the events older than REPLAY_MAX_AGE_MS. */
  trim(now: number) {
    const oldest = now - REPLAY_MAX_AGE_MS
    while (this.size > 0 && this.kept[this.head]!.at < oldest) {
      this.kept[this.head] = undefined
      this.head = this.head + 1 === this.kept.length ? 0 : this.head + 1
      this.size--
    }
  }

  /** The slot of the `i`-th oldest event kept. */
  private slot(i: number) {
    return (this.head + i) % this.kept.length
  }

  /** Doubles the ring (up to REPLAY_MAX_EVENTS), its slots in order from 0; returns the new capacity. */
  private grow() {
    const capacity = Math.min(REPLAY_MAX_EVENTS, Math.max(FIRST_CAPACITY, this.kept.length * 2))
    const kept = new Array<Kept | undefined>(capacity).fill(undefined)
    const seqs = new Array<number>(capacity).fill(0)
    for (let i = 0; i < this.size; i++) {
      const from = this.slot(i)
      kept[i] = this.kept[from]
      seqs[i] = this.seqs[from]
    }
    this.kept = kept
    this.seqs = seqs
    this.head = 0
    return capacity
  }

  /** The replay buffer in order, oldest first (a takeover hands it to another node). */
  replayEntries(): Array<ReplayEntry> {
    const entries: Array<ReplayEntry> = []
    for (let i = 0; i < this.size; i++) {
      const slot = this.slot(i)
      const kept = this.kept[slot]!
      entries.push({ seq: this.seqs[slot], at: kept.at, prefix: kept.prefix })
    }
    return entries
  }

  /** Replaces the replay buffer with the given entries, oldest first (a takeover's handoff): the newest are kept. */
  restoreReplay(entries: ReadonlyArray<ReplayEntry>) {
    this.kept = []
    this.seqs = []
    this.head = 0
    this.size = 0
    for (const entry of entries.slice(-REPLAY_MAX_EVENTS)) {
      if (this.size === this.kept.length) this.grow()
      this.kept[this.size] = { at: entry.at, prefix: entry.prefix }
      this.seqs[this.size] = entry.seq
      this.size++
    }
  }

  /**
   * Writes outside the sequence (replies) or inside it; a socket that cannot keep up is closed, never left to grow.
   * A replay is exempt: it is bounded by the replay buffer, which is already held in memory.
   */
  write(text: string, bounded = true) {
    const ws = this.ws
    if (ws === undefined || ws.readyState !== 1) return
    if (bounded && ws.bufferedAmount > HARD_BUFFER_BYTES) {
      ws.close(CLOSE_SLOW_CONSUMER.code, CLOSE_SLOW_CONSUMER.reason)
      return
    }
    ws.send(text)
  }

  /** Whether a client that expects `sequence` next can continue without a gap. */
  canResumeFrom(sequence: number) {
    if (sequence === this.nextSeq) return true
    if (sequence > this.nextSeq || this.size === 0) return false
    return this.seqs[this.head] <= sequence
  }

  /** Re-sends what the client missed, with the numbers it had. */
  replayFrom(sequence: number) {
    for (let i = 0; i < this.size; i++) {
      const slot = this.slot(i)
      if (this.seqs[slot] >= sequence) this.write(frame(this.kept[slot]!.prefix, this.seqs[slot]), false)
    }
  }

  /** Whether the replay buffer still reaches back to where the client stopped. */
  get resumable() {
    return this.size === 0 ? this.nextSeq === this.seqAtDisconnect : this.seqs[this.head] <= this.seqAtDisconnect
  }
}

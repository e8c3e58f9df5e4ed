import type { EventTag } from "../../schemas/Events.ts"
import { type EncodedEvent, frame, type ProtocolName } from "./Frames.ts"
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

export class Connection {
  ws: LiveSocket | undefined = undefined
  /** Identifies the socket currently carrying the connection (presence counts sockets, not connections). */
  socketId = ""
  nextSeq = 0
  replay: Array<ReplayEntry> = []
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
    if (this.ws !== undefined && this.ws.bufferedAmount > SOFT_BUFFER_BYTES && event.droppable) return
    const seq = this.record(event.prefix(this.protocol), now)
    const ws = this.ws
    if (ws === undefined || ws.readyState !== 1) return
    if (ws.bufferedAmount > HARD_BUFFER_BYTES) return ws.close(CLOSE_SLOW_CONSUMER.code, CLOSE_SLOW_CONSUMER.reason)
    ws.sendShared(event.prefixBytes(this.protocol), `${seq}}`)
  }

  /**
   * Hello takes the first number but is not kept for replay: a client learns its connection_id from hello, so one
   * that comes back to resume has already received it.
   */
  greet(prefix: string) {
    this.write(frame(prefix, this.nextSeq++))
  }

  /** Each event takes the next number and is kept for replay; the caller sends it. */
  record(prefix: string, now: number) {
    const seq = this.nextSeq++
    const entry = { seq, at: now, prefix }
    // An empty array grows to 17 slots on its first push; most idle connections only ever keep one or two events.
    if (this.replay.length === 0) this.replay = [entry]
    else this.replay.push(entry)
    this.trim(now)
    return seq
  }

  trim(now: number) {
    let drop = 0
    while (
      drop < this.replay.length &&
      (this.replay.length - drop > REPLAY_MAX_EVENTS || this.replay[drop].at < now - REPLAY_MAX_AGE_MS)
    ) drop++
    if (drop > 0) this.replay.splice(0, drop)
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
    if (sequence > this.nextSeq || this.replay.length === 0) return false
    return this.replay[0].seq <= sequence
  }

  /** Re-sends what the client missed, with the numbers it had. */
  replayFrom(sequence: number) {
    for (const entry of this.replay) {
      if (entry.seq >= sequence) this.write(frame(entry.prefix, entry.seq), false)
    }
  }

  /** Whether the replay buffer still reaches back to where the client stopped. */
  get resumable() {
    return this.replay.length === 0 ? this.nextSeq === this.seqAtDisconnect : this.replay[0].seq <= this.seqAtDisconnect
  }
}

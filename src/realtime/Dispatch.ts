import { Clock, Effect } from "effect"
import { type DomainEvent, type EventTag, fromWire, tagOf } from "../../schemas/Events.ts"
import { type Envelope, type LocalEnvelope, RESET_SOCKETS_EVENT } from "../events/EventBus.ts"
import { type Connection, DROPPABLE } from "./Connection.ts"
import { EncodedEvent } from "./Frames.ts"
import type { HubState } from "./HubState.ts"
import { applyMembership } from "./Membership.ts"
import type { OwnerRecords } from "./OwnerRecords.ts"
import type { RealtimeRepo } from "./RealtimeRepo.ts"
import type { CloseReason } from "./Socket.ts"

/**
 * Dispatch: each cluster event is encoded once per protocol and delivered synchronously to the local connections
 * it concerns, each recipient only appending its sequence number. Subscriptions move with membership events before
 * the event itself is delivered, so a user added to a channel (or a new DM) receives that channel's next event at
 * once. Two internal events close sockets instead: a session that ended, and events this node missed.
 *
 * Decisions are made on the typed event (schemas/Events.ts), never on a Mattermost name: this node's own events carry
 * it; another node's get their tag by a lookup, and their typed payload only where one is read (memberships, ended
 * sessions), so a post from another node costs no decode beyond its envelope's.
 */

/**
 * The session that authenticated the socket ended. The official WebSocketClient reconnects after any close; its
 * reconnection carries the ended session's token, fails authentication (closed with "authentication failed") and
 * the app, whose REST calls now answer 401, signs out.
 */
export const CLOSE_SESSION_ENDED = { code: 1008, reason: "session ended" } as const
/**
 * This node missed cluster events (its bus subscription broke, or another node's outbox overflowed): every socket is
 * closed and its connection forgotten, so that each client reconnects to a new connection_id and hello and resyncs
 * over REST, as it does after any server restart.
 */
export const CLOSE_RESYNC = { code: 1012, reason: "events missed: reconnect and resync" } as const
/** A channel nobody here is known to be in is looked up at most this often (safety net for missed membership events). */
const UNKNOWN_CHANNEL_RECHECK_MS = 30_000

export const makeDispatch = (state: HubState, records: OwnerRecords, repo: RealtimeRepo, clock: Clock.Clock) => {
  const { connections, subscriptions } = state
  const uncheckedChannels = new Map<string, number>()

  /** Closes the connections' sockets and forgets them, replay buffers and owner records included: nothing resumes them. */
  const drop = (list: ReadonlyArray<Connection>, how: CloseReason) =>
    Effect.gen(function*() {
      for (const connection of list) {
        state.unregister(connection)
        const ws = connection.ws
        connection.ws = undefined
        if (ws === undefined) continue
        if (ws.handler !== undefined) ws.handler.end(how)
        else ws.close(how.code, how.reason)
      }
      yield* records.forget(list)
    })

  /**
   * Sessions that ended: their sockets here close and their connections are forgotten with their replay buffers
   * and owner records, so nothing of them can be resumed on any node.
   */
  const endSessions = (ids: ReadonlySet<string>) =>
    Effect.gen(function*() {
      const ended: Array<Connection> = []
      for (const connection of connections.values()) {
        if (connection.sessionId !== "" && ids.has(connection.sessionId)) ended.push(connection)
      }
      yield* drop(ended, CLOSE_SESSION_ENDED)
    })

  /** Every local connection closed and forgotten with its replay state: see CLOSE_RESYNC. */
  const resetAll = Effect.gen(function*() {
    const all = [...connections.values()].filter((c) => c.pending === undefined)
    yield* Effect.logWarning("cluster events were missed: sockets reset so that their clients resync").pipe(
      Effect.annotateLogs({ connections: all.length })
    )
    yield* drop(all, CLOSE_RESYNC)
  })

  /**
   * A channel event for a channel no local user is known to be in: one lookup, in case a membership event was missed.
   * Undefined when none is due (nobody is connected here, or the channel was looked up lately): plain code first, as it
   * runs for every post here (issue 10).
   */
  const lookUpChannel = (channelId: string): Effect.Effect<void> | undefined => {
    const now = clock.unsafeCurrentTimeMillis()
    if ((uncheckedChannels.get(channelId) ?? 0) > now) return undefined
    if (subscriptions.users.size === 0) return undefined
    uncheckedChannels.set(channelId, now + UNKNOWN_CHANNEL_RECHECK_MS)
    return Effect.map(repo.channelMembers(channelId).pipe(Effect.orElseSucceed((): ReadonlyArray<string> => [])), (members) => {
      for (const userId of members) subscriptions.addChannel(userId, channelId)
      if (uncheckedChannels.size > 10_000) {
        for (const [id, until] of uncheckedChannels) if (until <= now) uncheckedChannels.delete(id)
      }
    })
  }

  /** Delivery of an event to the local connections it concerns (plain code). */
  const deliver = (envelope: Envelope, tag: EventTag | undefined) => {
    const b = envelope.broadcast
    const encoded = new EncodedEvent(envelope, tag !== undefined && DROPPABLE.has(tag))
    const now = clock.unsafeCurrentTimeMillis()
    const audience = b.broadcast_to_all ? subscriptions.users.values() : subscriptions.audience(b)
    const omitUsers = b.omit_users
    for (const user of audience) {
      if (omitUsers !== null && omitUsers[user.userId] === true) continue
      for (const connection of user.connections) {
        if (connection.id !== b.omit_connection_id) connection.deliver(encoded, now)
      }
    }
  }

  /**
   * One cluster event (`tag` and `event` undefined for one outside the domain union, such as a custom event): ended
   * sessions close sockets; otherwise membership bookkeeping first, then delivery to the local connections it
   * concerns. Done now when nothing has to wait (nearly always); otherwise the effect that finishes it.
   */
  const dispatchNow = (envelope: Envelope, tag: EventTag | undefined, event: DomainEvent | undefined): Effect.Effect<void> | undefined => {
    if (tag === "SessionEnded") {
      return event?._tag === "SessionEnded" ? endSessions(new Set(event.sessionIds)) : undefined
    }
    const b = envelope.broadcast
    if (event !== undefined) applyMembership(subscriptions, event, b)
    const lookUp = !b.broadcast_to_all && b.user_id === "" && b.channel_id !== "" && !subscriptions.knowsChannel(b.channel_id)
      ? lookUpChannel(b.channel_id)
      : undefined
    if (lookUp === undefined) {
      deliver(envelope, tag)
      return undefined
    }
    return Effect.andThen(lookUp, Effect.sync(() => deliver(envelope, tag)))
  }

  /** An event this node published (it carries its typed event): delivered now, or the effect that finishes it. */
  const dispatchLocalNow = (envelope: LocalEnvelope) => dispatchNow(envelope, envelope.domain?._tag, envelope.domain)

  /** An event from another node, in its wire form; or the bus's own signal that this node missed events. */
  const dispatchRemote = (envelope: Envelope) => {
    if (envelope.event === RESET_SOCKETS_EVENT) return resetAll
    const tag = tagOf(envelope.event, envelope.data)
    return Effect.suspend(() => dispatchNow(envelope, tag, tag === undefined ? undefined : fromWire(tag, envelope.data)) ?? Effect.void)
  }

  return { dispatchLocalNow, dispatchRemote, endSessions, resetAll }
}

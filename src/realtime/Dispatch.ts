import { Clock, Effect, Option } from "effect"
import type { DbService } from "../../layers/Db.ts"
import { decodeSessionEnded, SESSION_ENDED_EVENT } from "../auth/SessionEnded.ts"
import { type Envelope, RESET_SOCKETS_EVENT } from "../events/EventBus.ts"
import type { Connection } from "./Connection.ts"
import { EncodedEvent } from "./Frames.ts"
import type { HubState } from "./HubState.ts"
import { applyMembership } from "./Membership.ts"
import type { OwnerRecords } from "./OwnerRecords.ts"
import type { CloseReason } from "./Socket.ts"

/**
 * Dispatch: each cluster event is encoded once per protocol and delivered synchronously to the local connections
 * it concerns, each recipient only appending its sequence number. Subscriptions move with membership events before
 * the event itself is delivered, so a user added to a channel (or a new DM) receives that channel's next event at
 * once. Two internal events close sockets instead: a session that ended, and events this node missed.
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

export const makeDispatch = (state: HubState, records: OwnerRecords, db: DbService) => {
  const sql = db.sql
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

  /** A channel event for a channel no local user is known to be in: one lookup, in case a membership event was missed. */
  const lookUpChannel = (channelId: string) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      if ((uncheckedChannels.get(channelId) ?? 0) > now) return
      if (subscriptions.users.size === 0) return
      uncheckedChannels.set(channelId, now + UNKNOWN_CHANNEL_RECHECK_MS)
      const rows = yield* db.read(sql<{ user_id: string }>`SELECT user_id FROM channel_members WHERE channel_id = ${channelId}`)
        .pipe(Effect.orElseSucceed(() => []))
      for (const row of rows) subscriptions.addChannel(row.user_id, channelId)
      if (uncheckedChannels.size > 10_000) {
        for (const [id, until] of uncheckedChannels) if (until <= now) uncheckedChannels.delete(id)
      }
    })

  /** One cluster event: membership bookkeeping first, then delivery to the local connections it concerns. */
  const dispatch = (envelope: Envelope) =>
    Effect.gen(function*() {
      if (envelope.event === RESET_SOCKETS_EVENT) return yield* resetAll
      if (envelope.event === SESSION_ENDED_EVENT) {
        const ended = decodeSessionEnded(envelope.data)
        if (Option.isSome(ended)) yield* endSessions(new Set(ended.value.session_ids))
        return
      }
      applyMembership(subscriptions, envelope)
      const b = envelope.broadcast
      if (!b.broadcast_to_all && b.user_id === "" && b.channel_id !== "" && !subscriptions.knowsChannel(b.channel_id)) {
        yield* lookUpChannel(b.channel_id)
      }
      const event = new EncodedEvent(envelope)
      const now = yield* Clock.currentTimeMillis
      const audience = b.broadcast_to_all ? subscriptions.users.values() : subscriptions.audience(b)
      const omitUsers = b.omit_users
      for (const user of audience) {
        if (omitUsers !== null && omitUsers[user.userId] === true) continue
        for (const connection of user.connections) {
          if (connection.id !== b.omit_connection_id) connection.deliver(event, now)
        }
      }
    })

  return { dispatch, endSessions, resetAll }
}

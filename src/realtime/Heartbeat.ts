import { Clock, Effect } from "effect"
import type { CacheService } from "../../layers/Cache.ts"
import type { PresenceService } from "../status/Presence.ts"
import { type Connection, REPLAY_MAX_AGE_MS } from "./Connection.ts"
import type { HubState } from "./HubState.ts"
import type { RealtimeRepo } from "./RealtimeRepo.ts"

/**
 * The hub's periodic work: pinging sockets, refreshing presence and forgetting connections past resuming; checking
 * the sessions of open sockets; and, when the node stops, waiting for other nodes to take its connections over.
 */

export interface HeartbeatDeps {
  readonly state: HubState
  readonly repo: RealtimeRepo
  readonly cache: CacheService
  readonly presence: PresenceService
  readonly endSessions: (ids: ReadonlySet<string>) => Effect.Effect<void>
  /**
   * How long a stopping node keeps its connections for other nodes to take over (SERVICE_SHUTDOWN_HANDOVER_MS): the
   * official client retries 3 s after a close, plus up to 2 s of jitter. A client that never comes back holds the
   * stop this long, no longer.
   */
  readonly handoverMs: number
}

export const makeHeartbeat = ({ state, repo, cache, presence, endSessions, handoverMs }: HeartbeatDeps) => {
  const { connections } = state

  /** Pings sockets (dropping those that stayed silent), refreshes presence, and forgets connections past resuming. */
  const heartbeat = Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const live: Array<Connection> = []
    for (const connection of connections.values()) {
      const ws = connection.ws
      if (ws === undefined) {
        if (connection.pending === undefined && ((connection.disconnectedAt ?? 0) < now - REPLAY_MAX_AGE_MS || !connection.resumable)) {
          state.unregister(connection)
        }
        continue
      }
      if (ws.readyState !== 1) continue
      if (!ws.alive) {
        ws.terminate()
        continue
      }
      ws.heartbeat()
      live.push(connection)
    }
    yield* Effect.forEach(live, (c) => presence.refresh(c.userId, c.socketId).pipe(Effect.ignore), { concurrency: 16, discard: true })
    yield* state.updateGauge
  })

  /**
   * Sessions of local connections whose time is up, or (with `all`) every one of them, checked against the database:
   * an expired session ends its sockets, an extended one (a phone registering its device) carries on. `all` also
   * catches a revocation whose event this node missed while the bus was down.
   */
  const checkSessions = (all: boolean) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const due = new Set<string>()
      for (const connection of connections.values()) {
        if (connection.sessionId !== "" && (all || connection.sessionExpiresAt <= now)) due.add(connection.sessionId)
      }
      if (due.size === 0) return
      const live = new Map<string, number>()
      const ids = [...due]
      for (let i = 0; i < ids.length; i += 500) {
        const rows = yield* repo.sessionExpiries(ids.slice(i, i + 500))
        for (const row of rows) live.set(row.id, row.expires_at)
      }
      const ended = new Set<string>()
      for (const id of ids) {
        const expiresAt = live.get(id)
        if (expiresAt === undefined || expiresAt <= now) ended.add(id)
      }
      for (const connection of connections.values()) {
        const expiresAt = live.get(connection.sessionId)
        if (expiresAt !== undefined) connection.sessionExpiresAt = expiresAt
      }
      if (ended.size > 0) yield* endSessions(ended)
    })

  /**
   * For a node shutting down, its sockets closed: waits, at most `handoverMs`, while connections whose socket
   * closed since `closedSince` (by the shutdown) and that other nodes may still take over remain, so that the
   * replay buffers move through the takeover path instead of going down with the node. A connection already let go
   * of still counts until its handoff is answered (HubState.releasing): the answer needs this node's Redis.
   */
  const handOver = (closedSince: number) =>
    Effect.gen(function*() {
      // Only another node can take a connection over, and only through the shared cache.
      if (!cache.shared) return
      const started = yield* Clock.currentTimeMillis
      const waiting = () => {
        let n = state.releasing
        for (const c of connections.values()) {
          // A socket still attached is one the shutdown is closing (its departure may not have run yet).
          if (c.pending === undefined && (c.ws !== undefined || ((c.disconnectedAt ?? 0) >= closedSince && c.resumable))) n++
        }
        return n
      }
      const before = waiting()
      if (before === 0) return
      yield* Effect.logInfo("handing connections over to the other nodes").pipe(Effect.annotateLogs({ connections: before }))
      let now = started
      while (waiting() > 0 && now - started < handoverMs) {
        yield* Effect.sleep("50 millis")
        now = yield* Clock.currentTimeMillis
      }
      yield* Effect.logInfo("connection handover done").pipe(
        Effect.annotateLogs({ handed_over: before - waiting(), left: waiting(), waited_ms: now - started })
      )
    })

  return { heartbeat, checkSessions, handOver }
}

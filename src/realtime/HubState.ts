import { Effect, Metric } from "effect"
import type { DbService } from "../../layers/Db.ts"
import { websocketActiveConnections } from "../../layers/Metrics.ts"
import type { Connection } from "./Connection.ts"
import type { LiveSocket, SocketAuth } from "./Socket.ts"
import { Subscriptions } from "./Subscriptions.ts"

/**
 * What the node's hub holds in memory: its connections, who is subscribed to what, and how many sockets are open.
 * Plain mutable state touched from synchronous steps only; the hub's parts (admission and takeover, dispatch,
 * heartbeat) share one instance.
 */
export class HubState {
  readonly connections = new Map<string, Connection>()
  readonly subscriptions = new Subscriptions()
  /** Sockets admitted and not yet departed (LiveSocket.counted). */
  socketCount = 0

  constructor(readonly nodeId: string, private readonly db: DbService) {}

  readonly updateGauge = Effect.suspend(() => Metric.set(websocketActiveConnections, this.socketCount))

  register(connection: Connection) {
    this.connections.set(connection.id, connection)
    this.subscriptions.attach(connection)
  }

  unregister(connection: Connection) {
    if (this.connections.get(connection.id) === connection) this.connections.delete(connection.id)
    this.subscriptions.detach(connection)
  }

  attachSocket(connection: Connection, ws: LiveSocket, socketId: string, auth: SocketAuth) {
    connection.ws = ws
    connection.socketId = socketId
    connection.sessionId = auth.sessionId
    connection.sessionExpiresAt = auth.sessionExpiresAt
    if (!ws.counted) {
      ws.counted = true
      this.socketCount++
    }
  }

  /** The socket departed: no longer counted (once). */
  uncount(ws: LiveSocket) {
    if (ws.counted) {
      ws.counted = false
      this.socketCount--
    }
  }

  private loadMemberships(userId: string) {
    const { db } = this
    const sql = db.sql
    return Effect.all([
      db.read(sql<{ channel_id: string }>`SELECT channel_id FROM channel_members WHERE user_id = ${userId}`),
      db.read(sql<{ team_id: string }>`SELECT team_id FROM team_members WHERE user_id = ${userId} AND delete_at = 0`)
    ], { concurrency: 2 }).pipe(Effect.map(([c, t]) => ({ channels: c.map((r) => r.channel_id), teams: t.map((r) => r.team_id) })))
  }

  /** Makes sure the user's memberships are known, then runs `then` in the same synchronous step. */
  withUser<A>(userId: string, then: () => A) {
    const self = this
    return Effect.gen(function*() {
      const subscriptions = self.subscriptions
      let loaded = subscriptions.user(userId) === undefined ? yield* self.loadMemberships(userId) : undefined
      while (subscriptions.user(userId) === undefined && loaded === undefined) loaded = yield* self.loadMemberships(userId)
      subscriptions.addUser(userId, loaded?.channels ?? [], loaded?.teams ?? [])
      return then()
    })
  }
}

/** A background step's failure is logged, never propagated: the hub keeps running. */
export const quietly = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catchAllCause(effect, (cause) => Effect.logWarning("realtime background step failed", cause))

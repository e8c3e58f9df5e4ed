import { Effect, Metric } from "effect"
import { websocketActiveConnections } from "../../layers/Metrics.ts"
import type { Connection } from "./Connection.ts"
import type { RealtimeRepo } from "./RealtimeRepo.ts"
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
  /**
   * Connections this node has let go of for a takeover whose answer (buffer stored, `released` published) is still
   * being written: a stopping node waits for them too (Heartbeat.handOver), or its Redis would close under the answer.
   */
  releasing = 0

  constructor(readonly nodeId: string, private readonly repo: RealtimeRepo) {}

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

  /** Makes sure the user's memberships are known, then runs `then` in the same synchronous step. */
  withUser<A>(userId: string, then: () => A) {
    const self = this
    return Effect.gen(function*() {
      const subscriptions = self.subscriptions
      let loaded = subscriptions.user(userId) === undefined ? yield* self.repo.memberships(userId) : undefined
      while (subscriptions.user(userId) === undefined && loaded === undefined) loaded = yield* self.repo.memberships(userId)
      subscriptions.addUser(userId, loaded?.channels ?? [], loaded?.teams ?? [])
      return then()
    })
  }
}

/** A background step's failure is logged, never propagated: the hub keeps running. */
export const quietly = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catchAllCause(effect, (cause) => Effect.logWarning("realtime background step failed", cause))

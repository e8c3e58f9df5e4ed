import { Effect, Layer } from "effect"
import { LiveStats } from "../health/LiveStats.ts"
import { Hub } from "./Hub.ts"

/**
 * /api/v1/health/stats from the hub: websocket_connections counts the sockets open on this node and active_users
 * the distinct users with at least one of them (per node, like every figure of that endpoint; sum over nodes for
 * the cluster, minus users connected to several).
 */
export const layer = Layer.effect(
  LiveStats,
  Effect.map(Hub, (hub) => ({ websocketConnections: hub.socketCount, activeUsers: hub.userCount }))
)

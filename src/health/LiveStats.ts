import { Context, Effect, Layer, Metric } from "effect"
import { websocketActiveConnections } from "../../layers/Metrics.ts"

/** Live figures for /api/v1/health/stats; the realtime hub provides the real ones. */
export interface LiveStatsService {
  readonly websocketConnections: Effect.Effect<number>
  readonly activeUsers: Effect.Effect<number>
}

export class LiveStats extends Context.Tag("service/LiveStats")<LiveStats, LiveStatsService>() {}

/** Before the hub exists: the gauge alone, and no active users. */
export const layerFromMetrics = Layer.succeed(LiveStats, {
  websocketConnections: Effect.map(Metric.value(websocketActiveConnections), (s) => s.value),
  activeUsers: Effect.succeed(0)
})

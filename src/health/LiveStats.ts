import { Context, type Effect } from "effect"

/** Live figures for /api/v1/health/stats; provided by the realtime hub. */
export interface LiveStatsService {
  readonly websocketConnections: Effect.Effect<number>
  readonly activeUsers: Effect.Effect<number>
}

export class LiveStats extends Context.Tag("service/LiveStats")<LiveStats, LiveStatsService>() {}

import { Effect, Option, Schema } from "effect"
import type { CacheService } from "../../layers/Cache.ts"
import type { Connection } from "./Connection.ts"
import { flat, type ProtocolName } from "./Frames.ts"

/**
 * Which node holds a connection, recorded in the shared cache under its id, so that a client reconnecting to
 * another node with `connection_id` can be handed its connection (Takeover.ts). Only another node reads a record:
 * with a cache no other node sees there is nobody to tell, and nothing is written.
 */
export interface ConnectionRecord {
  readonly user_id: string
  readonly node_id: string
  readonly protocol: ProtocolName
}

const ConnectionRecordJson = Schema.parseJson(Schema.Struct({
  user_id: Schema.String,
  node_id: Schema.String,
  protocol: Schema.Literal("v4", "native")
}))
/** Flat: the memory cache keeps key and record as long as the connection. */
const recordKey = (connectionId: string) => flat(`ws:conn:${connectionId}`)
const encodeRecord = Schema.encodeSync(ConnectionRecordJson)
const decodeRecord = Schema.decodeUnknownOption(ConnectionRecordJson)

/** While connected a record lives a day (renewed on each admission); after the socket left, as long as a replay can. */
export const CONNECTED_RECORD_TTL_MS = 24 * 60 * 60 * 1000

export const makeOwnerRecords = (cache: CacheService, nodeId: string) => ({
  remember: (connection: Connection, ttlMs: number) =>
    !cache.shared ? Effect.void : cache.set(
      recordKey(connection.id),
      flat(encodeRecord({ user_id: connection.userId, node_id: nodeId, protocol: connection.protocol })),
      ttlMs
    ).pipe(Effect.ignore),
  lookup: (connectionId: string): Effect.Effect<Option.Option<ConnectionRecord>> =>
    cache.get(recordKey(connectionId)).pipe(Effect.orElseSucceed(() => Option.none<string>()), Effect.map(Option.flatMap(decodeRecord))),
  forget: (list: ReadonlyArray<Connection>) =>
    !cache.shared ? Effect.void : Effect.forEach(list, (c) => cache.del(recordKey(c.id)).pipe(Effect.ignore), { discard: true, concurrency: 16 })
})

export type OwnerRecords = ReturnType<typeof makeOwnerRecords>

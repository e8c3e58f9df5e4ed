import { Context, Effect, Layer } from "effect"
import { Cache, type CacheFailure } from "../../layers/Cache.ts"
import { flat } from "../realtime/Frames.ts"

/**
 * Who has a socket open anywhere in the cluster: one expiring set per user in Cache whose members are connection
 * ids. Each node re-adds its live connections every HEARTBEAT, so the members of a node that died expire after TTL
 * and the counts heal on their own. The same count enforces max_simultaneous_connections.
 */
export const HEARTBEAT_MS = 30_000
export const TTL_MS = 3 * HEARTBEAT_MS

/** Flat: the memory cache keeps the key as long as the user has a socket. */
const key = (userId: string) => flat(`presence:${userId}`)

export interface PresenceService {
  /** Adds the connection and returns the user's connection count across the cluster, this one included. */
  readonly join: (userId: string, connectionId: string) => Effect.Effect<number, CacheFailure>
  /** Keeps a live connection from expiring. */
  readonly refresh: (userId: string, connectionId: string) => Effect.Effect<void, CacheFailure>
  /** Removes the connection and returns how many the user still has across the cluster. */
  readonly leave: (userId: string, connectionId: string) => Effect.Effect<number, CacheFailure>
  readonly count: (userId: string) => Effect.Effect<number, CacheFailure>
}

export class Presence extends Context.Tag("service/Presence")<Presence, PresenceService>() {}

export const make = Effect.gen(function*() {
  const cache = yield* Cache
  const service: PresenceService = {
    join: (userId, connectionId) =>
      Effect.zipRight(cache.expiringSetAdd(key(userId), connectionId, TTL_MS), cache.expiringSetCount(key(userId))),
    refresh: (userId, connectionId) => cache.expiringSetAdd(key(userId), connectionId, TTL_MS),
    leave: (userId, connectionId) =>
      Effect.zipRight(cache.expiringSetRemove(key(userId), connectionId), cache.expiringSetCount(key(userId))),
    count: (userId) => cache.expiringSetCount(key(userId))
  }
  return service
})

export const layer = Layer.effect(Presence, make)

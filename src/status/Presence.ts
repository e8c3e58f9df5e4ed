import { Context, Effect, Layer } from "effect"
import { Cache, type CacheFailure } from "../../layers/Cache.ts"
import { AppConfig } from "../Config.ts"
import { flat } from "../realtime/Frames.ts"

/**
 * Who has a socket open anywhere in the cluster: one expiring set per user in Cache whose members are connection
 * ids. Each node re-adds its live connections every ping interval (SERVICE_WS_PING_INTERVAL_MS), so the members of
 * a node that died expire after the TTL and the counts heal on their own. The same count enforces
 * max_simultaneous_connections.
 */

/** Entries live three heartbeats: a node that misses one or two refreshes (a pause, a slow cache) keeps its users. */
const ttlFor = (heartbeatMs: number) => 3 * heartbeatMs

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

/**
 * Presence held by this process alone, for a cache no other node reads: a user's socket ids in one map, the lone id
 * itself while they have one socket (the usual case). Nothing expires, because nothing outlives this process.
 */
const makeLocal = (): PresenceService => {
  const sockets = new Map<string, string | Set<string>>()
  const countOf = (userId: string) => {
    const held = sockets.get(userId)
    return held === undefined ? 0 : typeof held === "string" ? 1 : held.size
  }
  return {
    join: (userId, connectionId) =>
      Effect.sync(() => {
        const held = sockets.get(userId)
        if (held === undefined) sockets.set(userId, connectionId)
        else if (typeof held === "string") {
          if (held !== connectionId) sockets.set(userId, new Set([held, connectionId]))
        } else held.add(connectionId)
        return countOf(userId)
      }),
    refresh: () => Effect.void,
    leave: (userId, connectionId) =>
      Effect.sync(() => {
        const held = sockets.get(userId)
        if (held === connectionId) sockets.delete(userId)
        else if (typeof held === "object") {
          held.delete(connectionId)
          if (held.size === 0) sockets.delete(userId)
        }
        return countOf(userId)
      }),
    count: (userId) => Effect.sync(() => countOf(userId))
  }
}

export const make = Effect.gen(function*() {
  const cache = yield* Cache
  if (!cache.shared) return makeLocal()
  const TTL_MS = ttlFor((yield* AppConfig).wsPingIntervalMs)
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

import { Clock, Context, Data, Duration, Effect, Layer, Option, Redacted } from "effect"
import { Redis } from "ioredis"
import { isRedisUnavailable } from "./RedisFailures.ts"
import { makeCircuitBreaker, Policies, type CircuitOpenError } from "./Resilience.ts"

/**
 * Shared ephemeral state: sessions, OAuth state, exchange codes, rate-limit counters, connection counts and
 * WebSocket replay buffers. Redis when SERVICE_CACHE_URL is set (shared by all nodes), memory otherwise (one node).
 */
export class CacheError extends Data.TaggedError("CacheError")<{ readonly op: string; readonly cause: unknown }> {
  override get message() {
    return `cache ${this.op} failed: ${String(this.cause)}`
  }
}

export type CacheFailure = CacheError | CircuitOpenError

export interface CounterResult {
  readonly count: number
  /** Milliseconds until the counter resets. */
  readonly ttlMs: number
}

export interface CacheService {
  /**
   * Whether other nodes see this cache (Redis) or only this process does (memory): state kept only so that another
   * node can read it is not worth writing to a cache no other node reads.
   */
  readonly shared: boolean
  readonly get: (key: string) => Effect.Effect<Option.Option<string>, CacheFailure>
  /**
   * `get` answered at once, without running an effect, where the cache is this process's memory; absent on a cache
   * that must be asked over the network (Redis). For request paths that decide synchronously when they can.
   */
  readonly peek?: (key: string) => Option.Option<string>
  readonly set: (key: string, value: string, ttl?: Duration.DurationInput) => Effect.Effect<void, CacheFailure>
  /**
   * Sets `${version}|${value}` unless the key holds a higher version (a value written by this method whose text starts
   * with a larger number): a writer that read its value before a change cannot put it back over what the change
   * wrote. True when it was set. `get` answers the text with its version.
   */
  readonly setVersioned: (key: string, version: number, value: string, ttl: Duration.DurationInput) => Effect.Effect<boolean, CacheFailure>
  /** Sets only when the key is absent; true when it was set. */
  readonly setIfAbsent: (key: string, value: string, ttl: Duration.DurationInput) => Effect.Effect<boolean, CacheFailure>
  readonly del: (key: string) => Effect.Effect<void, CacheFailure>
  /** Atomically reads and removes a value: single-use codes and states. */
  readonly take: (key: string) => Effect.Effect<Option.Option<string>, CacheFailure>
  /** Increments a counter; the window (ttl) starts with the first increment. */
  readonly incr: (key: string, ttl: Duration.DurationInput) => Effect.Effect<CounterResult, CacheFailure>
  /** Appends to a capped list that expires ttl after its last append. */
  readonly listPush: (key: string, value: string, maxLength: number, ttl: Duration.DurationInput) => Effect.Effect<void, CacheFailure>
  readonly listRange: (key: string) => Effect.Effect<ReadonlyArray<string>, CacheFailure>
  /** Adds a member that expires on its own after ttl unless re-added: counts that heal when a node dies. */
  readonly expiringSetAdd: (key: string, member: string, ttl: Duration.DurationInput) => Effect.Effect<void, CacheFailure>
  readonly expiringSetRemove: (key: string, member: string) => Effect.Effect<void, CacheFailure>
  /** Counts the members that have not expired. */
  readonly expiringSetCount: (key: string) => Effect.Effect<number, CacheFailure>
  readonly ping: Effect.Effect<void, CacheFailure>
}

export class Cache extends Context.Tag("service/Cache")<Cache, CacheService>() {}

/**
 * An expiring set with one member, the usual case (a user with one socket): a Map's smallest table alone takes
 * about 150 bytes. The member lives as long as its entry; a second member turns it into a Map.
 */
class SoleMember {
  constructor(readonly member: string) {}
}

interface MemoryEntry {
  readonly value: string | Array<string> | Map<string, number> | SoleMember
  readonly expiresAt: number
}

/**
 * One mutable map: every operation runs synchronously inside one Effect step, so each is atomic on the single
 * JavaScript thread (an immutable map copied per write would cost O(keys) per operation). Expired entries are dropped
 * when read and swept every few hundred writes so that the map does not grow without bound.
 */
export const makeMemory: Effect.Effect<CacheService> = Effect.sync(() => {
  const store = new Map<string, MemoryEntry>()
  const SWEEP_EVERY = 512
  let writes = 0
  const now = Clock.currentTimeMillis
  const expiry = (at: number, ttl?: Duration.DurationInput) =>
    ttl === undefined ? Number.POSITIVE_INFINITY : at + Duration.toMillis(ttl)
  const live = (key: string, at: number) => {
    const entry = store.get(key)
    if (entry === undefined) return undefined
    if (entry.expiresAt > at) return entry
    store.delete(key)
    return undefined
  }
  const put = (key: string, entry: MemoryEntry, at: number) => {
    store.set(key, entry)
    if (++writes % SWEEP_EVERY === 0) {
      for (const [k, e] of store) if (e.expiresAt <= at) store.delete(k)
    }
  }
  const stringOf = (entry: MemoryEntry | undefined) => typeof entry?.value === "string" ? entry.value : undefined
  /** The set's members still alive at `at`, pruned in place (a live entry's sole member is alive: it sets the expiry). */
  const members = (key: string, at: number) => {
    const value = live(key, at)?.value
    if (value instanceof SoleMember) return value
    if (!(value instanceof Map)) return undefined
    for (const [member, until] of value) if (until <= at) value.delete(member)
    return value
  }
  const at = <A>(f: (at: number) => A) => Effect.map(now, f)

  const service: CacheService = {
    shared: false,
    get: (key) => at((t) => Option.fromNullable(stringOf(live(key, t)))),
    // The same clock as `get`: Clock's default service reads Date.now().
    peek: (key) => Option.fromNullable(stringOf(live(key, Date.now()))),
    set: (key, value, ttl) => at((t) => put(key, { value, expiresAt: expiry(t, ttl) }, t)),
    setVersioned: (key, version, value, ttl) =>
      at((t) => {
        const current = stringOf(live(key, t))
        const held = current === undefined ? undefined : versionOf(current)
        if (held !== undefined && held > version) return false
        put(key, { value: `${version}|${value}`, expiresAt: expiry(t, ttl) }, t)
        return true
      }),
    setIfAbsent: (key, value, ttl) =>
      at((t) => {
        if (live(key, t) !== undefined) return false
        put(key, { value, expiresAt: expiry(t, ttl) }, t)
        return true
      }),
    del: (key) => Effect.sync(() => void store.delete(key)),
    take: (key) =>
      at((t) => {
        const value = stringOf(live(key, t))
        if (value === undefined) return Option.none()
        store.delete(key)
        return Option.some(value)
      }),
    incr: (key, ttl) =>
      at((t) => {
        const entry = live(key, t)
        const count = Number(stringOf(entry) ?? 0) + 1
        const expiresAt = entry?.expiresAt ?? expiry(t, ttl)
        put(key, { value: String(count), expiresAt }, t)
        return { count, ttlMs: expiresAt - t }
      }),
    listPush: (key, value, maxLength, ttl) =>
      at((t) => {
        const current = live(key, t)?.value
        const list = Array.isArray(current) ? current : []
        list.push(value)
        if (list.length > maxLength) list.splice(0, list.length - maxLength)
        put(key, { value: list, expiresAt: expiry(t, ttl) }, t)
      }),
    listRange: (key) =>
      at((t) => {
        const value = live(key, t)?.value
        return Array.isArray(value) ? [...value] : []
      }),
    expiringSetAdd: (key, member, ttl) =>
      at((t) => {
        const until = expiry(t, ttl)
        const set = members(key, t)
        if (set === undefined || (set instanceof SoleMember && set.member === member)) {
          return put(key, { value: new SoleMember(member), expiresAt: until }, t)
        }
        // A sole member's entry is live here, and its expiry is the member's.
        const map = set instanceof SoleMember ? new Map([[set.member, store.get(key)!.expiresAt]]) : set
        map.set(member, until)
        put(key, { value: map, expiresAt: Math.max(...map.values()) }, t)
      }),
    expiringSetRemove: (key, member) =>
      at((t) => {
        const set = members(key, t)
        if (set === undefined) return
        if (set instanceof SoleMember) {
          if (set.member === member) store.delete(key)
          return
        }
        set.delete(member)
        if (set.size === 0) store.delete(key)
        else store.set(key, { value: set, expiresAt: Math.max(...set.values()) })
      }),
    expiringSetCount: (key) =>
      at((t) => {
        const set = members(key, t)
        return set instanceof SoleMember ? 1 : set?.size ?? 0
      }),
    ping: Effect.void
  }
  return service
})

const INCR_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
return {count, ttl}`

// The key lives as long as its longest-lived member, so a short-lived member never cuts the others' lives short.
const EXPIRING_SET_ADD_SCRIPT = `
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIRE', KEYS[1], math.max(1, tonumber(last[2]) - tonumber(ARGV[3])))
return 1`

/** The version a `setVersioned` text starts with, or undefined for any other text. */
export const versionOf = (text: string): number | undefined => {
  const bar = text.indexOf("|")
  if (bar <= 0) return undefined
  const version = Number(text.slice(0, bar))
  return Number.isFinite(version) ? version : undefined
}

const SET_VERSIONED_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if current then
  local version = tonumber(string.match(current, '^(%d+)|'))
  if version and version > tonumber(ARGV[1]) then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1] .. '|' .. ARGV[2], 'PX', ARGV[3])
return 1`

const CALL_TIMEOUT_MS = 750
/** ioredis's rejection of a command that got no answer within commandTimeout. */
const TIMED_OUT = "Command timed out"

export const makeRedis = (url: Redacted.Redacted) =>
  Effect.gen(function*() {
    const client = yield* Effect.acquireRelease(
      Effect.sync(() =>
        new Redis(Redacted.value(url), { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false, commandTimeout: CALL_TIMEOUT_MS })
      ),
      (c) => Effect.promise(() => c.quit().catch(() => c.disconnect()))
    )
    yield* Effect.tryPromise({ try: () => client.connect(), catch: (cause) => new CacheError({ op: "connect", cause }) }).pipe(
      Effect.retry(Policies.idempotentStore)
    )
    // ioredis emits errors on reconnect attempts; they surface as failed commands, so only log them.
    client.on("error", () => {})
    // Outage budget: without an offline queue a command fails at once while the connection is down (instead of
    // waiting for a reconnection); one that gets no answer gives up after CALL_TIMEOUT_MS and is not retried (a Redis
    // that does not answer will not answer the retry either); three failures in a row open the breaker, and then
    // every call fails at once until a trial call succeeds. Callers treat the cache as optional or fall back. An error
    // reply is the command's own failure: neither retried nor counted (RedisFailures.ts).
    const breaker = yield* makeCircuitBreaker({
      name: "redis",
      maxFailures: 3,
      resetAfter: "1 second",
      isFailure: (e) => e instanceof CacheError && isRedisUnavailable(e)
    })
    const call = <A>(op: string, f: () => Promise<A>, idempotent = true) => {
      // The time limit is ioredis's own (commandTimeout): an Effect timeout forked a fiber and a timer per call,
      // which cost a request more than the call itself (issue 31: 300 µs of CPU on a route with two publishes).
      const attempt = Effect.tryPromise({
        try: f,
        catch: (cause) => new CacheError({ op, cause: cause instanceof Error && cause.message === TIMED_OUT ? "timeout" : cause })
      })
      const retried = idempotent
        ? Effect.retry(attempt, { schedule: Policies.idempotentStore, while: (e) => e.cause !== "timeout" && isRedisUnavailable(e) && client.status === "ready" })
        : attempt
      return breaker.protect(retried)
    }
    const ms = (ttl: Duration.DurationInput) => Math.max(1, Math.round(Duration.toMillis(ttl)))
    const service: CacheService = {
      shared: true,
      get: (key) => Effect.map(call("get", () => client.get(key)), Option.fromNullable),
      set: (key, value, ttl) =>
        Effect.asVoid(call("set", () => ttl === undefined ? client.set(key, value) : client.set(key, value, "PX", ms(ttl)))),
      // Idempotent: the same write again changes nothing, so a failed attempt may be retried.
      setVersioned: (key, version, value, ttl) =>
        Effect.map(
          call("setVersioned", () => client.eval(SET_VERSIONED_SCRIPT, 1, key, String(version), value, String(ms(ttl)))),
          (r) => r === 1
        ),
      setIfAbsent: (key, value, ttl) =>
        Effect.map(call("setnx", () => client.set(key, value, "PX", ms(ttl), "NX"), false), (r) => r === "OK"),
      del: (key) => Effect.asVoid(call("del", () => client.del(key))),
      take: (key) => Effect.map(call("getdel", () => client.getdel(key), false), Option.fromNullable),
      incr: (key, ttl) =>
        Effect.map(
          call("incr", () => client.eval(INCR_SCRIPT, 1, key, String(ms(ttl))) as Promise<[number, number]>, false),
          ([count, ttlMs]) => ({ count, ttlMs: Math.max(0, ttlMs) })
        ),
      listPush: (key, value, maxLength, ttl) =>
        Effect.asVoid(call("listPush", () =>
          client.multi().rpush(key, value).ltrim(key, -maxLength, -1).pexpire(key, ms(ttl)).exec(), false)),
      listRange: (key) => call("listRange", () => client.lrange(key, 0, -1)),
      expiringSetAdd: (key, member, ttl) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Effect.asVoid(call("expiringSetAdd", () =>
            client.eval(EXPIRING_SET_ADD_SCRIPT, 1, key, String(now + ms(ttl)), member, String(now))))),
      expiringSetRemove: (key, member) => Effect.asVoid(call("expiringSetRemove", () => client.zrem(key, member))),
      expiringSetCount: (key) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Effect.map(
            call("expiringSetCount", () => client.multi().zremrangebyscore(key, "-inf", now).zcard(key).exec()),
            (results) => Number(results?.[1]?.[1] ?? 0)
          )),
      ping: Effect.asVoid(call("ping", () => client.ping()))
    }
    return service
  })

export const layerMemory: Layer.Layer<Cache> = Layer.effect(Cache, makeMemory)
export const layerRedis = (url: Redacted.Redacted): Layer.Layer<Cache, CacheError> => Layer.scoped(Cache, makeRedis(url))

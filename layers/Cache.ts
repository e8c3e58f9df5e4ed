import { Clock, Context, Data, Duration, Effect, Layer, Option, Redacted, Ref } from "effect"
import { Redis } from "ioredis"
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
  readonly get: (key: string) => Effect.Effect<Option.Option<string>, CacheFailure>
  readonly set: (key: string, value: string, ttl?: Duration.DurationInput) => Effect.Effect<void, CacheFailure>
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

interface MemoryEntry {
  readonly value: string | Array<string> | Map<string, number>
  readonly expiresAt: number
}

export const makeMemory: Effect.Effect<CacheService> = Effect.gen(function*() {
  const store = yield* Ref.make(new Map<string, MemoryEntry>())
  const now = Clock.currentTimeMillis
  const alive = (entry: MemoryEntry | undefined, at: number) => entry !== undefined && entry.expiresAt > at ? entry : undefined
  const read = (key: string) => Effect.zipWith(Ref.get(store), now, (m, at) => alive(m.get(key), at))
  const write = (key: string, entry: MemoryEntry | undefined) =>
    Ref.update(store, (m) => {
      const next = new Map(m)
      if (entry === undefined) next.delete(key)
      else next.set(key, entry)
      return next
    })
  const expiry = (at: number, ttl?: Duration.DurationInput) =>
    ttl === undefined ? Number.POSITIVE_INFINITY : at + Duration.toMillis(ttl)
  const liveMembers = (entry: MemoryEntry | undefined, at: number) => {
    const members = entry?.value instanceof Map ? entry.value : new Map<string, number>()
    return new Map([...members].filter(([, until]) => until > at))
  }

  return {
    get: (key) => Effect.map(read(key), (e) => typeof e?.value === "string" ? Option.some(e.value) : Option.none()),
    set: (key, value, ttl) => Effect.flatMap(now, (at) => write(key, { value, expiresAt: expiry(at, ttl) })),
    setIfAbsent: (key, value, ttl) =>
      Effect.flatMap(now, (at) =>
        Ref.modify(store, (m) => {
          if (alive(m.get(key), at) !== undefined) return [false, m] as const
          const next = new Map(m)
          next.set(key, { value, expiresAt: expiry(at, ttl) })
          return [true, next] as const
        })),
    del: (key) => write(key, undefined),
    take: (key) =>
      Effect.flatMap(now, (at) =>
        Ref.modify(store, (m) => {
          const e = alive(m.get(key), at)
          if (e === undefined || typeof e.value !== "string") return [Option.none<string>(), m] as const
          const next = new Map(m)
          next.delete(key)
          return [Option.some(e.value), next] as const
        })),
    incr: (key, ttl) =>
      Effect.flatMap(now, (at) =>
        Ref.modify(store, (m) => {
          const e = alive(m.get(key), at)
          const count = (e !== undefined && typeof e.value === "string" ? Number(e.value) : 0) + 1
          const expiresAt = e?.expiresAt ?? expiry(at, ttl)
          const next = new Map(m)
          next.set(key, { value: String(count), expiresAt })
          return [{ count, ttlMs: expiresAt - at }, next] as const
        })),
    listPush: (key, value, maxLength, ttl) =>
      Effect.flatMap(now, (at) =>
        Ref.update(store, (m) => {
          const e = alive(m.get(key), at)
          const list = Array.isArray(e?.value) ? [...e.value, value] : [value]
          const next = new Map(m)
          next.set(key, { value: list.slice(-maxLength), expiresAt: expiry(at, ttl) })
          return next
        })),
    listRange: (key) => Effect.map(read(key), (e) => Array.isArray(e?.value) ? e.value : []),
    expiringSetAdd: (key, member, ttl) =>
      Effect.flatMap(now, (at) =>
        Ref.update(store, (m) => {
          const members = liveMembers(alive(m.get(key), at), at)
          members.set(member, expiry(at, ttl))
          const next = new Map(m)
          next.set(key, { value: members, expiresAt: Math.max(...members.values()) })
          return next
        })),
    expiringSetRemove: (key, member) =>
      Effect.flatMap(now, (at) =>
        Ref.update(store, (m) => {
          const members = liveMembers(alive(m.get(key), at), at)
          members.delete(member)
          const next = new Map(m)
          if (members.size === 0) next.delete(key)
          else next.set(key, { value: members, expiresAt: Math.max(...members.values()) })
          return next
        })),
    expiringSetCount: (key) => Effect.zipWith(read(key), now, (e, at) => liveMembers(e, at).size),
    ping: Effect.void
  }
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

export const makeRedis = (url: Redacted.Redacted) =>
  Effect.gen(function*() {
    const client = yield* Effect.acquireRelease(
      Effect.sync(() => new Redis(Redacted.value(url), { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: true })),
      (c) => Effect.promise(() => c.quit().catch(() => c.disconnect()))
    )
    yield* Effect.tryPromise({ try: () => client.connect(), catch: (cause) => new CacheError({ op: "connect", cause }) }).pipe(
      Effect.retry(Policies.idempotentStore)
    )
    // ioredis emits errors on reconnect attempts; they surface as failed commands, so only log them.
    client.on("error", () => {})
    const breaker = yield* makeCircuitBreaker({ name: "redis", maxFailures: 5, resetAfter: "5 seconds" })
    const call = <A>(op: string, f: () => Promise<A>, idempotent = true) => {
      const attempt = Effect.tryPromise({ try: f, catch: (cause) => new CacheError({ op, cause }) }).pipe(
        Effect.timeoutFail({ duration: "2 seconds", onTimeout: () => new CacheError({ op, cause: "timeout" }) })
      )
      return breaker.protect(idempotent ? Effect.retry(attempt, Policies.idempotentStore) : attempt)
    }
    const ms = (ttl: Duration.DurationInput) => Math.max(1, Math.round(Duration.toMillis(ttl)))
    const service: CacheService = {
      get: (key) => Effect.map(call("get", () => client.get(key)), Option.fromNullable),
      set: (key, value, ttl) =>
        Effect.asVoid(call("set", () => ttl === undefined ? client.set(key, value) : client.set(key, value, "PX", ms(ttl)))),
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

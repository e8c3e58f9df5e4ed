import { Clock, Context, Deferred, Effect, Layer, Metric, Option, Schedule, Schema, Stream } from "effect"
import { hostname } from "node:os"
import type { WebSocket } from "ws"
import { Cache } from "../../layers/Cache.ts"
import { newId } from "../../layers/Crypto.ts"
import { Db, type DbError } from "../../layers/Db.ts"
import { websocketActiveConnections } from "../../layers/Metrics.ts"
import { PubSub } from "../../layers/PubSub.ts"
import { AppConfig } from "../Config.ts"
import { decodeSessionEnded, SESSION_ENDED_EVENT } from "../auth/SessionEnded.ts"
import { EventBus, type Envelope, RESET_SOCKETS_EVENT } from "../events/EventBus.ts"
import { Presence } from "../status/Presence.ts"
import { Statuses } from "../status/Statuses.ts"
import { versionIdHeader } from "../system/Version.ts"
import { Connection, REPLAY_MAX_AGE_MS, type ReplayEntry } from "./Connection.ts"
import { EncodedEvent, flat, type ProtocolName } from "./Frames.ts"
import type { LiveSocket } from "./LiveSocket.ts"
import { applyMembership } from "./Membership.ts"
import type { SocketAuth } from "./SocketSession.ts"
import { Subscriptions } from "./Subscriptions.ts"
import { findTakeoverOverlap, Handoff, type ControlMessage, ControlMessageJson, CONTROL_TOPIC, HANDOFF_WAIT } from "./Takeover.ts"

/**
 * The node's realtime hub. It owns this node's connections, delivers every cluster event (EventBus.localEvents and remoteEvents) to the
 * local ones it concerns, and hands a connection over when its client comes back on another node.
 *
 * Delivery is synchronous per event: the envelope is encoded once per protocol and each recipient only appends its
 * sequence number. Subscriptions are per user and move with membership events before the event itself is
 * delivered, so a user added to a channel (or a new DM) receives that channel's next event at once.
 */
export const CLOSE_TOO_MANY = { code: 1008, reason: "Too many connections" } as const
export const CLOSE_SUPERSEDED = { code: 4002, reason: "connection resumed on another socket" } as const
/**
 * The session that authenticated the socket ended. The official WebSocketClient reconnects after any close; its
 * reconnection carries the ended session's token, fails authentication (closed with "authentication failed") and
 * the app, whose REST calls now answer 401, signs out.
 */
export const CLOSE_SESSION_ENDED = { code: 1008, reason: "session ended" } as const
/**
 * This node missed cluster events (its bus subscription broke, or another node's outbox overflowed): every socket is
 * closed and its connection forgotten, so that each client reconnects to a new connection_id and hello and resyncs
 * over REST, as it does after any server restart.
 */
export const CLOSE_RESYNC = { code: 1012, reason: "events missed: reconnect and resync" } as const
/** How long a stopping node keeps its connections for other nodes to take over (official clients retry within seconds). */
export const HANDOVER_MAX_WAIT_MS = 10_000
/** How often socket sessions are checked for expiry (in memory; the database only for those past their time). */
const EXPIRY_CHECK_MS = 1000
const DEFAULT_MAX_CONNECTIONS = 10
/**
 * A user's typing events for one channel are published at most this often, whatever thread they name and however
 * many sockets they open: keyed by the thread or the socket too, one client could multiply what every member of
 * the channel receives.
 */
export const TYPING_THROTTLE_MS = 1000

/** A channel nobody here is known to be in is looked up at most this often (safety net for missed membership events). */
const UNKNOWN_CHANNEL_RECHECK_MS = 30_000

export interface AdmitInput {
  readonly ws: LiveSocket
  readonly auth: SocketAuth
  readonly protocol: ProtocolName
  readonly resume: Option.Option<{ readonly connectionId: string; readonly sequence: number }>
}

export interface Admitted {
  readonly connection: Connection
  readonly socketId: string
}

export interface HubService {
  readonly nodeId: string
  /** Registers an authenticated socket: resumes its connection or starts a fresh one with hello; None when refused. */
  readonly admit: (input: AdmitInput) => Effect.Effect<Option.Option<Admitted>, DbError>
  /** The socket went away: its connection stays resumable for a while; presence and status follow. */
  readonly socketClosed: (connection: Connection, socketId: string, ws: LiveSocket) => Effect.Effect<void>
  /** Whether the user is in the channel (memory first, then one lookup that also repairs the memory). */
  readonly isChannelMember: (userId: string, channelId: string) => Effect.Effect<boolean>
  readonly channelsOf: (userId: string) => ReadonlyArray<string>
  /**
   * Sends a typing event of this user in this channel through `publish`, at most one per TYPING_THROTTLE_MS per user
   * and channel on this node, however many sockets the user opens and whatever thread it names. One that comes
   * sooner is not dropped but held to the end of the interval, only the newest of those kept: a user who reloads
   * or switches tabs while typing (a new socket, whose client throttles afresh) is still shown typing.
   */
  readonly typing: (userId: string, channelId: string, publish: Effect.Effect<void>) => Effect.Effect<void>
  /** Sockets open on this node. */
  readonly socketCount: Effect.Effect<number>
  /** Distinct users with a socket open on this node. */
  readonly userCount: Effect.Effect<number>
  /**
   * For a node shutting down, its sockets closed: waits, at most HANDOVER_MAX_WAIT, while connections whose socket
   * closed since `closedSince` (by the shutdown) and that other nodes may still take over (their clients reconnecting elsewhere with connection_id and sequence_number) remain, so that
   * the replay buffers move through the takeover path instead of going down with the node.
   */
  readonly handOver: (closedSince: number) => Effect.Effect<void>
}

export class Hub extends Context.Tag("service/Hub")<Hub, HubService>() {}

interface ConnectionRecord {
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
const handoffKey = (requestId: string) => `ws:handoff:${requestId}`
const encodeRecord = Schema.encodeSync(ConnectionRecordJson)
const decodeRecord = Schema.decodeUnknownOption(ConnectionRecordJson)
const encodeControl = Schema.encodeSync(ControlMessageJson)
const decodeControl = Schema.decodeUnknownOption(ControlMessageJson)
const HandoffJson = Schema.parseJson(Handoff)

export const make = Effect.gen(function*() {
  const bus = yield* EventBus
  const pubsub = yield* PubSub
  const cache = yield* Cache
  const db = yield* Db
  const presence = yield* Presence
  const statuses = yield* Statuses
  const sql = db.sql
  const nodeId = newId()
  const serverHostname = hostname()
  const subscriptions = new Subscriptions()
  const connections = new Map<string, Connection>()
  /** Sockets admitted and not yet departed (LiveSocket.counted). */
  let socketCount = 0
  const uncheckedChannels = new Map<string, number>()
  /** Last typing event sent, by user and channel, and the newest one held for the end of its interval (see typing). */
  const lastTyping = new Map<string, number>()
  const heldTyping = new Map<string, Effect.Effect<void>>()
  const hubScope = yield* Effect.scope
  const awaitingHandoff = new Map<string, Deferred.Deferred<void>>()

  const updateGauge = Effect.suspend(() => Metric.set(websocketActiveConnections, socketCount))
  const quietly = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.catchAllCause(effect, (cause) => Effect.logWarning("realtime background step failed", cause))

  const register = (connection: Connection) => {
    connections.set(connection.id, connection)
    subscriptions.attach(connection)
  }
  const unregister = (connection: Connection) => {
    if (connections.get(connection.id) === connection) connections.delete(connection.id)
    subscriptions.detach(connection)
  }
  // One listener for every socket rather than a closure per socket (about 100 bytes each).
  const onPong = function(this: WebSocket) {
    ;(this as LiveSocket).alive = true
  }
  const attachSocket = (connection: Connection, ws: LiveSocket, socketId: string, auth: SocketAuth) => {
    connection.ws = ws
    connection.socketId = socketId
    connection.sessionId = auth.sessionId
    connection.sessionExpiresAt = auth.sessionExpiresAt
    ws.alive = true
    if (!ws.counted) {
      ws.counted = true
      socketCount++
    }
    ws.on("pong", onPong)
  }

  const loadMemberships = (userId: string) =>
    Effect.all([
      db.read(sql<{ channel_id: string }>`SELECT channel_id FROM channel_members WHERE user_id = ${userId}`),
      db.read(sql<{ team_id: string }>`SELECT team_id FROM team_members WHERE user_id = ${userId} AND delete_at = 0`)
    ], { concurrency: 2 }).pipe(Effect.map(([c, t]) => ({ channels: c.map((r) => r.channel_id), teams: t.map((r) => r.team_id) })))

  /** Makes sure the user's memberships are known, then runs `then` in the same synchronous step. */
  const withUser = <A>(userId: string, then: () => A) =>
    Effect.gen(function*() {
      let loaded = subscriptions.user(userId) === undefined ? yield* loadMemberships(userId) : undefined
      while (subscriptions.user(userId) === undefined && loaded === undefined) loaded = yield* loadMemberships(userId)
      subscriptions.addUser(userId, loaded?.channels ?? [], loaded?.teams ?? [])
      return then()
    })

  const maxConnections = db.read(sql<{ max: number | string | null }>`
    SELECT value->'max_simultaneous_connections' AS max FROM server_config WHERE section = 'site'`).pipe(
    Effect.map((rows) => {
      const n = Number(rows[0]?.max ?? DEFAULT_MAX_CONNECTIONS)
      return Number.isInteger(n) && n > 0 ? n : DEFAULT_MAX_CONNECTIONS
    }),
    Effect.orElseSucceed(() => DEFAULT_MAX_CONNECTIONS)
  )

  const helloPrefix = (connection: Connection, now: number) =>
    new EncodedEvent({
      event: "hello",
      data: { connection_id: connection.id, server_version: versionIdHeader(), server_hostname: serverHostname },
      broadcast: { user_id: connection.userId, channel_id: "", team_id: "", omit_users: null, omit_connection_id: "", broadcast_to_all: false },
      created_at: now
    }).prefix(connection.protocol)

  // Only another node reads the owner record: with a cache no other node sees there is nobody to tell.
  const rememberOwner = (connection: Connection, ttlMs: number) =>
    !cache.shared ? Effect.void : cache.set(
      recordKey(connection.id),
      flat(encodeRecord({ user_id: connection.userId, node_id: nodeId, protocol: connection.protocol })),
      ttlMs
    ).pipe(Effect.ignore)

  /** Asks the node holding the connection to let go of it and hand over its replay buffer. */
  const takeOver = (input: AdmitInput, connectionId: string) =>
    Effect.gen(function*() {
      const connection = new Connection(connectionId, input.auth.userId, input.protocol)
      connection.pending = []
      yield* withUser(input.auth.userId, () => register(connection))
      const requestId = newId()
      const released = yield* Deferred.make<void>()
      awaitingHandoff.set(requestId, released)
      yield* pubsub.publish(CONTROL_TOPIC, encodeControl({ type: "release", connection_id: connectionId, user_id: input.auth.userId, request_id: requestId }))
        .pipe(Effect.ignore)
      const answered = yield* Deferred.await(released).pipe(Effect.timeout(HANDOFF_WAIT), Effect.option)
      awaitingHandoff.delete(requestId)
      const raw = Option.isSome(answered) ? yield* cache.take(handoffKey(requestId)).pipe(Effect.orElseSucceed(() => Option.none<string>())) : Option.none<string>()
      const handoff = Option.flatMap(raw, Schema.decodeUnknownOption(HandoffJson))
      const pending = connection.pending ?? []
      connection.pending = undefined
      if (Option.isNone(handoff) || handoff.value.protocol !== input.protocol) {
        unregister(connection)
        return Option.none<Connection>()
      }
      connection.nextSeq = handoff.value.next_seq
      connection.replay = handoff.value.replay.map((e): ReplayEntry => ({ seq: e.seq, at: e.at, prefix: e.prefix }))
      const now = yield* Clock.currentTimeMillis
      const overlap = findTakeoverOverlap(connection.replay, pending, input.protocol)
      for (const event of pending.slice(overlap)) connection.deliver(event, now)
      return Option.some(connection)
    })

  /** The connection to continue, if the client's place in it is still covered by a replay buffer. */
  const resumeTarget = (input: AdmitInput) =>
    Effect.gen(function*() {
      if (Option.isNone(input.resume)) return Option.none<Connection>()
      const { connectionId, sequence } = input.resume.value
      const local = connections.get(connectionId)
      if (local !== undefined) {
        if (local.userId !== input.auth.userId || local.protocol !== input.protocol || local.pending !== undefined) return Option.none<Connection>()
        if (!local.canResumeFrom(sequence)) {
          if (local.ws === undefined) unregister(local)
          return Option.none<Connection>()
        }
        return Option.some(local)
      }
      const record = Option.flatMap(
        yield* cache.get(recordKey(connectionId)).pipe(Effect.orElseSucceed(() => Option.none<string>())),
        decodeRecord
      )
      if (Option.isNone(record) || record.value.user_id !== input.auth.userId || record.value.node_id === nodeId) return Option.none<Connection>()
      const taken = yield* takeOver(input, connectionId)
      if (Option.isSome(taken) && !taken.value.canResumeFrom(sequence)) {
        unregister(taken.value)
        return Option.none<Connection>()
      }
      return taken
    })

  const admit = (input: AdmitInput) =>
    Effect.gen(function*() {
      const socketId = newId()
      const max = yield* maxConnections
      // When the cache cannot count, the limit cannot be enforced; refusing everybody would be worse.
      const count = yield* presence.join(input.auth.userId, socketId).pipe(Effect.orElseSucceed(() => 0))
      if (count > max) {
        yield* presence.leave(input.auth.userId, socketId).pipe(Effect.ignore)
        yield* Effect.logWarning(`Too many connections: user ${input.auth.userId} has ${count - 1} open, the limit is ${max}`)
          .pipe(Effect.annotateLogs({ user_id: input.auth.userId, limit: max }))
        input.ws.close(CLOSE_TOO_MANY.code, CLOSE_TOO_MANY.reason)
        return Option.none<Admitted>()
      }
      const target = yield* resumeTarget(input)
      const now = yield* Clock.currentTimeMillis
      const connection = yield* Option.match(target, {
        onSome: (existing) =>
          Effect.sync(() => {
            const previous = existing.ws
            existing.ws = undefined
            if (previous !== undefined) previous.close(CLOSE_SUPERSEDED.code, CLOSE_SUPERSEDED.reason)
            if (!connections.has(existing.id)) register(existing)
            attachSocket(existing, input.ws, socketId, input.auth)
            existing.replayFrom(Option.getOrThrow(input.resume).sequence)
            return existing
          }),
        onNone: () =>
          withUser(input.auth.userId, () => {
            // A fresh connection takes its first socket's id: unique too, and one id string less per socket.
            const fresh = new Connection(socketId, input.auth.userId, input.protocol)
            register(fresh)
            attachSocket(fresh, input.ws, socketId, input.auth)
            fresh.greet(helloPrefix(fresh, now))
            return fresh
          })
      })
      yield* updateGauge
      yield* rememberOwner(connection, 24 * 60 * 60 * 1000)
      yield* statuses.active(input.auth.userId).pipe(Effect.ignore)
      return Option.some<Admitted>({ connection, socketId })
    })

  const socketClosed = (connection: Connection, socketId: string, ws: LiveSocket) =>
    Effect.gen(function*() {
      if (ws.counted) {
        ws.counted = false
        socketCount--
      }
      if (connection.ws === ws && connections.get(connection.id) === connection) {
        connection.ws = undefined
        connection.disconnectedAt = yield* Clock.currentTimeMillis
        connection.seqAtDisconnect = connection.nextSeq
        yield* rememberOwner(connection, REPLAY_MAX_AGE_MS + 60_000)
      }
      yield* updateGauge
      const remaining = yield* presence.leave(connection.userId, socketId).pipe(Effect.orElseSucceed(() => 1))
      if (remaining === 0) yield* statuses.disconnected(connection.userId).pipe(Effect.ignore)
    })

  /** Closes the connections' sockets and forgets them, replay buffers and owner records included: nothing resumes them. */
  const drop = (list: ReadonlyArray<Connection>, how: { readonly code: number; readonly reason: string }) =>
    Effect.gen(function*() {
      for (const connection of list) {
        unregister(connection)
        const ws = connection.ws
        connection.ws = undefined
        if (ws === undefined) continue
        if (ws.session !== undefined) ws.session.end(how)
        else ws.close(how.code, how.reason)
      }
      if (cache.shared) yield* Effect.forEach(list, (c) => cache.del(recordKey(c.id)).pipe(Effect.ignore), { discard: true, concurrency: 16 })
    })

  /**
   * Sessions that ended: their sockets here close and their connections are forgotten with their replay buffers
   * and owner records, so nothing of them can be resumed on any node.
   */
  const endSessions = (ids: ReadonlySet<string>) =>
    Effect.gen(function*() {
      const ended: Array<Connection> = []
      for (const connection of connections.values()) {
        if (connection.sessionId !== "" && ids.has(connection.sessionId)) ended.push(connection)
      }
      yield* drop(ended, CLOSE_SESSION_ENDED)
    })

  /** Every local connection closed and forgotten with its replay state: see CLOSE_RESYNC. */
  const resetAll = Effect.gen(function*() {
    const all = [...connections.values()].filter((c) => c.pending === undefined)
    yield* Effect.logWarning("cluster events were missed: sockets reset so that their clients resync").pipe(
      Effect.annotateLogs({ connections: all.length })
    )
    yield* drop(all, CLOSE_RESYNC)
  })

  /**
   * Sessions of local connections whose time is up, or (with `all`) every one of them, checked against the database:
   * an expired session ends its sockets, an extended one (a phone registering its device) carries on. `all` also
   * catches a revocation whose event this node missed while the bus was down.
   */
  const checkSessions = (all: boolean) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const due = new Set<string>()
      for (const connection of connections.values()) {
        if (connection.sessionId !== "" && (all || connection.sessionExpiresAt <= now)) due.add(connection.sessionId)
      }
      if (due.size === 0) return
      const live = new Map<string, number>()
      const ids = [...due]
      for (let i = 0; i < ids.length; i += 500) {
        const rows = yield* db.read(sql<{ id: string; expires_at: string | number }>`
          SELECT id, expires_at FROM sessions WHERE id IN ${sql.in(ids.slice(i, i + 500))}`)
        for (const row of rows) live.set(row.id, Number(row.expires_at))
      }
      const ended = new Set<string>()
      for (const id of ids) {
        const expiresAt = live.get(id)
        if (expiresAt === undefined || expiresAt <= now) ended.add(id)
      }
      for (const connection of connections.values()) {
        const expiresAt = live.get(connection.sessionId)
        if (expiresAt !== undefined) connection.sessionExpiresAt = expiresAt
      }
      if (ended.size > 0) yield* endSessions(ended)
    })

  /** One cluster event: membership bookkeeping first, then delivery to the local connections it concerns. */
  const dispatch = (envelope: Envelope) =>
    Effect.gen(function*() {
      if (envelope.event === RESET_SOCKETS_EVENT) return yield* resetAll
      if (envelope.event === SESSION_ENDED_EVENT) {
        const ended = decodeSessionEnded(envelope.data)
        if (Option.isSome(ended)) yield* endSessions(new Set(ended.value.session_ids))
        return
      }
      applyMembership(subscriptions, envelope)
      const b = envelope.broadcast
      if (!b.broadcast_to_all && b.user_id === "" && b.channel_id !== "" && !subscriptions.knowsChannel(b.channel_id)) {
        yield* lookUpChannel(b.channel_id)
      }
      const event = new EncodedEvent(envelope)
      const now = yield* Clock.currentTimeMillis
      const audience = b.broadcast_to_all ? subscriptions.users.values() : subscriptions.audience(b)
      const omitUsers = b.omit_users
      for (const user of audience) {
        if (omitUsers !== null && omitUsers[user.userId] === true) continue
        for (const connection of user.connections) {
          if (connection.id !== b.omit_connection_id) connection.deliver(event, now)
        }
      }
    })

  /** A channel event for a channel no local user is known to be in: one lookup, in case a membership event was missed. */
  const lookUpChannel = (channelId: string) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      if ((uncheckedChannels.get(channelId) ?? 0) > now) return
      if (subscriptions.users.size === 0) return
      uncheckedChannels.set(channelId, now + UNKNOWN_CHANNEL_RECHECK_MS)
      const rows = yield* db.read(sql<{ user_id: string }>`SELECT user_id FROM channel_members WHERE channel_id = ${channelId}`)
        .pipe(Effect.orElseSucceed(() => []))
      for (const row of rows) subscriptions.addChannel(row.user_id, channelId)
      if (uncheckedChannels.size > 10_000) {
        for (const [id, until] of uncheckedChannels) if (until <= now) uncheckedChannels.delete(id)
      }
    })

  const onControl = (message: ControlMessage) =>
    Effect.gen(function*() {
      if (message.type === "released") {
        const waiter = awaitingHandoff.get(message.request_id)
        if (waiter !== undefined) yield* Deferred.succeed(waiter, undefined)
        return
      }
      const connection = connections.get(message.connection_id)
      if (connection === undefined || connection.userId !== message.user_id || connection.pending !== undefined) return
      // Detached in one synchronous step, so the snapshot holds exactly the events this node delivered to it.
      unregister(connection)
      const ws = connection.ws
      connection.ws = undefined
      if (ws !== undefined) ws.close(CLOSE_SUPERSEDED.code, CLOSE_SUPERSEDED.reason)
      const snapshot = Schema.encodeSync(HandoffJson)({
        protocol: connection.protocol,
        next_seq: connection.nextSeq,
        replay: connection.replay
      })
      yield* cache.set(handoffKey(message.request_id), snapshot, "1 minute")
      yield* pubsub.publish(CONTROL_TOPIC, encodeControl({ type: "released", request_id: message.request_id }))
    })

  /** Pings sockets (dropping those that stayed silent), refreshes presence, and forgets connections past resuming. */
  const heartbeat = Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const live: Array<Connection> = []
    for (const connection of connections.values()) {
      const ws = connection.ws
      if (ws === undefined) {
        if (connection.pending === undefined && ((connection.disconnectedAt ?? 0) < now - REPLAY_MAX_AGE_MS || !connection.resumable)) {
          unregister(connection)
        }
        continue
      }
      if (ws.readyState !== 1) continue
      if (!ws.alive) {
        ws.terminate()
        continue
      }
      ws.alive = false
      ws.ping()
      live.push(connection)
    }
    yield* Effect.forEach(live, (c) => presence.refresh(c.userId, c.socketId).pipe(Effect.ignore), { concurrency: 16, discard: true })
    yield* updateGauge
  })

  // Two consumers rather than one merged stream: a merge moves every event through one more queue and fiber.
  const deliverAll = (events: Stream.Stream<Envelope>) =>
    events.pipe(
      Stream.runForEach((envelope) => dispatch(envelope).pipe(Effect.catchAllCause((cause) => Effect.logError("event delivery failed", cause)))),
      Effect.forkScoped
    )
  yield* deliverAll(bus.localEvents)
  yield* deliverAll(bus.remoteEvents)
  yield* pubsub.gaps.pipe(Stream.runForEach(() => quietly(resetAll)), Effect.forkScoped)
  yield* pubsub.subscribe(CONTROL_TOPIC).pipe(
    Stream.filterMap(decodeControl),
    Stream.runForEach((message) => quietly(onControl(message))),
    Effect.forkScoped
  )
  const heartbeatMs = (yield* AppConfig).wsPingIntervalMs
  yield* quietly(Effect.zipRight(heartbeat, checkSessions(true))).pipe(Effect.repeat(Schedule.spaced(heartbeatMs)), Effect.delay(heartbeatMs), Effect.forkScoped)
  yield* quietly(checkSessions(false)).pipe(Effect.repeat(Schedule.spaced(EXPIRY_CHECK_MS)), Effect.delay(EXPIRY_CHECK_MS), Effect.forkScoped)

  const service: HubService = {
    nodeId,
    admit,
    socketClosed,
    isChannelMember: (userId, channelId) =>
      Effect.gen(function*() {
        if (subscriptions.hasChannel(userId, channelId)) return true
        const rows = yield* db.read(sql<{ n: number }>`
          SELECT 1 AS n FROM channel_members WHERE channel_id = ${channelId} AND user_id = ${userId}`).pipe(Effect.orElseSucceed(() => []))
        if (rows.length > 0) subscriptions.addChannel(userId, channelId)
        return rows.length > 0
      }),
    channelsOf: (userId) => [...(subscriptions.user(userId)?.channels ?? [])],
    typing: (userId, channelId, publish) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const key = `${userId}:${channelId}`
        const wait = (lastTyping.get(key) ?? 0) + TYPING_THROTTLE_MS - now
        if (wait <= 0 && !heldTyping.has(key)) {
          lastTyping.set(key, now)
          if (lastTyping.size > 10_000) {
            for (const [k, at] of lastTyping) if (now - at >= TYPING_THROTTLE_MS && !heldTyping.has(k)) lastTyping.delete(k)
          }
          return publish
        }
        const alreadyHeld = heldTyping.has(key)
        heldTyping.set(key, publish)
        if (alreadyHeld) return Effect.void
        const release = Effect.gen(function*() {
          const held = heldTyping.get(key)
          heldTyping.delete(key)
          lastTyping.set(key, yield* Clock.currentTimeMillis)
          if (held !== undefined) yield* held
        })
        return Effect.asVoid(Effect.forkIn(quietly(Effect.delay(release, Math.max(wait, 0))), hubScope))
      }),
    handOver: (closedSince) => Effect.gen(function*() {
      // Only another node can take a connection over, and only through the shared cache.
      if (!cache.shared) return
      const started = yield* Clock.currentTimeMillis
      const waiting = () => {
        let n = 0
        for (const c of connections.values()) {
          // A socket still attached is one the shutdown is closing (its departure may not have run yet).
          if (c.pending === undefined && (c.ws !== undefined || ((c.disconnectedAt ?? 0) >= closedSince && c.resumable))) n++
        }
        return n
      }
      const before = waiting()
      if (before === 0) return
      yield* Effect.logInfo("handing connections over to the other nodes").pipe(Effect.annotateLogs({ connections: before }))
      let now = started
      while (waiting() > 0 && now - started < HANDOVER_MAX_WAIT_MS) {
        yield* Effect.sleep("50 millis")
        now = yield* Clock.currentTimeMillis
      }
      yield* Effect.logInfo("connection handover done").pipe(
        Effect.annotateLogs({ handed_over: before - waiting(), left: waiting(), waited_ms: now - started })
      )
    }),
    socketCount: Effect.sync(() => socketCount),
    userCount: Effect.sync(() => {
      let n = 0
      for (const user of subscriptions.users.values()) {
        for (const c of user.connections) {
          if (c.isOpen) {
            n++
            break
          }
        }
      }
      return n
    })
  }
  return service
})

export const layer = Layer.scoped(Hub, make)

import { Clock, Deferred, Effect, Option, Schema } from "effect"
import { hostname } from "node:os"
import type { CacheService } from "../../layers/Cache.ts"
import { newId } from "../../layers/Crypto.ts"
import type { PubSubService } from "../../layers/PubSub.ts"
import type { PresenceService } from "../status/Presence.ts"
import type { StatusesService } from "../status/Statuses.ts"
import { versionIdHeader } from "../system/Version.ts"
import { Connection, REPLAY_MAX_AGE_MS } from "./Connection.ts"
import { EncodedEvent, type ProtocolName } from "./Frames.ts"
import type { HubState } from "./HubState.ts"
import { CONNECTED_RECORD_TTL_MS, type OwnerRecords } from "./OwnerRecords.ts"
import type { RealtimeRepo } from "./RealtimeRepo.ts"
import type { LiveSocket, SocketAuth } from "./Socket.ts"
import { type ControlMessage, ControlMessageJson, CONTROL_TOPIC, findTakeoverOverlap, Handoff, HANDOFF_WAIT } from "./Takeover.ts"

/**
 * Admission and takeover: a socket joins a fresh connection (with hello) or resumes one, here or, through the
 * takeover handshake, from the node that holds it; its departure leaves the connection resumable for a while.
 */
export const CLOSE_TOO_MANY = { code: 1008, reason: "Too many connections" } as const
export const CLOSE_SUPERSEDED = { code: 4002, reason: "connection resumed on another socket" } as const
const DEFAULT_MAX_CONNECTIONS = 10

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

const handoffKey = (requestId: string) => `ws:handoff:${requestId}`
const encodeControl = Schema.encodeSync(ControlMessageJson)
const HandoffJson = Schema.parseJson(Handoff)

export interface AdmissionDeps {
  readonly state: HubState
  readonly records: OwnerRecords
  readonly repo: RealtimeRepo
  readonly cache: CacheService
  readonly pubsub: PubSubService
  readonly presence: PresenceService
  readonly statuses: StatusesService
}

export const makeAdmission = ({ state, records, repo, cache, pubsub, presence, statuses }: AdmissionDeps) => {
  const serverHostname = hostname()
  const { connections } = state
  const awaitingHandoff = new Map<string, Deferred.Deferred<void>>()

  const maxConnections = repo.maxConnections.pipe(
    Effect.map((max) => {
      const n = Number(max ?? DEFAULT_MAX_CONNECTIONS)
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

  /** Asks the node holding the connection to let go of it and hand over its replay buffer. */
  const takeOver = (input: AdmitInput, connectionId: string) =>
    Effect.gen(function*() {
      const connection = new Connection(connectionId, input.auth.userId, input.protocol)
      connection.pending = []
      yield* state.withUser(input.auth.userId, () => state.register(connection))
      const requestId = newId()
      const released = yield* Deferred.make<void>()
      awaitingHandoff.set(requestId, released)
      yield* pubsub.publish(CONTROL_TOPIC, encodeControl({ type: "release", connection_id: connectionId, user_id: input.auth.userId, request_id: requestId }))
        .pipe(Effect.ignore)
      const answered = yield* Deferred.await(released).pipe(Effect.timeout(HANDOFF_WAIT), Effect.option)
      awaitingHandoff.delete(requestId)
      if (Option.isNone(answered)) {
        yield* Effect.logWarning(`the node holding connection ${connectionId} did not hand it over within ${HANDOFF_WAIT}: the client starts afresh`)
          .pipe(Effect.annotateLogs({ connection_id: connectionId, user_id: input.auth.userId }))
      }
      const raw = Option.isSome(answered) ? yield* cache.take(handoffKey(requestId)).pipe(Effect.orElseSucceed(() => Option.none<string>())) : Option.none<string>()
      const handoff = Option.flatMap(raw, Schema.decodeUnknownOption(HandoffJson))
      const pending = connection.pending ?? []
      connection.pending = undefined
      if (Option.isNone(handoff) || handoff.value.protocol !== input.protocol) {
        state.unregister(connection)
        return Option.none<Connection>()
      }
      connection.nextSeq = handoff.value.next_seq
      connection.restoreReplay(handoff.value.replay)
      const now = yield* Clock.currentTimeMillis
      const overlap = findTakeoverOverlap(connection.replayEntries(), pending, input.protocol)
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
          if (local.ws === undefined) state.unregister(local)
          return Option.none<Connection>()
        }
        return Option.some(local)
      }
      const record = yield* records.lookup(connectionId)
      if (Option.isNone(record) || record.value.user_id !== input.auth.userId || record.value.node_id === state.nodeId) return Option.none<Connection>()
      const taken = yield* takeOver(input, connectionId)
      if (Option.isSome(taken) && !taken.value.canResumeFrom(sequence)) {
        state.unregister(taken.value)
        return Option.none<Connection>()
      }
      return taken
    })

  /** Registers an authenticated socket: resumes its connection or starts a fresh one with hello; None when refused. */
  const admit = (input: AdmitInput) =>
    Effect.gen(function*() {
      const socketId = newId()
      // When the cache cannot count, the limit cannot be enforced; refusing everybody would be worse.
      const count = yield* presence.join(input.auth.userId, socketId).pipe(Effect.orElseSucceed(() => 0))
      // The limit is at least 1, so a user's first socket (nearly every socket) never needs it: the setting is read
      // (fresh, so that an administrator's change applies at once on every node) only when there is another.
      const max = count > 1 ? yield* maxConnections : DEFAULT_MAX_CONNECTIONS
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
            if (!connections.has(existing.id)) state.register(existing)
            state.attachSocket(existing, input.ws, socketId, input.auth)
            existing.replayFrom(Option.getOrThrow(input.resume).sequence)
            return existing
          }),
        onNone: () =>
          state.withUser(input.auth.userId, () => {
            // A fresh connection takes its first socket's id: unique too, and one id string less per socket.
            const fresh = new Connection(socketId, input.auth.userId, input.protocol)
            state.register(fresh)
            state.attachSocket(fresh, input.ws, socketId, input.auth)
            fresh.greet(helloPrefix(fresh, now))
            return fresh
          })
      })
      yield* state.updateGauge
      yield* records.remember(connection, CONNECTED_RECORD_TTL_MS)
      yield* statuses.active(input.auth.userId).pipe(Effect.ignore)
      return Option.some<Admitted>({ connection, socketId })
    })

  /**
   * The socket went away: its connection stays resumable for a while; presence and status follow. The socket counts
   * until they have (however the step ends), so a socket count that dropped means its departure was fully handled.
   */
  const socketClosed = (connection: Connection, socketId: string, ws: LiveSocket) =>
    Effect.gen(function*() {
      if (connection.ws === ws && connections.get(connection.id) === connection) {
        connection.ws = undefined
        connection.disconnectedAt = yield* Clock.currentTimeMillis
        connection.seqAtDisconnect = connection.nextSeq
        yield* records.remember(connection, REPLAY_MAX_AGE_MS + 60_000)
      }
      const remaining = yield* presence.leave(connection.userId, socketId).pipe(Effect.orElseSucceed(() => 1))
      if (remaining === 0) yield* statuses.disconnected(connection.userId).pipe(Effect.ignore)
    }).pipe(Effect.ensuring(Effect.zipRight(Effect.sync(() => state.uncount(ws)), state.updateGauge)))

  /** The other side of a takeover: this node lets go of a connection another node asks for, or hears its answer. */
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
      state.unregister(connection)
      const ws = connection.ws
      connection.ws = undefined
      if (ws !== undefined) ws.close(CLOSE_SUPERSEDED.code, CLOSE_SUPERSEDED.reason)
      const snapshot = Schema.encodeSync(HandoffJson)({
        protocol: connection.protocol,
        next_seq: connection.nextSeq,
        replay: connection.replayEntries()
      })
      // Counted from the detaching step until the answer is out: a stopping node that saw only its connections
      // would find none left here and close Redis (and this fiber) under the answer, leaving the asking node to time
      // out and its client to start over with a fresh hello.
      state.releasing++
      yield* Effect.zipRight(
        cache.set(handoffKey(message.request_id), snapshot, "1 minute"),
        pubsub.publish(CONTROL_TOPIC, encodeControl({ type: "released", request_id: message.request_id }))
      ).pipe(Effect.ensuring(Effect.sync(() => state.releasing--)))
    })

  return { admit, socketClosed, onControl }
}

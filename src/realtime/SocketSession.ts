import { Effect, type Fiber, FiberId, Option } from "effect"
import { Sessions } from "../auth/Sessions.ts"
import type { EventBus } from "../events/EventBus.ts"
import type { Statuses } from "../status/Statuses.ts"
import { logSecurityEvent, SecurityEvent } from "../security/SecurityEvents.ts"
import { handleAction, NoReply } from "./Actions.ts"
import { type ClientRequest, errorReply, okReply, type ProtocolName, RequestErrors, type RequestError } from "./Frames.ts"
import type { Connection } from "./Connection.ts"
import { Hub } from "./Hub.ts"
import type { CloseReason, LiveSocket, SocketAuth, SocketOwner } from "./Socket.ts"

/**
 * One socket's life as plain state and callbacks: authentication (on upgrade, or by `authentication_challenge`
 * within AUTH_DEADLINE_MS), then its requests one at a time, in order, until it closes. Effects run only while
 * something happens (a request, the admission, the departure); an idle socket holds no fiber, which is what keeps
 * it within reach of a bare `ws` connection in memory. Nothing a client sends can break the session: every problem
 * becomes an error reply or a close.
 */
export const AUTH_DEADLINE_MS = 5000
export const CLOSE_AUTH_TIMEOUT = { code: 1008, reason: "authentication timeout" } as const
export const CLOSE_AUTH_FAILED = { code: 1008, reason: "authentication failed" } as const
export const CLOSE_INTERNAL = { code: 1011, reason: "internal error" } as const
export const CLOSE_SHUTDOWN = { code: 1001, reason: "server shutting down" } as const
/** A socket refused `burst` frames in a row for going over its action rate. */
export const CLOSE_ACTION_RATE = { code: 1008, reason: "too many actions" } as const
/** Error replies to frames without a usable seq carry this one: clients treat any truthy seq_reply as a reply. */
export const UNKNOWN_SEQ = -1
/** How long a departure (presence, status) may take before the session gives up on it. */
const DEPARTURE_WAIT = "5 seconds"

/** What a session's effects may use: the node's runtime, captured by the socket server, provides it. */
export type SessionServices = Hub | Sessions | Statuses | EventBus
export type Run = <A, E>(effect: Effect.Effect<A, E, SessionServices>) => Fiber.RuntimeFiber<A, E>

export interface SessionOptions {
  readonly protocol: ProtocolName
  readonly resume: Option.Option<{ readonly connectionId: string; readonly sequence: number }>
  /** For the security event of a failed authentication. */
  readonly clientIp: string
  /** Called once when the socket has closed. */
  readonly onClosed: (session: SocketSession) => void
  readonly rate: ActionRate
}

/**
 * Each socket's frames (actions, authentication and malformed ones alike) draw from a token bucket holding `burst`
 * tokens and refilled at `perSecond` (SERVICE_WS_ACTIONS_PER_SECOND, SERVICE_WS_ACTIONS_BURST): a frame without a
 * token gets an error reply (429 `rate_limit_exceeded`) instead of being served, and `burst` such refusals in a row
 * close the socket (1008 `too many actions`) once the frames already taken are answered; frames after that are
 * ignored. A frame takes its token as it arrives, so a flood never queues more than `burst` of them: one client
 * could otherwise make the node write replies without end (2,000 status requests once produced 152 MB).
 */
export interface ActionRate {
  readonly perSecond: number
  readonly burst: number
  /** The node's Clock, read as each frame arrives. */
  readonly now: () => number
}

/** Parses a frame far enough to answer it: the seq of a request is needed even to report what is wrong with it. */
const parse = (text: string): { readonly request: ClientRequest } | { readonly error: RequestError; readonly seq: number } => {
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch {
    return { error: RequestErrors.badJson, seq: UNKNOWN_SEQ }
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return { error: RequestErrors.badJson, seq: UNKNOWN_SEQ }
  const { action, seq, data } = raw as Record<string, unknown>
  if (typeof seq !== "number" || !Number.isSafeInteger(seq) || seq <= 0) return { error: RequestErrors.badSeq, seq: UNKNOWN_SEQ }
  if (typeof action !== "string" || action === "") return { error: RequestErrors.noAction, seq }
  return { request: { action, seq, data: data ?? null } }
}

const isRequestError = (e: unknown): e is RequestError =>
  typeof e === "object" && e !== null && "id" in e && "status" in e && "message" in e

/** Logs a failed authentication as the security event. */
export const refusal = (reason: string, clientIp: string, path: string) =>
  logSecurityEvent(SecurityEvent.WebSocketAuthFailure, { reason, client_ip: clientIp, path })

const PATH = { v4: "/api/v4/websocket", native: "/api/v1/ws" } as const

const Flag = {
  /** We asked the socket to close (refused, timed out, over a limit): frames still arriving are ignored. */
  Closing: 1,
  Closed: 2,
  /** The departure was recorded (by the close, or by the node shutting down first). */
  Departed: 4,
  /** An effect of this session is running. */
  Busy: 8,
  DeadlinePassed: 16,
  /** Over the action rate too long: the frames taken are answered, then the socket closes; later ones are ignored. */
  RateExceeded: 32
} as const

/** The socket's handler: the WebSocket layer's shared listeners find the session on the socket (no closure per socket). */
export class SocketSession implements SocketOwner {

  /** Set once admitted; with the id of this socket, which presence counts (a resumed connection changes sockets). */
  private connection: Connection | undefined = undefined
  private socketId = ""
  private readonly protocol: ProtocolName
  private readonly resume: SessionOptions["resume"]
  /** Only refusals use it, and they all come before admission: released then. */
  private clientIp: string
  private readonly onClosed: SessionOptions["onClosed"]
  /** The session's Flag bits, one number rather than five boolean fields. */
  private flags = 0
  /** Frames wait their turn here, in order, while an effect of this session runs (Flag.Busy). */
  private waiting: Array<string | Uint8Array> | undefined = undefined
  private deadline: Fiber.RuntimeFiber<void> | undefined = undefined
  private readonly rate: ActionRate
  /** The token bucket: what is left, when it was last refilled (0: not yet, full), refusals in a row. */
  private tokens: number
  private refilledAt = 0
  private refusals = 0

  /** The options are kept as fields: one object less per socket. */
  constructor(
    private readonly ws: LiveSocket,
    private readonly run: Run,
    options: SessionOptions
  ) {
    this.protocol = options.protocol
    this.resume = options.resume
    this.clientIp = options.clientIp
    this.onClosed = options.onClosed
    this.rate = options.rate
    this.tokens = options.rate.burst
  }

  /** Starts serving the socket: admits it at once when the upgrade carried a valid token, else waits for a challenge. */
  start(auth: SocketAuth | undefined) {
    this.ws.handler = this
    if (auth !== undefined) return this.step(this.admit(auth))
    this.deadline = this.run(Effect.sleep(AUTH_DEADLINE_MS))
    this.deadline.addObserver((exit) => {
      this.deadline = undefined
      if (exit._tag === "Success") {
        this.flags |= Flag.DeadlinePassed
        this.next()
      }
    })
  }

  private has(flag: number) {
    return (this.flags & flag) !== 0
  }

  /** Closes the socket for the node's shutdown and records its departure now, while the node's services still run. */
  shutdown(): Effect.Effect<void, never, SessionServices> {
    if (this.ws.readyState === 0 || this.ws.readyState === 1) this.ws.close(CLOSE_SHUTDOWN.code, CLOSE_SHUTDOWN.reason)
    return this.depart()
  }

  /** Closes the socket from the hub (its session ended): frames still arriving are ignored. */
  end(how: CloseReason) {
    this.close(how)
  }

  /** A frame arrived (the WebSocket layer calls this). */
  received(frame: string | Uint8Array) {
    if (this.has(Flag.Closing) || this.has(Flag.RateExceeded)) return
    if (!this.takeToken(this.rate.now())) return this.refuseOverRate(frame)
    ;(this.waiting ??= []).push(frame)
    this.next()
  }

  /** Takes a token for a frame; false when the bucket is empty. */
  private takeToken(now: number) {
    const { perSecond, burst } = this.rate
    if (this.refilledAt !== 0) this.tokens = Math.min(burst, this.tokens + ((now - this.refilledAt) * perSecond) / 1000)
    this.refilledAt = now
    if (this.tokens < 1) return false
    this.tokens -= 1
    this.refusals = 0
    return true
  }

  /** The error reply to a frame over the rate, and the close once `burst` of them came in a row. */
  private refuseOverRate(frame: string | Uint8Array) {
    const parsed = typeof frame === "string" ? parse(frame) : undefined
    const seq = parsed !== undefined && "request" in parsed ? parsed.request.seq : parsed?.seq ?? UNKNOWN_SEQ
    this.send(errorReply(this.protocol, seq, RequestErrors.rateLimited))
    if (++this.refusals < this.rate.burst) return
    this.flags |= Flag.RateExceeded
    this.next()
  }

  /** The socket closed (the WebSocket layer calls this). */
  closed() {
    this.flags |= Flag.Closed
    this.waiting = undefined
    this.deadline?.unsafeInterruptAsFork(FiberId.none)
    this.onClosed(this)
    // A running step (an admission, a request) records the departure when it is done.
    if (!this.has(Flag.Busy)) this.run(this.depart())
  }

  /** Runs one effect of the session; the next waiting frame is handled when it is done. */
  private step(effect: Effect.Effect<void, never, SessionServices>) {
    this.flags |= Flag.Busy
    this.run(effect).addObserver(() => {
      this.flags &= ~Flag.Busy
      if (this.has(Flag.Closed)) this.run(this.depart())
      else this.next()
    })
  }

  private next() {
    if (this.has(Flag.Busy) || this.has(Flag.Closed)) return
    if (this.has(Flag.Closing)) {
      this.waiting = undefined
      return
    }
    if (this.has(Flag.DeadlinePassed) && this.connection === undefined) {
      this.waiting = undefined
      return this.step(Effect.zipRight(
        this.refuse(`no authentication within ${AUTH_DEADLINE_MS / 1000} seconds`),
        Effect.sync(() => this.close(CLOSE_AUTH_TIMEOUT))
      ))
    }
    const frame = this.waiting?.shift()
    if (this.waiting?.length === 0) this.waiting = undefined
    if (frame !== undefined) this.step(this.handle(frame))
    else if (this.has(Flag.RateExceeded)) this.close(CLOSE_ACTION_RATE)
  }

  private refuse(reason: string) {
    return refusal(reason, this.clientIp, PATH[this.protocol])
  }

  private send(text: string) {
    if (this.ws.readyState === 1) this.ws.send(text)
  }

  private close(how: CloseReason) {
    this.flags |= Flag.Closing
    this.ws.close(how.code, how.reason)
  }

  private depart(): Effect.Effect<void, never, SessionServices> {
    return Effect.suspend(() => {
      const connection = this.connection
      if (connection === undefined || this.has(Flag.Departed)) return Effect.void
      this.flags |= Flag.Departed
      return Effect.flatMap(Hub, (hub) => hub.socketClosed(connection, this.socketId, this.ws)).pipe(Effect.timeout(DEPARTURE_WAIT), Effect.ignore)
    })
  }

  private admit(auth: SocketAuth): Effect.Effect<boolean, never, SessionServices> {
    const { protocol, resume } = this
    return Effect.flatMap(Hub, (hub) => hub.admit({ ws: this.ws, auth, protocol, resume })).pipe(
      Effect.flatMap((result) => {
        if (Option.isNone(result)) {
          this.flags |= Flag.Closing
          return Effect.succeed(false)
        }
        this.connection = result.value.connection
        this.socketId = result.value.socketId
        this.clientIp = ""
        this.deadline?.unsafeInterruptAsFork(FiberId.none)
        return Effect.succeed(true)
      }),
      Effect.catchAllCause((cause) =>
        Effect.as(Effect.zipRight(Effect.logError("websocket admission failed", cause), Effect.sync(() => this.close(CLOSE_INTERNAL))), false)
      )
    )
  }

  private authenticate(request: ClientRequest): Effect.Effect<void, never, SessionServices> {
    return Effect.gen(this, function*() {
      const protocol = this.protocol
      if (request.action !== "authentication_challenge") return this.send(errorReply(protocol, request.seq, RequestErrors.notAuthenticated))
      const token = (request.data as { token?: unknown } | null)?.token
      const sessions = yield* Sessions
      const session = typeof token === "string" && token !== ""
        ? yield* sessions.lookup(token).pipe(Effect.orElseSucceed(() => Option.none()))
        : Option.none()
      if (Option.isNone(session)) {
        yield* this.refuse("invalid token in authentication_challenge")
        return this.close(CLOSE_AUTH_FAILED)
      }
      if (yield* this.admit({ userId: session.value.user_id, sessionId: session.value.id, sessionExpiresAt: session.value.expires_at })) this.send(okReply(protocol, request.seq))
    })
  }

  private handle(frame: string | Uint8Array): Effect.Effect<void, never, SessionServices> {
    const protocol = this.protocol
    return Effect.gen(this, function*() {
      const parsed = typeof frame === "string" ? parse(frame) : { error: RequestErrors.badJson, seq: UNKNOWN_SEQ }
      if ("error" in parsed) return this.send(errorReply(protocol, parsed.seq, parsed.error))
      const { request } = parsed
      if (this.connection === undefined) return yield* this.authenticate(request)
      const result = yield* handleAction(this.connection, request).pipe(Effect.either)
      if (result._tag === "Left") {
        if (!isRequestError(result.left)) yield* Effect.logError("websocket request failed", result.left)
        return this.send(errorReply(protocol, request.seq, isRequestError(result.left) ? result.left : RequestErrors.internal))
      }
      if (result.right !== NoReply) this.send(okReply(protocol, request.seq, result.right))
    }).pipe(
      Effect.catchAllCause((cause) =>
        Effect.zipRight(
          Effect.logError("websocket request failed", cause),
          Effect.sync(() => {
            const failure = cause._tag === "Fail" && isRequestError(cause.error) ? cause.error : RequestErrors.internal
            this.send(errorReply(protocol, UNKNOWN_SEQ, failure))
          })
        ))
    )
  }
}

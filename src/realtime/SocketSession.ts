import { Clock, Effect, Option, Queue } from "effect"
import type { WebSocket } from "ws"
import { Sessions } from "../auth/Sessions.ts"
import { handleAction, NoReply } from "./Actions.ts"
import { type ClientRequest, errorReply, okReply, type ProtocolName, RequestErrors, type RequestError } from "./Frames.ts"
import { type Admitted, CLOSE_SHUTDOWN, Hub } from "./Hub.ts"

/**
 * One socket's life, in one fiber: authentication (on upgrade, or by `authentication_challenge` within
 * AUTH_DEADLINE_MS), then its requests one at a time, in order, until it closes. Nothing a client sends can fail
 * the fiber: every problem becomes an error reply or a close.
 */
export const AUTH_DEADLINE_MS = 5000
export const CLOSE_AUTH_TIMEOUT = { code: 1008, reason: "authentication timeout" } as const
export const CLOSE_AUTH_FAILED = { code: 1008, reason: "authentication failed" } as const
export const CLOSE_INTERNAL = { code: 1011, reason: "internal error" } as const
/** Error replies to frames without a usable seq carry this one: clients treat any truthy seq_reply as a reply. */
export const UNKNOWN_SEQ = -1

export interface SocketAuth {
  readonly userId: string
  readonly sessionId: string
}

const CLOSED = Symbol("closed")
type Inbound = string | Uint8Array | typeof CLOSED

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

export const serveSocket = (options: {
  readonly ws: WebSocket
  readonly protocol: ProtocolName
  readonly auth: SocketAuth | undefined
  readonly resume: Option.Option<{ readonly connectionId: string; readonly sequence: number }>
  readonly refuse: (reason: string) => Effect.Effect<void>
}) => {
  const { ws, protocol } = options
  let admitted: Admitted | undefined
  return Effect.gen(function*() {
    const hub = yield* Hub
    const sessions = yield* Sessions
    const inbox = yield* Queue.unbounded<Inbound>()
    ws.on("message", (data: Buffer, isBinary: boolean) => Queue.unsafeOffer(inbox, isBinary ? new Uint8Array(data) : data.toString("utf8")))
    ws.once("close", () => Queue.unsafeOffer(inbox, CLOSED))
    ws.on("error", () => {})
    let closing = false
    const send = (text: string) => {
      if (ws.readyState === 1) ws.send(text)
    }
    const close = (how: { readonly code: number; readonly reason: string }) => {
      closing = true
      ws.close(how.code, how.reason)
    }

    const admit = (auth: SocketAuth) =>
      hub.admit({ ws, userId: auth.userId, sessionId: auth.sessionId, protocol, resume: options.resume }).pipe(
        Effect.map((result) => {
          if (Option.isSome(result)) admitted = result.value
          else closing = true
          return Option.isSome(result)
        }),
        Effect.catchAllCause((cause) => Effect.as(Effect.zipRight(Effect.logError("websocket admission failed", cause), Effect.sync(() => close(CLOSE_INTERNAL))), false))
      )

    const authenticate = (request: ClientRequest) =>
      Effect.gen(function*() {
        if (request.action !== "authentication_challenge") return send(errorReply(protocol, request.seq, RequestErrors.notAuthenticated))
        const token = (request.data as { token?: unknown } | null)?.token
        const session = typeof token === "string" && token !== ""
          ? yield* sessions.lookup(token).pipe(Effect.orElseSucceed(() => Option.none()))
          : Option.none()
        if (Option.isNone(session)) {
          yield* options.refuse("invalid token in authentication_challenge")
          return close(CLOSE_AUTH_FAILED)
        }
        if (yield* admit({ userId: session.value.user_id, sessionId: session.value.id })) send(okReply(protocol, request.seq))
      })

    const handle = (frame: string | Uint8Array) =>
      Effect.gen(function*() {
        const parsed = typeof frame === "string" ? parse(frame) : { error: RequestErrors.badJson, seq: UNKNOWN_SEQ }
        if ("error" in parsed) return send(errorReply(protocol, parsed.seq, parsed.error))
        const { request } = parsed
        if (admitted === undefined) return yield* authenticate(request)
        const result = yield* handleAction(admitted.connection, request).pipe(Effect.either)
        if (result._tag === "Left") {
          if (!isRequestError(result.left)) yield* Effect.logError("websocket request failed", result.left)
          return send(errorReply(protocol, request.seq, isRequestError(result.left) ? result.left : RequestErrors.internal))
        }
        if (result.right !== NoReply) send(okReply(protocol, request.seq, result.right))
      }).pipe(
        Effect.catchAllCause((cause) =>
          Effect.zipRight(
            Effect.logError("websocket request failed", cause),
            Effect.sync(() => {
              const failure = cause._tag === "Fail" && isRequestError(cause.error) ? cause.error : RequestErrors.internal
              send(errorReply(protocol, UNKNOWN_SEQ, failure))
            })
          ))
      )

    if (options.auth !== undefined) yield* admit(options.auth)
    const deadline = (yield* Clock.currentTimeMillis) + AUTH_DEADLINE_MS
    while (true) {
      let next: Inbound
      if (admitted !== undefined || closing) {
        next = yield* Queue.take(inbox)
      } else {
        const remaining = deadline - (yield* Clock.currentTimeMillis)
        const taken = yield* Queue.take(inbox).pipe(Effect.timeout(Math.max(0, remaining)), Effect.option)
        if (Option.isNone(taken)) {
          yield* options.refuse(`no authentication within ${AUTH_DEADLINE_MS / 1000} seconds`)
          close(CLOSE_AUTH_TIMEOUT)
          continue
        }
        next = taken.value
      }
      if (next === CLOSED) return
      if (!closing) yield* handle(next)
    }
  }).pipe(
    Effect.ensuring(Effect.suspend(() => {
      // Still open here means the fiber was interrupted: the node is shutting down.
      if (ws.readyState === 0 || ws.readyState === 1) ws.close(CLOSE_SHUTDOWN.code, CLOSE_SHUTDOWN.reason)
      if (admitted === undefined) return Effect.void
      const done = admitted
      return Effect.flatMap(Hub, (hub) => hub.socketClosed(done, ws)).pipe(Effect.timeout("5 seconds"), Effect.ignore)
    }))
  )
}

import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Clock, Context, Effect, Layer, Option, Runtime, Schema } from "effect"
import type { Cache } from "../../layers/Cache.ts"
import { type UpgradeRequest, WebSockets } from "../../layers/WebSocket.ts"
import { Sessions } from "../auth/Sessions.ts"
import { AppConfig } from "../Config.ts"
import { sessionRequired } from "../http/ApiError.ts"
import { edge } from "../http/Edge.ts"
import { clientIp } from "../ratelimit/ClientIp.ts"
import * as RateLimit from "../ratelimit/RateLimit.ts"
import type { ProtocolName } from "./Frames.ts"
import { Hub } from "./Hub.ts"
import type { SocketAuth, SocketOwner } from "./Socket.ts"
import { refusal, type Run, type SessionServices, SocketSession } from "./SocketSession.ts"
import { hasQueryToken, requireHandshake, socketOptions, upgradeToken } from "./Upgrade.ts"
import { Id } from "../../schemas/Params.ts"

/**
 * The two sockets, taken at the HTTP server's 'upgrade' event instead of through an Effect route: a route keeps its
 * fiber, request and scope alive for the socket's whole life (about 50 KB a socket). The checks before the upgrade
 * still run once through the edge, so rate limits and refusals are the same HTTP responses as any route's; after it,
 * each socket is a SocketSession. /api/v4/websocket (mattermost-compat.md section 8) authenticates on upgrade or by
 * challenge; /api/v1/ws (docs/websocket.md) only on upgrade. Neither ever accepts a token from the URL query.
 * The WebSocket layer (layers/WebSocket.ts) carries out what is decided here: the refusal, or the handshake.
 */
export interface SocketServerService {
  /** Takes an 'upgrade' request for a socket path (true); anything else is left to the HTTP app (false). */
  readonly upgrade: (request: UpgradeRequest) => boolean
  /** Stops taking sockets and closes the open ones (1001), recording their departures. */
  readonly shutdown: Effect.Effect<void>
}

export class SocketServer extends Context.Tag("service/SocketServer")<SocketServer, SocketServerService>() {}

/** The router ignored one trailing slash, so `/api/v4/websocket/` is served too. */
const PATHS = new Map<string, ProtocolName>([
  ["/api/v4/websocket", "v4"],
  ["/api/v4/websocket/", "v4"],
  ["/api/v1/ws", "native"],
  ["/api/v1/ws/", "native"]
])

/** The socket an upgrade request asks for, or undefined when it is not for one of the two socket paths. */
export const socketTarget = (method: string | undefined, rawUrl: string | undefined): { readonly protocol: ProtocolName; readonly url: URL } | undefined => {
  if (method !== "GET" || rawUrl === undefined) return undefined
  let url: URL
  try {
    url = new URL(rawUrl, "http://localhost")
  } catch {
    return undefined
  }
  const protocol = PATHS.get(url.pathname)
  return protocol === undefined ? undefined : { protocol, url }
}

const ResumeQuery = Schema.Struct({
  connection_id: Id,
  sequence_number: Schema.NumberFromString.pipe(Schema.int(), Schema.nonNegative())
})
const decodeResume = Schema.decodeUnknownOption(ResumeQuery)

const resumeOf = (url: URL) =>
  Option.map(
    decodeResume({ connection_id: url.searchParams.get("connection_id") ?? "", sequence_number: url.searchParams.get("sequence_number") ?? "" }),
    (q) => ({ connectionId: q.connection_id, sequence: q.sequence_number })
  )

interface Admission {
  readonly auth: SocketAuth | undefined
  readonly resume: ReturnType<typeof resumeOf>
  readonly clientIp: string
}

/** Everything decided before the upgrade: rate limit, handshake, token. Fails with the refusal to send instead. */
const admission = (request: HttpServerRequest.HttpServerRequest, protocol: ProtocolName) =>
  Effect.gen(function*() {
    yield* RateLimit.enforce("ws")
    yield* requireHandshake(request)
    const config = yield* AppConfig
    const url = new URL(request.url, "http://localhost")
    const ip = yield* clientIp
    const refuse = (reason: string) => refusal(reason, ip, url.pathname)
    if (hasQueryToken(url)) yield* refuse("token in the URL query ignored")
    const found = upgradeToken(request, config, { cookie: protocol === "v4" })
    let auth: SocketAuth | undefined
    if (Option.isSome(found)) {
      const session = yield* (yield* Sessions).lookup(found.value.token)
      if (Option.isSome(session)) auth = { userId: session.value.user_id, sessionId: session.value.id, sessionExpiresAt: session.value.expires_at }
      else yield* refuse(`invalid token in ${found.value.via}`)
    }
    // The native socket has no challenge: no valid token, no socket.
    if (protocol === "native" && auth === undefined) {
      if (Option.isNone(found)) yield* refuse("no token")
      return yield* Effect.fail(sessionRequired())
    }
    return { auth, resume: resumeOf(url), clientIp: ip } satisfies Admission
  })

/** The refusal's status, headers and body, written on the raw connection (the way platform-node answers one). */
const writeRefusal = (upgrade: UpgradeRequest, response: HttpServerResponse.HttpServerResponse) => {
  const body = response.body
  upgrade.refuse(
    response.status,
    response.headers,
    body._tag === "Uint8Array" || (body._tag === "Raw" && typeof body.body === "string") ? body.body as Uint8Array | string : undefined
  )
}

const requestOf = (upgrade: UpgradeRequest, url: URL) =>
  HttpServerRequest.fromWeb(new Request(url, { method: "GET", headers: upgrade.headers() }))
    .modify({ remoteAddress: upgrade.remoteAddress })

export const make = Effect.gen(function*() {
  const runtime = yield* Effect.runtime<SessionServices | AppConfig | Cache>()
  const runFork = Runtime.runFork(runtime)
  const run: Run = runFork
  const acceptor = (yield* WebSockets).acceptor(socketOptions)
  const config = yield* AppConfig
  const clock = yield* Effect.clock
  const rate = { perSecond: config.wsActionsPerSecond, burst: config.wsActionsBurst, now: () => clock.unsafeCurrentTimeMillis() }
  const sessions = new Set<SocketSession>()
  let accepting = true
  const onClosed = (session: SocketSession) => void sessions.delete(session)

  const open = (upgrade: UpgradeRequest, protocol: ProtocolName, admitted: Admission) => {
    if (!accepting) return upgrade.destroy()
    acceptor.accept<SocketOwner>(upgrade, (ws) => {
      const session = new SocketSession(ws, run, { protocol, resume: admitted.resume, clientIp: admitted.clientIp, onClosed, rate })
      sessions.add(session)
      session.start(admitted.auth)
    })
  }

  const upgrade = (upgrade: UpgradeRequest) => {
    const target = socketTarget(upgrade.method, upgrade.url)
    if (target === undefined) return false
    const { protocol, url } = target
    if (!accepting) {
      upgrade.destroy()
      return true
    }
    let request: HttpServerRequest.HttpServerRequest
    try {
      request = requestOf(upgrade, url)
    } catch {
      // Headers a web Request rejects (invalid characters): not a handshake any client could complete.
      upgrade.destroy()
      return true
    }
    // The edge renders a refusal like any route's; an admitted socket is carried past it in `admitted`.
    let admitted: Admission | undefined
    const check = Effect.map(admission(request, protocol), (a) => {
      admitted = a
      return HttpServerResponse.empty({ status: 101 })
    })
    runFork(edge(check).pipe(Effect.provideService(HttpServerRequest.HttpServerRequest, request))).addObserver((exit) => {
      if (exit._tag === "Failure") return upgrade.destroy()
      if (admitted !== undefined) return open(upgrade, protocol, admitted)
      writeRefusal(upgrade, exit.value)
    })
    return true
  }

  // Sockets close with 1001 and record their departure; their connections then wait (bounded) for their clients to
  // resume on other nodes, which take the replay buffers over: a rolling restart costs clients no resync. Once only:
  // the drain runs it, then the layers' finalizers, and a second wait for the same clients would only add time.
  const shutdown = yield* Effect.cached(Effect.gen(function*() {
    accepting = false
    const since = yield* Clock.currentTimeMillis
    yield* Effect.forEach([...sessions], (session) => session.shutdown(), { concurrency: "unbounded", discard: true })
    yield* (yield* Hub).handOver(since)
  }).pipe(Effect.provide(runtime)))

  yield* Effect.addFinalizer(() => shutdown)
  return { upgrade, shutdown } satisfies SocketServerService
})

export const layer = Layer.scoped(SocketServer, make)

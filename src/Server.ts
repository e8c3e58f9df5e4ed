import { HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Context, Effect, Layer } from "effect"
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import type { Socket } from "node:net"
import type { Duplex } from "node:stream"
import * as HttpListener from "../layers/HttpListener.ts"
import { trackInFlight } from "../layers/Metrics.ts"
import * as WebSocketLayer from "../layers/WebSocket.ts"
import { type WorkerRole, workerRole } from "./cli/WorkerRole.ts"
import * as Composition from "./Composition.ts"
import { AppConfig, type ResolvedConfig } from "./Config.ts"
import { Draining } from "./health/Draining.ts"
import { edge } from "./http/Edge.ts"
import * as FastPath from "./http/FastPath.ts"
import { clientAddress, limitKey, normalize, trustedProxiesOf } from "./ratelimit/ClientIp.ts"
import { handOff, receiveSockets } from "../layers/SocketHandoff.ts"
import { SocketServer, type SocketServerService, socketTarget } from "./realtime/SocketServer.ts"
import { routes } from "./Routes.ts"

/** The HTTP server over the layer graph of Composition.ts: the listener, its upgrades and its shutdown. */
export type { CapabilityOverrides } from "./Composition.ts"

/** After `close`, requests still running this long are cut: a hung keep-alive request cannot hold a shutdown. */
export const REQUEST_GRACE_MS = 10_000

/**
 * The connection cap's refusal, written before the request's path is read: Mattermost's error fields and the native
 * `error` object in one body, as the rate limits' 429 has them.
 */
const CAP_MESSAGE = "Too many open connections from this address."
const tooManyConnections = JSON.stringify({
  error: { code: "TOO_MANY_CONNECTIONS", message: CAP_MESSAGE, retry_after: 10 },
  id: "api.context.too_many_connections.app_error",
  message: CAP_MESSAGE,
  detailed_error: "",
  request_id: "",
  status_code: 429
})

const listenerOf = (config: ResolvedConfig, draining: () => boolean) => {
  const isTrusted = trustedProxiesOf(config.trustedProxies)
  return HttpListener.makeListener({
    headersTimeoutMs: config.httpHeadersTimeoutMs,
    requestTimeoutMs: config.httpRequestTimeoutMs,
    bodyIdleTimeoutMs: config.httpBodyIdleTimeoutMs,
    maxConnectionsPerClient: config.maxConnectionsPerClient,
    clientKey: (peer) => limitKey(normalize(peer)),
    isTrustedProxy: (peer) => isTrusted(normalize(peer)),
    forwardedKey: (request) =>
      limitKey(clientAddress(request.socket.remoteAddress ?? "", request.headers, isTrusted)),
    refusalBody: tooManyConnections,
    draining
  })
}

/**
 * platform-node registers its own 'upgrade' listener, which runs the Effect app and keeps a fiber per open socket
 * (about 50 KB each); another listener cannot stop it, so both would take the socket (Effect-TS/effect#5066). The
 * server therefore decides where each 'upgrade' goes as it is emitted: the realtime socket paths to the SocketServer,
 * everything else to the listeners as usual. Wrapping this one server's `emit` decides before any listener runs and
 * needs no global state (a module-level registry could not tell two servers in one process apart).
 * A client resetting its connection while an upgrade is pending crashes Node on platform-node 0.108 (no error
 * listener on the socket; fixed only in Effect 4), so every upgrading socket gets one.
 * The listener's protections (layers/HttpListener.ts: timeouts, the connection cap, `Connection: close` while
 * draining) see every connection, request and upgrade first.
 */
const createGuardedServer = (
  sockets: SocketServerService,
  fast: FastPath.FastPath | undefined,
  listener: HttpListener.Listener,
  role: WorkerRole
) => {
  const server = listener.server
  // Node's close stops listening and closes idle keep-alive connections, then waits for the busy ones to finish.
  const close = server.close
  server.close = function(this: Server, callback?: (err?: Error) => void) {
    setTimeout(() => server.closeAllConnections(), REQUEST_GRACE_MS).unref()
    return Reflect.apply(close, this, [callback]) as Server
  } as Server["close"]
  const emit = server.emit
  server.emit = function(this: Server, event: string | symbol, ...args: Array<unknown>) {
    if (event === "connection" && !listener.connection(args[0] as Socket)) return true
    if (event === "request") {
      trackInFlight(args[1] as ServerResponse)
      if (!listener.request(args[0] as IncomingMessage, args[1] as ServerResponse)) return true
      // The hottest requests are answered before the platform's listener sees them (src/http/FastPath.ts).
      if (fast !== undefined && fast(args[0] as IncomingMessage, args[1] as ServerResponse)) return true
    }
    if (event === "upgrade") {
      const [request, socket, head] = args as [IncomingMessage, Duplex, Buffer]
      socket.on("error", () => {})
      // SERVICE_WORKERS=split: the sockets worker runs the listener's and the socket server's checks on it.
      if (role === "http" && socketTarget(request.method, request.url) !== undefined) {
        handOff(request, socket, head)
        return true
      }
      if (!listener.upgrade(request, socket)) return true
      if (sockets.upgrade(WebSocketLayer.fromNode(request, socket, head))) return true
    }
    return Reflect.apply(emit, this, [event, ...args]) as boolean
  } as Server["emit"]
  return server
}

/** How a stopping node ends its serving, in src/Server.ts's order (see `drain`). */
export interface ListenerControlService {
  /** Stops listening (idle keep-alive connections close) and waits for the requests in flight (at most the grace). */
  readonly stopListening: Effect.Effect<void>
}

export class ListenerControl extends Context.Tag("service/ListenerControl")<ListenerControl, ListenerControlService>() {}

/**
 * The listener, with the socket server's shutdown in a layer on top of it, hence released before it: open sockets
 * close (1001) before `server.close` waits for every connection to end.
 */
export const httpServer = (config: Pick<ResolvedConfig, "port" | "host">) =>
  Layer.unwrapEffect(Effect.gen(function*() {
    const sockets = yield* SocketServer
    const appConfig = yield* AppConfig
    const draining = yield* Draining
    const fast = appConfig.httpFastPath ? yield* FastPath.make : undefined
    const listener = listenerOf(appConfig, draining.active)
    const role = workerRole()
    const server = createGuardedServer(sockets, fast, listener, role)
    const stopListening = Effect.gen(function*() {
      if (server.listening) server.close()
      // The grace timer armed by `close` cuts what is still running, which ends these answers too.
      while (listener.inFlight() > 0) yield* Effect.sleep("20 millis")
    })
    // The sockets worker of SERVICE_WORKERS=split takes its connections from the HTTP worker, not from the port; it
    // listens only on a loopback port of its own, which the platform's server needs and no client is told of.
    const listen = role === "sockets" ? { port: 0, host: "127.0.0.1" } : { port: config.port, host: config.host }
    const received = role === "sockets"
      ? Layer.scopedDiscard(Effect.acquireRelease(Effect.sync(() => receiveSockets(server)), (stop) => Effect.sync(stop)))
      : Layer.empty
    // Receiving before listening: the supervisor forwards sockets once this worker reports it listens.
    return Layer.scopedDiscard(Effect.addFinalizer(() => sockets.shutdown)).pipe(
      Layer.provideMerge(NodeHttpServer.layer(() => server, listen)),
      Layer.provideMerge(received),
      Layer.merge(Layer.succeed(ListenerControl, { stopListening }))
    )
  }))

/**
 * After SIGTERM/SIGINT (the first finalizer to run, while every route is still attached and every service alive):
 * readiness answers 503 and every answer closes its connection for SERVICE_SHUTDOWN_DRAIN_MS, while the node serves
 * as usual, new connections included, so that balancers move away before anything is refused. Then the listener
 * closes and, side by side, the requests in flight finish (cut after REQUEST_GRACE_MS) and the sockets close (1001)
 * and are handed over to other nodes (at most SERVICE_SHUTDOWN_HANDOVER_MS). Only then do the routes detach and the
 * services release. SERVICE_SHUTDOWN_DEADLINE_MS (src/main.ts) bounds the whole stop.
 */
const drain = Effect.gen(function*() {
  const config = yield* AppConfig
  const draining = yield* Draining
  const control = yield* ListenerControl
  const sockets = yield* SocketServer
  return Effect.gen(function*() {
    yield* draining.begin
    if (config.shutdownDrainMs > 0) {
      yield* Effect.logInfo("draining: readiness answers 503, every route still served").pipe(
        Effect.annotateLogs({ drain_ms: config.shutdownDrainMs })
      )
      yield* Effect.sleep(config.shutdownDrainMs)
    }
    yield* Effect.all([control.stopListening, sockets.shutdown], { concurrency: 2, discard: true })
    yield* Effect.logInfo("drained: listener closed, requests finished, sockets handed over")
  })
})

/** The whole service. `server` defaults to a listener on SERVICE_HOST:SERVICE_PORT. */
export const makeServer = (
  config: ResolvedConfig,
  options: { readonly overrides?: Composition.CapabilityOverrides; readonly server?: Layer.Layer<HttpServer.HttpServer | ListenerControl, unknown, SocketServer | FastPath.FastPathContext | Draining> } = {}
) => {
  const ready = Composition.ready(config, options.overrides)
  // The port opens only once everything is ready: Node accepts connections as soon as it listens, and a request that
  // arrives before the handler is attached is never answered.
  const listening = HttpServer.serve(edge(routes)).pipe(Layer.provideMerge(options.server ?? httpServer(config)))
  // Built last, so its finalizer (the drain) runs first, before the routes detach and the background programs stop.
  const draining = Layer.scopedDiscard(Effect.flatMap(drain, (stop) => Effect.addFinalizer(() => stop)))
  // No tracer is exported anywhere, so spans (one per request from the platform, one per SQL statement) would be
  // built and thrown away: turned off, they cost nothing.
  return draining.pipe(
    Layer.provideMerge(Layer.mergeAll(listening, Composition.background)),
    Layer.provideMerge(ready),
    Layer.provide(Layer.setTracerEnabled(false))
  )
}

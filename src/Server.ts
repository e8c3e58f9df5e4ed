import { HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { Duplex } from "node:stream"
import { trackInFlight } from "../layers/Metrics.ts"
import * as WebSocketLayer from "../layers/WebSocket.ts"
import * as Composition from "./Composition.ts"
import { AppConfig, type ResolvedConfig } from "./Config.ts"
import { edge } from "./http/Edge.ts"
import * as FastPath from "./http/FastPath.ts"
import { SocketServer, type SocketServerService } from "./realtime/SocketServer.ts"
import { routes } from "./Routes.ts"

/** The HTTP server over the layer graph of Composition.ts: the listener, its upgrades and its shutdown. */
export type { CapabilityOverrides } from "./Composition.ts"

/** After `close`, requests still running this long are cut: a hung keep-alive request cannot hold a shutdown. */
export const REQUEST_GRACE_MS = 10_000

/**
 * platform-node registers its own 'upgrade' listener, which runs the Effect app and keeps a fiber per open socket
 * (about 50 KB each); another listener cannot stop it, so both would take the socket (Effect-TS/effect#5066). The
 * server therefore decides where each 'upgrade' goes as it is emitted: the realtime socket paths to the SocketServer,
 * everything else to the listeners as usual. Wrapping this one server's `emit` decides before any listener runs and
 * needs no global state (a module-level registry could not tell two servers in one process apart).
 * A client resetting its connection while an upgrade is pending crashes Node on platform-node 0.108 (no error
 * listener on the socket; fixed only in Effect 4), so every upgrading socket gets one.
 */
const createGuardedServer = (sockets: SocketServerService, fast: FastPath.FastPath | undefined) => {
  const server = createServer()
  // Node's close stops listening and closes idle keep-alive connections, then waits for the busy ones to finish.
  const close = server.close
  server.close = function(this: Server, callback?: (err?: Error) => void) {
    setTimeout(() => server.closeAllConnections(), REQUEST_GRACE_MS).unref()
    return Reflect.apply(close, this, [callback]) as Server
  } as Server["close"]
  const emit = server.emit
  server.emit = function(this: Server, event: string | symbol, ...args: Array<unknown>) {
    if (event === "request") {
      trackInFlight(args[1] as ServerResponse)
      // The hottest requests are answered before the platform's listener sees them (src/http/FastPath.ts).
      if (fast !== undefined && fast(args[0] as IncomingMessage, args[1] as ServerResponse)) return true
    }
    if (event === "upgrade") {
      const [request, socket, head] = args as [IncomingMessage, Duplex, Buffer]
      socket.on("error", () => {})
      if (sockets.upgrade(WebSocketLayer.fromNode(request, socket, head))) return true
    }
    return Reflect.apply(emit, this, [event, ...args]) as boolean
  } as Server["emit"]
  return server
}

/**
 * The listener, with the socket server's shutdown in a layer on top of it, hence released before it: open sockets
 * close (1001) before `server.close` waits for every connection to end.
 */
export const httpServer = (config: Pick<ResolvedConfig, "port" | "host">) =>
  Layer.unwrapEffect(Effect.gen(function*() {
    const sockets = yield* SocketServer
    const fast = (yield* AppConfig).httpFastPath ? yield* FastPath.make : undefined
    return Layer.scopedDiscard(Effect.addFinalizer(() => sockets.shutdown)).pipe(
      Layer.provideMerge(NodeHttpServer.layer(() => createGuardedServer(sockets, fast), { port: config.port, host: config.host }))
    )
  }))

/** The whole service. `server` defaults to a listener on SERVICE_HOST:SERVICE_PORT. */
export const makeServer = (
  config: ResolvedConfig,
  options: { readonly overrides?: Composition.CapabilityOverrides; readonly server?: Layer.Layer<HttpServer.HttpServer, unknown, SocketServer | FastPath.FastPathContext> } = {}
) => {
  const ready = Composition.ready(config, options.overrides)
  // The port opens only once everything is ready: Node accepts connections as soon as it listens, and a request that
  // arrives before the handler is attached is never answered.
  const listening = HttpServer.serve(edge(routes)).pipe(Layer.provideMerge(options.server ?? httpServer(config)))
  // No tracer is exported anywhere, so spans (one per request from the platform, one per SQL statement) would be
  // built and thrown away: turned off, they cost nothing.
  return Layer.mergeAll(listening, Composition.background).pipe(Layer.provideMerge(ready), Layer.provide(Layer.setTracerEnabled(false)))
}

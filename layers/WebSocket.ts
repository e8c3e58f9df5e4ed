import { Context, Layer } from "effect"
import type { IncomingMessage } from "node:http"
import { ServerResponse } from "node:http"
import type { Socket } from "node:net"
import type { Duplex } from "node:stream"
import { WebSocket, WebSocketServer } from "ws"

/**
 * The WebSocket adapter: `ws` and Node's upgrade machinery behind the few operations realtime uses. The handshake is
 * completed by a `ws` server we configure rather than platform-node's: that one echoes the first offered
 * subprotocol (which may be a token), cannot cap frame sizes and closes without a code on shutdown (effect-notes
 * section 3). Realtime decides whether and how to answer an upgrade (src/realtime/SocketServer.ts); this layer
 * answers it.
 */

/** What a socket's owner (realtime's session) is told. Shared listeners call it: no closure per socket. */
export interface PeerHandler {
  readonly received: (frame: string | Uint8Array) => void
  readonly closed: () => void
}

/** ws's readyState values. */
export const CONNECTING = 0
export const OPEN = 1

/**
 * One open socket. What the node keeps per socket is held as fields (its handler, liveness, whether it is counted):
 * a WeakMap or Map entry keyed by the socket would cost several times the few bytes of a field, for every idle
 * socket.
 */
export interface Peer<H extends PeerHandler = PeerHandler> {
  /** Receives the socket's frames and its close, from when its owner sets it. */
  handler: H | undefined
  /** For the owner's bookkeeping: counted among the node's open sockets. */
  counted: boolean
  /** Whether a pong (or nothing yet) answered the last `heartbeat`. */
  readonly alive: boolean
  readonly readyState: number
  /** Bytes queued and not yet written to the network. */
  readonly bufferedAmount: number
  readonly send: (text: string) => void
  /** One text frame whose payload is `shared` (the same bytes for many sockets) followed by `tail` (ASCII). */
  readonly sendShared: (shared: Buffer, tail: string) => void
  readonly close: (code: number, reason: string) => void
  /** Drops the connection without a closing handshake. */
  readonly terminate: () => void
  /** Marks the socket not alive and pings it: its pong marks it alive again. */
  readonly heartbeat: () => void
}

/** An HTTP upgrade request as the server emitted it, not yet answered. */
export interface UpgradeRequest {
  readonly method: string
  readonly url: string
  readonly remoteAddress: string | undefined
  /** The request headers, repeated ones joined as HTTP allows. */
  readonly headers: () => Record<string, string>
  /** Ends the connection without an answer. */
  readonly destroy: () => void
  /** Answers with a plain HTTP response (the way platform-node answers a refused upgrade) and ends the connection. */
  readonly refuse: (status: number, headers: Readonly<Record<string, string>>, body: Uint8Array | string | undefined) => void
}

export interface WebSocketOptions {
  /** Frames larger than this close the socket (1009). */
  readonly maxPayload: number
  /** The subprotocol to echo among those offered, or false for none. */
  readonly selectProtocol: (offered: ReadonlySet<string>) => string | false
}

export interface Acceptor {
  /** Completes the handshake; `open` gets the socket with its listeners installed and no handler yet. */
  readonly accept: <H extends PeerHandler>(request: UpgradeRequest, open: (peer: Peer<H>) => void) => void
}

export interface WebSocketsService {
  readonly acceptor: (options: WebSocketOptions) => Acceptor
}

export class WebSockets extends Context.Tag("capability/WebSockets")<WebSockets, WebSocketsService>() {}

// ---------------------------------------------------------------------------------------------------------------
// Live: ws on Node's HTTP server.

/** A Buffer sent as a text frame: every frame of both protocols is JSON. */
const TEXT = { binary: false } as const

class LiveSocket extends WebSocket implements Peer {
  handler: PeerHandler | undefined = undefined
  alive = true
  counted = false

  heartbeat() {
    this.alive = false
    this.ping()
  }

  /**
   * One text frame of the shared bytes and the tail, written as `ws` itself writes an unfragmented frame. Only for what `ws` would frame the same way: server frames are unmasked, and with compression off and no Blob
   * the sender never holds frames back (otherwise, and before the socket is open, it falls back to `send`).
   */
  sendShared(shared: Buffer, tail: string) {
    const internals = this as unknown as { _socket: Socket | null; _sender: { _state: number; _queue: Array<unknown> } }
    const socket = internals._socket
    if (this.readyState !== WebSocket.OPEN || socket === null || internals._sender._state !== 0 || internals._sender._queue.length > 0) {
      return this.send(Buffer.concat([shared, Buffer.from(tail, "latin1")]), TEXT)
    }
    const length = shared.length + tail.length
    const headerLength = length < 126 ? 2 : length < 65536 ? 4 : 10
    // One buffer and one write: copying the shared bytes (an event is a few hundred bytes to a few KB; below 4 KB
    // the allocation is a slice of Node's pool) costs less than corking three writes into a writev, whose stream
    // machinery (buffered chunks, clearBuffer, writevGeneric) ran for each of the 15 or so sockets a request's
    // events reach in the load simulation (issue 31).
    const bytes = Buffer.allocUnsafe(headerLength + length)
    bytes[0] = 0x81
    if (headerLength === 2) bytes[1] = length
    else if (headerLength === 4) {
      bytes[1] = 126
      bytes.writeUInt16BE(length, 2)
    } else {
      bytes[1] = 127
      bytes.writeUInt32BE(0, 2)
      bytes.writeUInt32BE(length, 6)
    }
    shared.copy(bytes, headerLength)
    bytes.write(tail, headerLength + shared.length, "latin1")
    socket.write(bytes)
  }
}

// One listener of each kind for every socket rather than closures per socket (about 100 bytes each).
function onMessage(this: WebSocket, data: Buffer, isBinary: boolean) {
  ;(this as LiveSocket).handler?.received(isBinary ? new Uint8Array(data) : data.toString("utf8"))
}
function onClose(this: WebSocket) {
  ;(this as LiveSocket).handler?.closed()
}
function onPong(this: WebSocket) {
  ;(this as LiveSocket).alive = true
}
const ignore = () => {}

/** Node's `IncomingMessage` headers as web `Headers` input (repeated headers joined as HTTP allows). */
const headersOf = (incoming: IncomingMessage): Record<string, string> => {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value
  }
  return headers
}

class NodeUpgrade implements UpgradeRequest {
  constructor(readonly incoming: IncomingMessage, readonly socket: Duplex, readonly head: Buffer) {}
  get method() {
    return this.incoming.method ?? ""
  }
  get url() {
    return this.incoming.url ?? "/"
  }
  get remoteAddress() {
    return this.incoming.socket.remoteAddress
  }
  headers() {
    return headersOf(this.incoming)
  }
  destroy() {
    this.socket.destroy()
  }
  refuse(status: number, headers: Readonly<Record<string, string>>, body: Uint8Array | string | undefined) {
    const out = new ServerResponse(this.incoming)
    out.assignSocket(this.socket as Socket)
    out.on("finish", () => this.socket.end())
    out.writeHead(status, headers)
    out.end(body)
  }
}

/** An 'upgrade' event of Node's HTTP server (request, socket, head) as an UpgradeRequest. */
export const fromNode = (incoming: IncomingMessage, socket: Duplex, head: Buffer): UpgradeRequest => new NodeUpgrade(incoming, socket, head)

const acceptor = (options: WebSocketOptions): Acceptor => {
  const wss = new WebSocketServer({
    noServer: true,
    clientTracking: false,
    WebSocket: LiveSocket,
    perMessageDeflate: false,
    maxPayload: options.maxPayload,
    handleProtocols: options.selectProtocol
  })
  return {
    accept: <H extends PeerHandler>(request: UpgradeRequest, open: (peer: Peer<H>) => void) => {
      if (!(request instanceof NodeUpgrade)) throw new Error("the live WebSocket layer accepts Node upgrade requests only")
      wss.handleUpgrade(request.incoming, request.socket, request.head, (ws) => {
        ws.on("message", onMessage)
        ws.on("close", onClose)
        ws.on("pong", onPong)
        ws.on("error", ignore)
        open(ws as LiveSocket as unknown as Peer<H>)
      })
    }
  }
}

export const layer: Layer.Layer<WebSockets> = Layer.succeed(WebSockets, { acceptor })

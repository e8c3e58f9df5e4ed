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
  /** One text frame whose payload is the shared frame's bytes followed by `seq` and a closing brace. */
  readonly sendShared: (frame: SharedFrame, seq: number) => void
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

const CLOSING_BRACE = 0x7d

/** How many decimal digits a sequence number (a non-negative integer) has. */
const digitsOf = (n: number) => {
  let digits = 1
  while (n >= 10) {
    n = Math.floor(n / 10)
    digits++
  }
  return digits
}

/**
 * One event's text frame for many sockets, which differ only in the sequence number before its closing brace: the
 * payload's bytes (`head`, the same for every socket) with room at the end for the number's digits and the brace.
 * One buffer per digit count is made on first use, and each socket's number is written into it just before the
 * write. A write that the kernel takes at once (as nearly all do) has copied the bytes when `socket.write` returns,
 * so the next socket's number can go into the same buffer; a write that stays queued in the socket (a client
 * falling behind) keeps the buffer, which is then dropped here and never changed again. Before, each socket got its
 * own copy of the frame: at 5,000 sockets that was 4 MB of short-lived buffers per post, and the garbage collector
 * took 7.6% of the fan-out's CPU against 1.5% for a bare `ws` server (bench/fanout.ts, issue 31).
 */
export class SharedFrame {
  private readonly byDigits: Array<Buffer | undefined> = []
  constructor(
    /** The payload up to the sequence number (UTF-8). */
    readonly head: Buffer
  ) {}

  /** The frame for `seq`: the buffer for its digit count, with its digits written in before the closing brace. */
  bytes(seq: number): Buffer {
    const digits = digitsOf(seq)
    const bytes = this.buffer(digits)
    let at = bytes.length - 1
    for (let n = seq, i = 0; i < digits; i++) {
      bytes[--at] = 48 + (n % 10)
      n = Math.floor(n / 10)
    }
    return bytes
  }

  /** The frame buffer for numbers of `digits` digits: the header, the head, then the digits' room and the brace. */
  private buffer(digits: number): Buffer {
    const kept = this.byDigits[digits]
    if (kept !== undefined) return kept
    const length = this.head.length + digits + 1
    const headerLength = length < 126 ? 2 : length < 65536 ? 4 : 10
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
    this.head.copy(bytes, headerLength)
    bytes[bytes.length - 1] = CLOSING_BRACE
    this.byDigits[digits] = bytes
    return bytes
  }

  /** A socket kept the frame written for `seq` (its write was queued): later numbers of its width get a new buffer. */
  retained(seq: number) {
    this.byDigits[digitsOf(seq)] = undefined
  }

  /** The whole payload for `seq`, in a buffer of its own. */
  payload(seq: number): Buffer {
    return Buffer.concat([this.head, Buffer.from(`${seq}}`, "latin1")])
  }
}

class LiveSocket extends WebSocket implements Peer {
  handler: PeerHandler | undefined = undefined
  alive = true
  counted = false

  heartbeat() {
    this.alive = false
    this.ping()
  }

  /**
   * One text frame of the shared frame and `seq`, written as `ws` itself writes an unfragmented frame. Only for what
   * `ws` would frame the same way: server frames are unmasked, and with compression off and no Blob the sender never
   * holds frames back (otherwise, and before the socket is open, it falls back to `send`). One buffer and one write:
   * corking the header, the shared bytes and the number into a writev ran the stream machinery (buffered chunks,
   * clearBuffer, writevGeneric) for each of the 15 or so sockets a request's events reach in the load simulation.
   */
  sendShared(frame: SharedFrame, seq: number) {
    const internals = this as unknown as { _socket: Socket | null; _sender: { _state: number; _queue: Array<unknown> } }
    const socket = internals._socket
    if (this.readyState !== WebSocket.OPEN || socket === null || internals._sender._state !== 0 || internals._sender._queue.length > 0) {
      return this.send(frame.payload(seq), TEXT)
    }
    socket.write(frame.bytes(seq))
    // Written at once, the kernel has the bytes; queued, the socket holds on to this buffer (SharedFrame).
    if (socket.writableLength !== 0) frame.retained(seq)
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

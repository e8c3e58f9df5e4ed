import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { Duplex } from "node:stream"

/**
 * The node:http listener's own protections, before any route runs (src/Server.ts wires them into its emit):
 * - Node's headersTimeout and requestTimeout (the request line and headers, then the whole request, must arrive in
 *   time; Node answers 408 and closes), checked every second instead of Node's 30 s, and a body-idle timeout: a
 *   request body that sends nothing for that long is cut (a slow-loris body otherwise holds a connection for the
 *   whole requestTimeout, and before this for Node's default 300 s);
 * - a cap on open connections per client address, counted as the rate limits count addresses (`clientKey`: loopback
 *   as one client, IPv6 by its /64). A trusted proxy's connections carry many clients, so behind one each request
 *   (and each WebSocket) counts for its forwarded address while it lasts. Over the cap: 429 with `refusalBody`;
 * - while the node drains, every answer closes its connection (`Connection: close`), so keep-alive clients reconnect
 *   through their balancer, which has moved away;
 * - the count of requests whose answer has not ended, which a stop waits for.
 */
export interface ListenerOptions {
  readonly headersTimeoutMs: number
  readonly requestTimeoutMs: number
  readonly bodyIdleTimeoutMs: number
  /** 0: no cap. */
  readonly maxConnectionsPerClient: number
  /** The key a direct peer counts under, from its address. */
  readonly clientKey: (peerAddress: string) => string
  readonly isTrustedProxy: (peerAddress: string) => boolean
  /** The key the client of a request from a trusted proxy counts under (its forwarded address). */
  readonly forwardedKey: (request: IncomingMessage) => string
  /** The JSON body of the 429 refusal. */
  readonly refusalBody: string
  readonly draining: () => boolean
}

export interface Listener {
  readonly server: Server
  /** A new TCP connection: false when it was refused (answered and closing). */
  readonly connection: (socket: Duplex & { readonly remoteAddress?: string }) => boolean
  /** A request: false when it was refused (answered). */
  readonly request: (request: IncomingMessage, response: ServerResponse) => boolean
  /** An upgrade request: false when it was refused (answered and closing). */
  readonly upgrade: (request: IncomingMessage, socket: Duplex) => boolean
  /** Requests whose answer has not ended. */
  readonly inFlight: () => number
}

const RETRY_AFTER_SECONDS = 10
/** How long a refused connection may linger for its client to read the answer. */
const REFUSED_LINGER_MS = 2_000
const TIMED_OUT = "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"

const hasBody = (request: IncomingMessage) => {
  const length = request.headers["content-length"]
  return request.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0")
}

export const makeListener = (options: ListenerOptions): Listener => {
  const server = createServer({
    headersTimeout: options.headersTimeoutMs,
    requestTimeout: options.requestTimeoutMs,
    connectionsCheckingInterval: Math.min(1_000, options.headersTimeoutMs)
  })
  const refusal = `HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nContent-Length: ${
    Buffer.byteLength(options.refusalBody)
  }\r\nRetry-After: ${RETRY_AFTER_SECONDS}\r\nConnection: close\r\n\r\n${options.refusalBody}`
  const cap = options.maxConnectionsPerClient
  const open = new Map<string, number>()
  let inFlight = 0

  /** Counts one more connection for `key` until `release` is called; false (and nothing counted) over the cap. */
  const take = (key: string) => {
    const n = open.get(key) ?? 0
    if (n >= cap) return false
    open.set(key, n + 1)
    return true
  }
  const release = (key: string) => {
    const n = (open.get(key) ?? 1) - 1
    if (n <= 0) open.delete(key)
    else open.set(key, n)
  }

  /** Answers on the raw connection and reads what the client still sends, so that closing does not reset it first. */
  const refuse = (socket: Duplex) => {
    socket.on("error", () => {})
    socket.end(refusal)
    socket.resume()
    setTimeout(() => socket.destroy(), REFUSED_LINGER_MS).unref()
  }

  const connection: Listener["connection"] = (socket) => {
    const peer = socket.remoteAddress ?? ""
    if (cap === 0 || options.isTrustedProxy(peer)) return true
    const key = options.clientKey(peer)
    if (!take(key)) {
      refuse(socket)
      return false
    }
    socket.once("close", () => release(key))
    return true
  }

  /** Cuts a body that stalls; waiting on a handler that has not read yet (its buffer full) is not the client's fault. */
  const watchBody = (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket
    request.on("timeout", () => {
      if (request.complete) return
      if (request.readableLength >= request.readableHighWaterMark) return void socket.setTimeout(options.bodyIdleTimeoutMs)
      // Answered already (without reading the whole body): nothing more to say on this connection.
      if (response.headersSent) return void socket.destroy()
      socket.write(TIMED_OUT)
      socket.destroySoon()
    })
    socket.setTimeout(options.bodyIdleTimeoutMs)
    // After the answer Node sets the keep-alive timeout on the same timer: leave that one be.
    request.once("end", () => response.writableFinished || socket.setTimeout(0))
  }

  const request: Listener["request"] = (request, response) => {
    inFlight++
    response.once("close", () => inFlight--)
    if (options.draining()) response.shouldKeepAlive = false
    if (!request.complete && hasBody(request)) watchBody(request, response)
    const peer = request.socket.remoteAddress ?? ""
    if (cap === 0 || !options.isTrustedProxy(peer)) return true
    const key = options.forwardedKey(request)
    if (!take(key)) {
      response.writeHead(429, { "content-type": "application/json", "retry-after": String(RETRY_AFTER_SECONDS) })
      response.end(options.refusalBody)
      return false
    }
    response.once("close", () => release(key))
    return true
  }

  const upgrade: Listener["upgrade"] = (request, socket) => {
    const peer = request.socket.remoteAddress ?? ""
    if (cap === 0 || !options.isTrustedProxy(peer)) return true
    const key = options.forwardedKey(request)
    if (!take(key)) {
      refuse(socket)
      return false
    }
    socket.once("close", () => release(key))
    return true
  }

  return { server, connection, request, upgrade, inFlight: () => inFlight }
}

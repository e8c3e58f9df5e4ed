import type { IncomingMessage, Server } from "node:http"
import { Socket } from "node:net"
import type { Duplex } from "node:stream"

/**
 * SERVICE_WORKERS=split (src/cli/WorkerRole.ts): the HTTP worker hands each realtime socket's upgrade request, with
 * the connection itself, to the sockets worker. A connection's file descriptor can only travel over a process's IPC
 * channel to its parent, so it goes HTTP worker → supervisor → sockets worker (src/cli/Cluster.ts forwards it),
 * once per socket. The HTTP worker's parser has already read the request, so its bytes travel beside the handle and
 * the sockets worker feeds them to its own HTTP server as if they had just arrived: its listener's protections, the
 * socket server's admission (rate limit, handshake, token) and the upgrade all run there unchanged.
 *
 * Every hop sends with `keepOpen` and then closes its own copy of the descriptor: without `keepOpen` Node drops the
 * sender's socket object without ever emitting 'close', which leaves the HTTP server counting a connection that is
 * gone, and its `close` (a drain) waiting for it. The client sends nothing between its upgrade request and the 101,
 * so no byte is read by a process that no longer holds the socket.
 */
export const HANDOFF = "service:socket-handoff"

export interface HandoffMessage {
  readonly kind: typeof HANDOFF
  /** The upgrade request as it arrived (request line, headers, and any bytes after them), base64. */
  readonly bytes: string
}

export const isHandoff = (message: unknown): message is HandoffMessage =>
  typeof message === "object" && message !== null && (message as HandoffMessage).kind === HANDOFF &&
  typeof (message as HandoffMessage).bytes === "string"

/**
 * The request as its bytes: Node keeps the headers' raw names and values (as latin1 strings), so this is what the
 * client sent, up to whitespace around values (which HTTP ignores).
 */
const requestBytes = (request: IncomingMessage, head: Buffer) => {
  let text = `${request.method} ${request.url} HTTP/${request.httpVersion}\r\n`
  const raw = request.rawHeaders
  for (let i = 0; i + 1 < raw.length; i += 2) text += `${raw[i]}: ${raw[i + 1]}\r\n`
  return Buffer.concat([Buffer.from(`${text}\r\n`, "latin1"), head])
}

/** In the HTTP worker: hands an upgrade request for a socket path, with its connection, to the sockets worker. */
export const handOff = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
  if (process.send === undefined || !(socket instanceof Socket) || socket.destroyed) return void socket.destroy()
  const message: HandoffMessage = { kind: HANDOFF, bytes: requestBytes(request, head).toString("base64") }
  process.send(message, socket, { keepOpen: true }, () => socket.destroy())
}

/**
 * In the sockets worker: every connection handed over becomes a connection of `server`, which then reads the upgrade
 * request from the bytes that came with it. Returns the listener to remove on shutdown.
 */
export const receiveSockets = (server: Server) => {
  const onMessage = (message: unknown, handle: unknown) => {
    if (!isHandoff(message) || !(handle instanceof Socket)) return
    server.emit("connection", handle)
    // The server's parser reads 'data' events; emitted now, in the tick the socket arrived, these bytes come before
    // anything the connection itself delivers.
    if (!handle.destroyed) handle.emit("data", Buffer.from(message.bytes, "base64"))
  }
  process.on("message", onMessage)
  return () => void process.off("message", onMessage)
}

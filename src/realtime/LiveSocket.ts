import type { Socket } from "node:net"
import { WebSocket } from "ws"
import type { SocketSession } from "./SocketSession.ts"

/**
 * The server side of each socket, with what the node keeps per socket held as fields: the listeners shared by all
 * sockets find their session and liveness here. A WeakMap or Map entry keyed by the socket would cost several times
 * the few bytes of a field, for every idle socket.
 */
export class LiveSocket extends WebSocket {
  /** The session serving this socket, from its start. */
  session: SocketSession | undefined = undefined
  /** Cleared by each heartbeat ping, set by the pong: a socket that stays silent for a whole beat is dropped. */
  alive = true
  /** Counted among the node's open sockets: from its admission until its departure. */
  counted = false

  /**
   * Sends one text frame whose payload is `shared` (the event's bytes, the same for every socket) followed by `tail`
   * (this socket's sequence number and closing brace, ASCII). `ws` sends a message from one buffer only, so each
   * socket would need its own copy of the shared bytes; written here as the frame header, the shared buffer and the
   * tail in one corked write, as `ws` itself writes a frame. Only for what `ws` would frame the same way: server
   * frames are unmasked, and with compression off and no Blob the sender never holds frames back (otherwise, and
   * before the socket is open, it falls back to `send`).
   */
  sendShared(shared: Buffer, tail: string) {
    const internals = this as unknown as { _socket: Socket | null; _sender: { _state: number; _queue: Array<unknown> } }
    const socket = internals._socket
    if (this.readyState !== WebSocket.OPEN || socket === null || internals._sender._state !== 0 || internals._sender._queue.length > 0) {
      return this.send(Buffer.concat([shared, Buffer.from(tail, "latin1")]), TEXT)
    }
    const length = shared.length + tail.length
    const headerLength = length < 126 ? 2 : length < 65536 ? 4 : 10
    // Header and tail share one small allocation.
    const bytes = Buffer.allocUnsafe(headerLength + tail.length)
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
    bytes.write(tail, headerLength, "latin1")
    socket.cork()
    socket.write(bytes.subarray(0, headerLength))
    socket.write(shared)
    socket.write(bytes.subarray(headerLength))
    socket.uncork()
  }
}

/** A Buffer sent as a text frame: every frame of both protocols is JSON. */
const TEXT = { binary: false } as const

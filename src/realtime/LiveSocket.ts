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
}

import type { Peer, PeerHandler } from "../../layers/WebSocket.ts"

/**
 * The types the realtime files share, in a file that imports none of them, so that the hub, the connections, the
 * socket sessions and the actions do not import each other in a circle.
 */
export interface CloseReason {
  readonly code: number
  readonly reason: string
}

/** Who serves a socket (a SocketSession): the hub ends it when its session ends or the node resyncs. */
export interface SocketOwner extends PeerHandler {
  readonly end: (how: CloseReason) => void
}

/** A socket of the WebSocket layer, served by a SocketSession. */
export type LiveSocket = Peer<SocketOwner>

export interface SocketAuth {
  readonly userId: string
  readonly sessionId: string
  readonly sessionExpiresAt: number
}

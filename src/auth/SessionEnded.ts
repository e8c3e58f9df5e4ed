import { Schema } from "effect"

/**
 * A session that ended (logout, password change, revocation, deactivation, expiry) must take its sockets with it
 * on every node. Sessions publishes this event on the cluster event bus once the row is gone; each node's hub closes
 * the sockets the session authenticated and forgets their replay state. It is an internal event: the hub consumes
 * it and never writes it to a socket.
 */
export const SESSION_ENDED_EVENT = "service_session_ended"

export const SessionEndedData = Schema.Struct({ session_ids: Schema.Array(Schema.String) })
export const decodeSessionEnded = Schema.decodeUnknownOption(SessionEndedData)

import { Schema } from "effect"
import type { ReplayEntry } from "./Connection.ts"
import type { EncodedEvent, ProtocolName } from "./Frames.ts"

/**
 * Moving a connection between nodes. The replay buffer lives in memory on the node that holds the connection; a
 * client reconnecting elsewhere makes the new node ask for it on CONTROL_TOPIC. The owner detaches the connection
 * in one step, stores its buffer in Cache under the request id and answers; the new node, which has been collecting
 * the connection's events since before it asked, drops those the owner already numbered and continues the sequence.
 * No answer within HANDOFF_WAIT (the owner died) means the client gets a fresh connection and resyncs.
 */
export const CONTROL_TOPIC = "service:realtime:control"
export const HANDOFF_WAIT = "2 seconds"

export const ControlMessage = Schema.Union(
  Schema.Struct({
    type: Schema.Literal("release"),
    connection_id: Schema.String,
    user_id: Schema.String,
    request_id: Schema.String
  }),
  Schema.Struct({ type: Schema.Literal("released"), request_id: Schema.String })
)
export type ControlMessage = typeof ControlMessage.Type
export const ControlMessageJson = Schema.parseJson(ControlMessage)

export const Handoff = Schema.Struct({
  protocol: Schema.Literal("v4", "native"),
  next_seq: Schema.Number,
  replay: Schema.Array(Schema.Struct({ seq: Schema.Number, at: Schema.Number, prefix: Schema.String }))
})

/**
 * Events published while both nodes were delivering the connection's events are at the end of the owner's buffer
 * and at the start of the new node's pending list, in the same order (the bus delivers in one order to all nodes):
 * the longest such overlap is skipped.
 */
export const findTakeoverOverlap = (replay: ReadonlyArray<ReplayEntry>, pending: ReadonlyArray<EncodedEvent>, protocol: ProtocolName) => {
  const max = Math.min(replay.length, pending.length)
  for (let k = max; k > 0; k--) {
    let matches = true
    for (let i = 0; i < k && matches; i++) {
      matches = replay[replay.length - k + i].prefix === pending[i].prefix(protocol)
    }
    if (matches) return k
  }
  return 0
}

import { Schema } from "effect"
import { SharedFrame } from "../../layers/WebSocket.ts"
import type { Envelope } from "../events/EventBus.ts"

/**
 * Wire frames of both sockets. An event is encoded once per node and protocol as the frame text up to its
 * sequence number (`prefix`); each socket only appends its own number and the closing brace, so fanning one event
 * out to N sockets costs N string concatenations, not N JSON encodings.
 */
export type ProtocolName = "v4" | "native"

/** What a replay slot keeps of an event: one object per event and protocol, shared by every connection it reaches. */
export interface Kept {
  readonly at: number
  readonly prefix: string
}

/** The Mattermost frame (mattermost-compat.md 8.2) or the native one (docs/websocket.md). */
export class EncodedEvent {
  private v4?: string
  private native?: string
  private v4Frame?: SharedFrame
  private nativeFrame?: SharedFrame
  private v4Kept?: Kept
  private nativeKept?: Kept
  constructor(
    readonly envelope: Pick<Envelope, "event" | "data" | "broadcast" | "created_at">,
    /** A backed-up connection may skip it (Connection.ts DROPPABLE). */
    readonly droppable = false
  ) {}

  prefix(protocol: ProtocolName): string {
    if (protocol === "v4") return this.v4 ??= v4Prefix(this.envelope)
    return this.native ??= nativePrefix(this.envelope)
  }

  /**
   * What each connection's replay buffer keeps of the event: one object per protocol, made at the first delivery
   * (every delivery of one dispatch has the same `now`) and shared by every connection after it.
   */
  kept(protocol: ProtocolName, now: number): Kept {
    if (protocol === "v4") return this.v4Kept ??= { at: now, prefix: this.prefix("v4") }
    return this.nativeKept ??= { at: now, prefix: this.prefix("native") }
  }

  /** The prefix as a frame's UTF-8 bytes, made once per event and written to every socket (LiveSocket.sendShared). */
  sharedFrame(protocol: ProtocolName): SharedFrame {
    if (protocol === "v4") return this.v4Frame ??= new SharedFrame(Buffer.from(this.prefix("v4"), "utf8"))
    return this.nativeFrame ??= new SharedFrame(Buffer.from(this.prefix("native"), "utf8"))
  }
}

/**
 * The text as one flat string, for text kept as long as a socket: V8 leaves a concatenation as a rope (32 bytes per
 * join, plus the pieces) and a `slice` as a view that keeps the whole original alive. Exact for any well-formed
 * text, which is all this is used for (ids, keys, JSON, which escapes lone surrogates).
 */
export const flat = (text: string) => Buffer.from(text, "utf8").toString("utf8")

/** A whole frame with seq 0, minus its last two characters (`0}`); the replay buffer keeps every prefix it was sent. */
const withoutSeq = (frame: object) => flat(JSON.stringify(frame).slice(0, -2))

const v4Prefix = (e: EncodedEvent["envelope"]) => {
  const b = e.broadcast
  const broadcast = {
    omit_users: b.omit_users,
    user_id: b.user_id,
    channel_id: b.channel_id,
    team_id: b.team_id,
    connection_id: "",
    omit_connection_id: b.omit_connection_id
  }
  return withoutSeq({ event: e.event, data: e.data, broadcast, seq: 0 })
}

const nativePrefix = (e: EncodedEvent["envelope"]) =>
  withoutSeq({ type: "event", event: e.event, data: e.data, created_at: e.created_at, seq: 0 })

export const frame = (prefix: string, seq: number) => `${prefix}${seq}}`

/** A client request: Mattermost's `{action, seq, data}`; the native socket uses the same fields. */
export const ClientRequest = Schema.Struct({
  action: Schema.String,
  seq: Schema.Number,
  data: Schema.optionalWith(Schema.Unknown, { default: () => null })
})
export type ClientRequest = typeof ClientRequest.Type

export const decodeRequest = Schema.decodeUnknownEither(Schema.parseJson(ClientRequest))

export interface RequestError {
  readonly id: string
  readonly message: string
  readonly status: number
}

/** Replies sit outside the event sequence: Mattermost `{status, seq_reply, data|error}`, native `{type:"reply", ...}`. */
export const okReply = (protocol: ProtocolName, seq: number, data?: unknown) =>
  protocol === "v4"
    ? JSON.stringify(data === undefined ? { status: "OK", seq_reply: seq } : { status: "OK", seq_reply: seq, data })
    : JSON.stringify(data === undefined ? { type: "reply", status: "ok", seq_reply: seq } : { type: "reply", status: "ok", seq_reply: seq, data })

export const errorReply = (protocol: ProtocolName, seq: number, error: RequestError) =>
  protocol === "v4"
    ? JSON.stringify({
      status: "FAIL",
      seq_reply: seq,
      error: { id: error.id, message: error.message, detailed_error: "", request_id: "", status_code: error.status }
    })
    : JSON.stringify({ type: "reply", status: "error", seq_reply: seq, error: { code: error.id, message: error.message } })

export const RequestErrors = {
  badJson: { id: "api.web_socket_router.bad_json.app_error", message: "The frame is not a JSON request.", status: 400 },
  badSeq: { id: "api.web_socket_router.bad_seq.app_error", message: "Invalid sequence for WebSocket message.", status: 400 },
  noAction: { id: "api.web_socket_router.no_action.app_error", message: "No WebSocket action.", status: 400 },
  badAction: { id: "api.web_socket_router.bad_action.app_error", message: "Unknown WebSocket action.", status: 501 },
  notAuthenticated: {
    id: "api.web_socket_router.not_authenticated.app_error",
    message: "WebSocket connection is not authenticated. Please log in and try again.",
    status: 401
  },
  invalidParam: (name: string) => ({
    id: "api.websocket_handler.invalid_param.app_error",
    message: `Invalid ${name} parameter.`,
    status: 400
  }),
  rateLimited: {
    id: "api.web_socket_router.rate_limit_exceeded.app_error",
    message: "Too many WebSocket actions: slow down, or the socket is closed.",
    status: 429
  },
  forbidden: { id: "api.context.permissions.app_error", message: "You do not have the appropriate permissions.", status: 403 },
  internal: { id: "api.web_socket_handler.internal.app_error", message: "The request could not be handled.", status: 500 }
} as const

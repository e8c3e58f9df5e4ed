import { HttpServerRequest } from "@effect/platform"
import { NodeHttpServerRequest, NodeStream } from "@effect/platform-node"
import { Data, Effect } from "effect"

/**
 * The request body for upload handlers that may stop reading early (a refused channel, a file over the limit). The
 * platform's `request.stream` destroys the socket when its reader stops, so the client, still sending, sees a reset
 * instead of the error; this stream leaves the socket alone, and `discardRest` then reads and drops what is left (up
 * to a bound, as Go's server does for Mattermost) so that the error response reaches the client.
 */
export class BodyReadError extends Data.TaggedError("BodyReadError")<{ readonly cause: unknown }> {}

/** Beyond this much unread body the connection is closed rather than drained. */
const DRAIN_LIMIT = 8 * 1024 * 1024

export const stream = Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
  const incoming = NodeHttpServerRequest.toIncomingMessage(request)
  return NodeStream.fromReadable(() => incoming, (cause) => new BodyReadError({ cause }), { closeOnDone: false })
})

export const discardRest = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
  Effect.sync(() => {
    const incoming = NodeHttpServerRequest.toIncomingMessage(request)
    if (incoming.readableEnded || incoming.destroyed) return
    let drained = 0
    incoming.on("data", (chunk: Buffer) => {
      drained += chunk.length
      if (drained > DRAIN_LIMIT) incoming.destroy()
    })
    incoming.resume()
  }))

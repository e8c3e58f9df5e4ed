import { HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Option, Schema } from "effect"
import { Sessions } from "../auth/Sessions.ts"
import { AppConfig } from "../Config.ts"
import { badRequest, sessionRequired } from "../http/ApiError.ts"
import * as RateLimit from "../ratelimit/RateLimit.ts"
import { clientIp } from "../ratelimit/ClientIp.ts"
import { logSecurityEvent, SecurityEvent } from "../security/SecurityEvents.ts"
import type { ProtocolName } from "./Frames.ts"
import { serveSocket, type SocketAuth } from "./SocketSession.ts"
import { completeUpgrade, hasQueryToken, requireHandshake, upgradeToken } from "./Upgrade.ts"

/**
 * The two sockets. /api/v4/websocket (mattermost-compat.md section 8) authenticates on upgrade or by challenge;
 * /api/v1/ws (docs/websocket.md) only on upgrade. Neither ever accepts a token from the URL query.
 */
const ResumeQuery = Schema.Struct({
  connection_id: Schema.String.pipe(Schema.pattern(/^[a-z0-9]{26}$/)),
  sequence_number: Schema.NumberFromString.pipe(Schema.int(), Schema.nonNegative())
})
const decodeResume = Schema.decodeUnknownOption(ResumeQuery)

const resumeOf = (url: URL) =>
  Option.map(
    decodeResume({ connection_id: url.searchParams.get("connection_id") ?? "", sequence_number: url.searchParams.get("sequence_number") ?? "" }),
    (q) => ({ connectionId: q.connection_id, sequence: q.sequence_number })
  )

const socketRoute = (protocol: ProtocolName) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    yield* RateLimit.enforce("ws")
    yield* requireHandshake(request)
    const config = yield* AppConfig
    const url = new URL(request.url, "http://localhost")
    const ip = yield* clientIp
    const refuse = (reason: string) => logSecurityEvent(SecurityEvent.WebSocketAuthFailure, { reason, client_ip: ip, path: url.pathname })
    if (hasQueryToken(url)) yield* refuse("token in the URL query ignored")
    const found = upgradeToken(request, config, { cookie: protocol === "v4" })
    let auth: SocketAuth | undefined
    if (Option.isSome(found)) {
      const session = yield* (yield* Sessions).lookup(found.value.token)
      if (Option.isSome(session)) auth = { userId: session.value.user_id, sessionId: session.value.id }
      else yield* refuse(`invalid token in ${found.value.via}`)
    }
    // The native socket has no challenge: no valid token, no socket.
    if (protocol === "native" && auth === undefined) {
      if (Option.isNone(found)) yield* refuse("no token")
      return yield* Effect.fail(sessionRequired())
    }
    const ws = yield* completeUpgrade(request).pipe(
      Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => badRequest("api.web_socket.connect.upgrade.app_error", "The WebSocket handshake did not complete.") })
    )
    yield* serveSocket({ ws, protocol, auth, resume: resumeOf(url), refuse })
    return HttpServerResponse.empty()
  })

/** The router ignores trailing slashes, so this also serves `/api/v4/websocket/`. */
export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v4/websocket", socketRoute("v4")),
  HttpRouter.get("/api/v1/ws", socketRoute("native"))
)

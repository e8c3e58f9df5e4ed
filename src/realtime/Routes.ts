import { HttpRouter } from "@effect/platform"
import { Effect } from "effect"
import { publicRoute } from "../auth/Guards.ts"
import * as RateLimit from "../ratelimit/RateLimit.ts"
import { notHandshake } from "./Upgrade.ts"

/**
 * The socket paths as plain HTTP requests. Handshakes never get here: the HTTP server hands every 'upgrade' for these
 * paths to SocketServer. What does is not a WebSocket handshake, answered 400 (after the same rate limit).
 */
const notASocket = Effect.zipRight(RateLimit.enforce("ws"), Effect.fail(notHandshake()))

/** The router ignores trailing slashes, so this also serves `/api/v4/websocket/`. */
export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v4/websocket", publicRoute(notASocket)),
  HttpRouter.get("/api/v1/ws", publicRoute(notASocket))
)

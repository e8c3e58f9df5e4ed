import type { HttpServerRequest } from "@effect/platform"
import { Effect, Option } from "effect"
import type { WebSocketOptions } from "../../layers/WebSocket.ts"
import { SESSION_COOKIE } from "../auth/Authenticate.ts"
import type { ResolvedConfig } from "../Config.ts"
import { badRequest } from "../http/ApiError.ts"

/**
 * The WebSocket handshake's rules: frame size, which subprotocol is echoed, where a token may come from. The
 * WebSocket layer (layers/WebSocket.ts) completes the handshake with these options.
 */
export const MAX_FRAME_BYTES = 64 * 1024

/** Subprotocol entries that carry a token: `auth.<token>`; the client offers a marker protocol first (docs/websocket.md). */
const TOKEN_PREFIX = "auth."

const offeredProtocols = (header: string | undefined) =>
  (header ?? "").split(",").map((p) => p.trim()).filter((p) => p !== "")

export const socketOptions: WebSocketOptions = {
  maxPayload: MAX_FRAME_BYTES,
  // Never echo a token: select the first offered protocol that is not one.
  selectProtocol: (protocols) => {
    for (const p of protocols) if (!p.startsWith(TOKEN_PREFIX)) return p
    return false
  }
}

/** Where an upgrade request may carry its token; the URL query is never one of them. */
export interface TokenSources {
  readonly cookie: boolean
}

export type UpgradeToken = { readonly token: string; readonly via: "cookie" | "header" | "subprotocol" }

/**
 * A browser's socket may use the session cookie when its page is ours: the Origin is the site URL, an allowed CORS
 * origin, or the very host the request was sent to (gorilla's same-origin check, which Mattermost uses when no CORS
 * origin is configured; a page elsewhere cannot make the browser send our Host with its own Origin).
 */
const originAllowed = (config: ResolvedConfig, origin: string | undefined, host: string | undefined) => {
  if (origin === undefined) return true
  if (config.corsAllowedOrigins.includes(origin)) return true
  try {
    if (host !== undefined && new URL(origin).host.toLowerCase() === host.toLowerCase()) return true
    return new URL(config.siteUrl).origin === origin
  } catch {
    return false
  }
}

/**
 * The token of an upgrade request. The session cookie counts only from our own origin (or from non-browser clients,
 * which send none), so that another site cannot open a socket with a visitor's cookie.
 */
export const upgradeToken = (request: HttpServerRequest.HttpServerRequest, config: ResolvedConfig, sources: TokenSources): Option.Option<UpgradeToken> => {
  if (sources.cookie) {
    const cookie = request.cookies[SESSION_COOKIE]
    if (cookie !== undefined && cookie !== "" && originAllowed(config, request.headers["origin"], request.headers["host"])) {
      return Option.some({ token: cookie, via: "cookie" })
    }
  }
  const header = /^(bearer|token)\s+(\S+)\s*$/i.exec(request.headers["authorization"] ?? "")
  if (header) return Option.some({ token: header[2], via: "header" })
  const offered = offeredProtocols(request.headers["sec-websocket-protocol"]).find((p) => p.startsWith(TOKEN_PREFIX))
  if (offered !== undefined && offered.length > TOKEN_PREFIX.length) {
    return Option.some({ token: offered.slice(TOKEN_PREFIX.length), via: "subprotocol" })
  }
  return Option.none()
}

/** Names of query parameters some clients use for tokens; seen only to log the refusal. */
export const hasQueryToken = (url: URL) => url.searchParams.has("access_token") || url.searchParams.has("token")

const isHandshake = (request: HttpServerRequest.HttpServerRequest) =>
  request.method === "GET" &&
  (request.headers["upgrade"] ?? "").toLowerCase() === "websocket" &&
  /^[+/0-9A-Za-z]{22}==$/.test(request.headers["sec-websocket-key"] ?? "") &&
  ["8", "13"].includes(request.headers["sec-websocket-version"] ?? "")

export const notHandshake = () =>
  badRequest("api.web_socket.connect.upgrade.app_error", "Failed to upgrade the connection to a WebSocket.")

/** Fails with 400 before anything else when the request is not a valid WebSocket handshake. */
export const requireHandshake = (request: HttpServerRequest.HttpServerRequest) =>
  isHandshake(request) ? Effect.void : Effect.fail(notHandshake())

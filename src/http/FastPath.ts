import { Cause, Effect, Either, FiberId, FiberRef, FiberRefs, Option, Runtime } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import { newId } from "../../layers/Crypto.ts"
import { Access } from "../access/Access.ts"
import { callerOf, type Caller, type RawHeaders, required, requiredCallerNow } from "../auth/Authenticate.ts"
import { Sessions } from "../auth/Sessions.ts"
import { AppConfig } from "../Config.ts"
import { EventBus } from "../events/EventBus.ts"
import { createPost, CreatePostBody } from "../posts/CreatePost.ts"
import { ChannelPostsQuery, channelPage } from "../posts/ListRoutes.ts"
import { PostRepo } from "../posts/PostRepo.ts"
import { CreateQuery } from "../posts/PostRoutes.ts"
import { versionIdHeader } from "../system/Version.ts"
import { ThreadRepo } from "../threads/ThreadRepo.ts"
import { ownProfile } from "../users/AccountRoutes.ts"
import { UserRepo } from "../users/UserRepo.ts"
import type { UserRow } from "../users/UserRow.ts"
import { toWire } from "../users/UserWire.ts"
import type { ApiError } from "./ApiError.ts"
import * as Decode from "./Decode.ts"
import { accessLogOf, corsHeaders, recordRequest } from "./Edge.ts"
import { errorAnswer, logFailure, toApiError } from "./ErrorResponse.ts"
import type { Db } from "../../layers/Db.ts"

/**
 * A hand-written dispatch of the three hottest requests in front of the Effect app (issue 10): GET /api/v4/users/me
 * (every app start, focus and reconnect), a channel's posts (every channel switch and scroll) and POST
 * /api/v4/posts. @effect/platform's server, router and edge cost about 150 µs of CPU per request before any route
 * code runs (a fiber per request, the request and response objects, the router's match, the middleware's steps),
 * seven times a bare node:http answer; these requests are recognised on the raw IncomingMessage instead, their
 * caller is decided without running an effect where the session and the user are in this process's memory (see
 * `requiredCallerNow`), their route's effect runs directly on a runtime built once, and the answer is written with
 * one `writeHead` + `end`.
 *
 * The answers are the router's, byte for byte: the same route functions (`ownProfile`, `channelPage`, `createPost`)
 * and decoders, the same authentication (`callerOf`: tokens, sessions, CSRF for cookies, activity), the same error
 * bodies (`errorAnswer`), headers (Content-Type, Content-Length, CORS, X-Request-Id, X-Version-Id, a cleared cookie
 * on a 401) and access line and metrics (`recordRequest`). Anything not recognised exactly (another method, a path
 * the router would normalise, an id that is not one, a body without a length) goes to the Effect app unchanged.
 * test/http/FastPath.test.ts compares both paths on the same database.
 */
export type FastPathContext = Access | AppConfig | Db | EventBus | PostRepo | Sessions | ThreadRepo | UserRepo

/** Answers the request and returns true, or returns false without touching it. */
export type FastPath = (request: IncomingMessage, response: ServerResponse) => boolean

interface Exchange {
  readonly request: IncomingMessage
  readonly response: ServerResponse
  readonly method: string
  readonly path: string
  readonly requestId: string
  readonly started: number
  readonly cors: Record<string, string>
}

const ME = "/api/v4/users/me"
const POSTS = "/api/v4/posts"
const CHANNELS = "/api/v4/channels/"
/** `/api/v4/channels/{26-character id}/posts`, then the end or a query. */
const CHANNEL_POSTS = /^\/api\/v4\/channels\/([a-z0-9]{26})\/posts(?:\?|$)/

/** The path itself, or the path followed by a query; a fragment, encoded characters or dot segments do not occur. */
const isPath = (url: string, path: string) =>
  url.startsWith(path) && (url.length === path.length || url.charCodeAt(path.length) === 63 /* "?" */)

/** Targets `pathOf` (Edge.ts) would hand to URL for normalising: left to the Effect app. */
const UNUSUAL = /[%#\\]|\/\.\.?(?:\/|\?|$)/

const query = (url: string) => {
  const at = url.indexOf("?")
  return at === -1 ? "" : url.slice(at)
}

export const make = Effect.gen(function*() {
  const runtime = yield* Effect.runtime<FastPathContext>()
  const runFork = Runtime.runFork(runtime)
  const config = yield* AppConfig
  const sessions = yield* Sessions
  const users = yield* UserRepo
  // Requests here run outside any effect until the route's own: the time comes from the layer's Clock, read directly.
  const clock = yield* Effect.clock
  const versionId = versionIdHeader()
  const log = accessLogOf(
    FiberRefs.getOrDefault(runtime.fiberRefs, FiberRef.currentMinimumLogLevel),
    FiberRefs.getOrDefault(runtime.fiberRefs, FiberRef.currentLoggers),
    FiberRefs.getOrDefault(runtime.fiberRefs, FiberRef.currentLogAnnotations)
  )

  /** The answer as the edge and the platform write it: the body's headers, then the edge's; head and body in one write. */
  const send = (x: Exchange, status: number, body: unknown, fiberId: FiberId.FiberId, extra?: Record<string, string>) =>
    sendText(x, status, JSON.stringify(body), fiberId, extra)

  const sendText = (x: Exchange, status: number, text: string, fiberId: FiberId.FiberId, extra?: Record<string, string>) => {
    const headers: Record<string, string> = {
      ...extra,
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(text)),
      ...x.cors,
      "x-request-id": x.requestId,
      "x-version-id": versionId
    }
    const logged = recordRequest(log, { method: x.method, path: x.path, status, requestId: x.requestId }, x.started, clock.unsafeCurrentTimeMillis(), fiberId)
    if (logged !== undefined) runFork(logged)
    x.response.writeHead(status, headers)
    x.response.end(text)
  }

  const sendError = (x: Exchange, error: ApiError, fiberId: FiberId.FiberId) => {
    const answer = errorAnswer(error, x.path, x.requestId)
    send(x, answer.status, answer.body, fiberId, answer.headers)
  }

  /** Runs a route's effect; its failure becomes the error answer exactly as in the edge. */
  const run = (x: Exchange, status: number, effect: Effect.Effect<unknown, unknown, FastPathContext>) => {
    const fiber = runFork(effect)
    fiber.addObserver((exit) => {
      if (exit._tag === "Success") return send(x, status, exit.value, fiber.id())
      // Interrupted: the client went away (below); there is nobody to answer, as on the platform's path.
      if (Cause.isInterruptedOnly(exit.cause)) return
      const failure = Option.orElse(Cause.failureOption(exit.cause), () => Cause.dieOption(exit.cause))
      const error = toApiError(Option.getOrUndefined(failure))
      if (error.status >= 500 && error.status !== 501) runFork(logFailure(error, exit.cause))
      sendError(x, error, fiber.id())
    })
    x.response.once("close", () => {
      if (!x.response.writableEnded) fiber.unsafeInterruptAsFork(FiberId.none)
    })
  }

  /** The caller, decided now when it can be, else by `requireCaller`'s effect. */
  const caller = (x: Exchange) =>
    requiredCallerNow(sessions, x.method, x.request.headers as RawHeaders) ??
      Effect.flatMap(callerOf(x.method, x.request.headers as RawHeaders), required)

  const ownBodies = new WeakMap<UserRow, string>()

  /** GET /users/me, answered without any effect when the session and the user are cached here. */
  const me = (x: Exchange) => {
    const now = requiredCallerNow(sessions, x.method, x.request.headers as RawHeaders)
    if (now !== undefined && Either.isRight(now)) {
      const row = users.cachedNow(now.right.userId)
      if (row !== undefined) {
        // The cache hands out the same row object until the user changes, and the answer depends on the row alone.
        let text = ownBodies.get(row)
        if (text === undefined) ownBodies.set(row, text = JSON.stringify(toWire(row, "self")))
        return sendText(x, 200, text, FiberId.unsafeMake())
      }
    }
    if (now !== undefined && Either.isLeft(now)) return sendError(x, now.left, FiberId.unsafeMake())
    run(x, 200, Effect.flatMap(now ?? caller(x), (c) => Effect.flatMap(users.findCached(c.userId), ownProfile)))
  }

  const page = (x: Exchange, channelId: string) =>
    run(
      x,
      200,
      Effect.flatMap(caller(x), (c) =>
        Effect.flatMap(Decode.queryOf(query(x.request.url!), ChannelPostsQuery), (q) => channelPage(c, channelId, q)))
    )

  /** The body is read as the platform reads it (utf-8 text); the effect starts once it is all there. */
  const post = (x: Exchange) => {
    let text = ""
    let failed = false
    x.request.setEncoding("utf8")
    x.request.on("data", (chunk: string) => {
      text += chunk
    })
    x.request.once("error", () => {
      failed = true
    })
    x.request.once("end", () => {
      const body = failed
        ? Effect.fail(Decode.unreadableBody())
        : Effect.succeed(text)
      run(
        x,
        201,
        Effect.flatMap(caller(x), (c: Caller) =>
          Effect.flatMap(Decode.queryOf(query(x.request.url!), CreateQuery), (q) =>
            Effect.flatMap(Effect.flatMap(body, (t) => Decode.bodyText(t, CreatePostBody)), (input) =>
              createPost(c, input, q.set_online !== "false"))))
      )
    })
  }

  const exchange = (request: IncomingMessage, response: ServerResponse, path: string): Exchange => ({
    request,
    response,
    method: request.method!,
    path,
    requestId: newId(),
    started: clock.unsafeCurrentTimeMillis(),
    cors: corsHeaders(config, request.headers["origin"])
  })

  const dispatch: FastPath = (request, response) => {
    const url = request.url
    if (url === undefined || !url.startsWith("/api/v4/") || UNUSUAL.test(url)) return false
    if (request.method === "GET") {
      if (isPath(url, ME)) {
        me(exchange(request, response, ME))
        return true
      }
      if (url.startsWith(CHANNELS)) {
        const match = CHANNEL_POSTS.exec(url)
        if (match === null) return false
        const path = url.slice(0, CHANNELS.length + 26 + "/posts".length)
        page(exchange(request, response, path), match[1])
        return true
      }
      return false
    }
    if (request.method === "POST" && isPath(url, POSTS)) {
      // A body of known length within the JSON limit (longer or chunked ones take the platform's reading and its 413).
      const length = request.headers["content-length"]
      if (length === undefined || !/^\d+$/.test(length) || Number(length) > Decode.JSON_BODY_LIMIT) return false
      post(exchange(request, response, POSTS))
      return true
    }
    return false
  }
  return dispatch
})

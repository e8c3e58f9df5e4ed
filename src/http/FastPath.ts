import { Cause, Effect, Either, type Fiber, FiberId, FiberRef, FiberRefs, Option, Runtime } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import { newId } from "../../layers/Crypto.ts"
import { Access } from "../access/Access.ts"
import { callerOf, type Caller, type RawHeaders, required, requiredCallerNow } from "../auth/Authenticate.ts"
import { Sessions } from "../auth/Sessions.ts"
import { mfaEnforced } from "../auth/MfaEnforcement.ts"
import { RoleStore } from "../system/RoleStore.ts"
import { RuntimeSettings } from "../system/RuntimeSettings.ts"
import { viewedChannel, ViewBody } from "../channels/ChannelMemberRoutes.ts"
import { AppConfig } from "../Config.ts"
import { CountRepo } from "../counts/CountRepo.ts"
import { EventBus } from "../events/EventBus.ts"
import { createPost, CreatePostBody, quickCreatePostBody } from "../posts/CreatePost.ts"
import { cachedPageNow, ChannelPostsQuery, channelPage } from "../posts/ListRoutes.ts"
import { PageCache } from "../posts/PageCache.ts"
import { PostRepo } from "../posts/PostRepo.ts"
import { CreateQuery } from "../posts/PostRoutes.ts"
import { versionIdHeader } from "../system/Version.ts"
import { ExcludeTeamQuery, teamsUnread } from "../teams/TeamMemberRoutes.ts"
import type { TeamUnreads } from "../teams/TeamUnreads.ts"
import type { ChannelViews } from "../channels/ChannelViews.ts"
import { ThreadRepo } from "../threads/ThreadRepo.ts"
import { ownProfile } from "../users/AccountRoutes.ts"
import { UserRepo } from "../users/UserRepo.ts"
import type { UserRow } from "../users/UserRow.ts"
import { toWire } from "../users/UserWire.ts"
import type { ApiError } from "./ApiError.ts"
import * as Decode from "./Decode.ts"
import { jsonText } from "./Respond.ts"
import { accessLogOf, corsHeaders, NO_CORS, recordRequest } from "./Edge.ts"
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
 *
 * Two more of the caller's own requests came later, by the load simulation's mix (bench/load.ts, where they are 44% of
 * the requests): POST /api/v4/channels/members/me/view (every channel switch) and GET /api/v4/users/me/teams/unread
 * (the apps' periodic badge refresh), with `viewedChannel` and `teamsUnread` as their route functions; only the "me"
 * spelling is taken here ("me" always passes the routes' `selfOrAdmin`), an explicit user id goes to the router.
 */
export type FastPathContext = Access | AppConfig | ChannelViews | CountRepo | Db | EventBus | PageCache | PostRepo | RoleStore | RuntimeSettings | Sessions | TeamUnreads | ThreadRepo | UserRepo

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
const VIEW = "/api/v4/channels/members/me/view"
const UNREAD = "/api/v4/users/me/teams/unread"
/** `/api/v4/channels/{26-character id}/posts`, then the end or a query. */
const CHANNEL_POSTS = /^\/api\/v4\/channels\/([a-z0-9]{26})\/posts(?:\?|$)/

/** The path itself, or the path followed by a query; a fragment, encoded characters or dot segments do not occur. */
const isPath = (url: string, path: string) =>
  url.startsWith(path) && (url.length === path.length || url.charCodeAt(path.length) === 63 /* "?" */)

/** Targets `pathOf` (Edge.ts) would hand to URL for normalising: left to the Effect app. */
const UNUSUAL = /[%#\\]|\/\.\.?(?:\/|\?|$)/

/** The response's fiber, for `onClose`: one listener function for all requests rather than a closure per request. */
const FIBER = Symbol("FastPath.fiber")
type Answering = ServerResponse & { [FIBER]?: Fiber.RuntimeFiber<unknown, unknown> }

/** The response closed: unless it was answered, the client went away and its fiber is interrupted. */
function onClose(this: Answering) {
  if (!this.writableEnded) this[FIBER]?.unsafeInterruptAsFork(FiberId.none)
}

/** A body being read (`withBody`), kept on its request for the listeners below, which are shared by all requests. */
const READING = Symbol("FastPath.reading")
interface Reading {
  readonly x: Exchange
  readonly then: (x: Exchange, body: string | undefined) => void
  text: string
  failed: boolean
}
type Reader = IncomingMessage & { [READING]?: Reading }

function onData(this: Reader, chunk: string) {
  this[READING]!.text += chunk
}
function onBodyError(this: Reader) {
  this[READING]!.failed = true
}
function onEnd(this: Reader) {
  const reading = this[READING]!
  reading.then(reading.x, reading.failed ? undefined : reading.text)
}

/**
 * The request body as utf-8 text; `then` gets it (undefined when it could not be read) once it is all there. Every
 * event comes once at most ("error" possibly more, which only sets the flag again), so no `once` wrappers are made.
 */
const withBody = (x: Exchange, then: (x: Exchange, body: string | undefined) => void) => {
  const request = x.request as Reader
  request[READING] = { x, then, text: "", failed: false }
  request.setEncoding("utf8")
  request.on("data", onData)
  request.on("error", onBodyError)
  request.on("end", onEnd)
}

/** A body read by `withBody`, as the effect the route's decoding starts from. */
const bodyOf = (body: string | undefined): Effect.Effect<string, ApiError> =>
  body === undefined ? Effect.fail(Decode.unreadableBody()) : Effect.succeed(body)

const query = (url: string) => {
  const at = url.indexOf("?")
  return at === -1 ? "" : url.slice(at)
}

export const make = Effect.gen(function*() {
  const runtime = yield* Effect.runtime<FastPathContext>()
  const runFork = Runtime.runFork(runtime)
  const config = yield* AppConfig
  const sessions = yield* Sessions
  const roleStore = yield* RoleStore
  const settings = yield* RuntimeSettings
  const users = yield* UserRepo
  const pages = yield* PageCache
  const access = yield* Access
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
    sendText(x, status, jsonText(body), fiberId, extra)

  const sendText = (
    x: Exchange,
    status: number,
    text: string | Uint8Array,
    fiberId: FiberId.FiberId,
    extra?: Record<string, string>,
    length = String(Buffer.byteLength(text))
  ) => {
    // The same headers in the same order; without extra or CORS headers (nearly always) as one literal, no spreads.
    const headers: Record<string, string> = extra === undefined && x.cors === NO_CORS
      ? { "content-type": "application/json", "content-length": length, "x-request-id": x.requestId, "x-version-id": versionId }
      : {
        ...extra,
        "content-type": "application/json",
        "content-length": length,
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
    ;(x.response as Answering)[FIBER] = fiber
    x.response.on("close", onClose)
  }

  /** The caller, decided now when it can be, else by `requireCaller`'s effect. */
  const caller = (x: Exchange) => requiredCallerNow(sessions, roleStore, x.method, x.request.headers as RawHeaders) ?? callerLater(x)

  /** `requireCaller`'s effect, for a caller that could not be decided now. */
  const callerLater = (x: Exchange) => Effect.flatMap(callerOf(x.method, x.request.headers as RawHeaders), required)

  /** The answer's text and its Content-Length per cached row object. */
  const ownBodies = new WeakMap<UserRow, { readonly text: string; readonly length: string }>()

  /** GET /users/me, answered without any effect when the session and the user are cached here. */
  const me = (x: Exchange) => {
    const now = requiredCallerNow(sessions, roleStore, x.method, x.request.headers as RawHeaders)
    if (now !== undefined && Either.isRight(now)) {
      const row = users.cachedNow(now.right.userId)
      if (row !== undefined) {
        // The cache hands out the same row object until the user changes, and the answer depends on the row alone.
        let body = ownBodies.get(row)
        if (body === undefined) {
          const text = JSON.stringify(toWire(row, "self"))
          ownBodies.set(row, body = { text, length: String(Buffer.byteLength(text)) })
        }
        return sendText(x, 200, body.text, FiberId.unsafeMake(), undefined, body.length)
      }
    }
    if (now !== undefined && Either.isLeft(now)) return sendError(x, now.left, FiberId.unsafeMake())
    run(x, 200, Effect.flatMap(now ?? caller(x), (c) => Effect.flatMap(users.findCached(c.userId), ownProfile)))
  }

  /**
   * A channel's page. A shared page current in the page cache, for a caller decided now whose kept access row lets
   * them read, is answered at once, without an effect (ListRoutes.cachedPageNow), as /users/me is from memory; the
   * rest runs `channelPage`.
   */
  const page = (x: Exchange, channelId: string) => {
    const url = x.request.url!
    const now = requiredCallerNow(sessions, roleStore, x.method, x.request.headers as RawHeaders)
    if (now !== undefined && Either.isRight(now)) {
      const q = Decode.rememberedQuery(query(url), ChannelPostsQuery)
      const text = q === undefined ? undefined : cachedPageNow(pages, access, now.right, channelId, q)
      if (text !== undefined) return sendText(x, 200, text, FiberId.unsafeMake(), undefined, String(text.length))
    }
    run(
      x,
      200,
      Effect.flatMap(now ?? callerLater(x), (c: Caller) =>
        Effect.flatMap(Decode.queryOfRemembered(query(url), ChannelPostsQuery), (q) => channelPage(c, channelId, q)))
    )
  }

  /**
   * The body is read as the platform reads it (utf-8 text); the effect starts once it is all there. The common post
   * (the caller decided in memory, no query, a body `quickCreatePostBody` takes) runs `createPost` alone on its fiber
   * (issue 10: a step and a closure less per part, each of which ran per post); anything else takes the same parts
   * as effects, in the router's order (caller, query, body), and answers as before. Without a query (nearly every
   * post), set_online is its default, which decoding the empty query would give.
   */
  const post = (x: Exchange) => withBody(x, posted)

  const posted = (x: Exchange, body: string | undefined) => {
    const url = x.request.url!
    const now = requiredCallerNow(sessions, roleStore, x.method, x.request.headers as RawHeaders)
    if (now !== undefined && Either.isRight(now) && body !== undefined && url.indexOf("?") === -1) {
      const input = Decode.bodyTextNow(body, quickCreatePostBody)
      if (input !== undefined) return run(x, 201, createPost(now.right, input, true))
    }
    const q = query(url)
    const setOnline = q === "" ? Effect.succeed(true) : Effect.map(Decode.queryOf(q, CreateQuery), (d) => d.set_online !== "false")
    run(
      x,
      201,
      Effect.flatMap(now ?? callerLater(x), (c: Caller) =>
        Effect.flatMap(setOnline, (online) =>
          Effect.flatMap(Effect.flatMap(bodyOf(body), (t) => Decode.bodyText(t, CreatePostBody, quickCreatePostBody)), (input) =>
            createPost(c, input, online))))
    )
  }

  /** POST /channels/members/me/view: the caller, then the body, as the router's `viewChannel` takes them. */
  const view = (x: Exchange) => withBody(x, viewed)

  const viewed = (x: Exchange, body: string | undefined) =>
    run(
      x,
      200,
      Effect.flatMap(caller(x), (c: Caller) =>
        Effect.flatMap(Effect.flatMap(bodyOf(body), (t) => Decode.bodyText(t, ViewBody)), (input) => viewedChannel(c.userId, input)))
    )

  /** GET /users/me/teams/unread: the caller, then the query, as the router's `userTeamsUnread` takes them. */
  const unread = (x: Exchange) =>
    run(
      x,
      200,
      Effect.flatMap(caller(x), (c) =>
        Effect.flatMap(Decode.queryOfRemembered(query(x.request.url!), ExcludeTeamQuery), (q) => teamsUnread(c.userId, q)))
    )

  /** A body of known length within the JSON limit (longer or chunked ones take the platform's reading and its 413). */
  const bodyFits = (request: IncomingMessage) => {
    const length = request.headers["content-length"]
    return length !== undefined && /^\d+$/.test(length) && Number(length) <= Decode.JSON_BODY_LIMIT
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
    // While a second factor is enforced, the router's guard decides (MfaEnforcement.ts), which this path does not ask.
    if (mfaEnforced(settings.current())) return false
    if (request.method === "GET") {
      if (isPath(url, ME)) {
        me(exchange(request, response, ME))
        return true
      }
      if (isPath(url, UNREAD)) {
        unread(exchange(request, response, UNREAD))
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
    if (request.method === "POST" && isPath(url, VIEW)) {
      if (!bodyFits(request)) return false
      view(exchange(request, response, VIEW))
      return true
    }
    return false
  }
  return dispatch
})

import { Cause, Context, Data, Duration, Effect, Exit, Layer, Option } from "effect"
import { lookup as dnsLookup } from "node:dns/promises"
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http"
import { Agent as HttpsAgent, request as httpsRequest } from "node:https"
import { isIP, type LookupFunction } from "node:net"
import { type AddressPolicy, makePolicy } from "./outbound/AddressPolicy.ts"
import { type CircuitBreaker, CircuitOpenError, makeCircuitBreaker } from "./Resilience.ts"

/**
 * The one way the service makes HTTP calls on a user's behalf (outgoing webhooks, slash commands, interactive
 * actions, response URLs): anything a user can point at a URL goes through here, so that nobody can make the server
 * reach its own network. Host names are resolved first, every address is checked against the policy, and the
 * connection goes to the checked address (a second resolution could answer differently: DNS rebinding); each
 * redirect is checked the same way. Every call has a timeout, a cap on the answer's size, and a circuit breaker per
 * destination (host and port) so that a dead integration fails fast instead of holding workers (unless the caller
 * keeps its own breaker: `breakerPerDestination`).
 *
 * Calls to destinations the operator configures (identity providers, push services, the admin CLI's health check)
 * use the same code with the operator's policy (`makeOperator`): what the configuration names may be on loopback or
 * the internal network. Libraries that take a fetch function (openid-client) get one over a service (`asFetch`).
 */

export interface OutboundRequest {
  readonly url: string
  readonly method?: "GET" | "HEAD" | "POST" | "PUT"
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: string
  /** The whole call, redirects included; 10 seconds by default. */
  readonly timeout?: Duration.DurationInput
  /** The largest answer body accepted; 1 MiB by default. */
  readonly maxBytes?: number
  /** 5 by default; 0 returns the redirect itself. */
  readonly maxRedirects?: number
  /** How the answer's bytes become `body`: utf8 by default; latin1 keeps every byte (Buffer.from(body, "latin1")). */
  readonly encoding?: "utf8" | "latin1"
}

export interface OutboundResponse {
  readonly status: number
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  /** The URL that answered, after redirects. */
  readonly url: string
}

/** The URL is not an absolute http(s) URL. */
export class OutboundInvalidUrl extends Data.TaggedError("OutboundInvalidUrl")<{ readonly url: string }> {
  override get message() {
    return "the URL must be an absolute http or https URL"
  }
}

/** The destination (or a redirect's) is on the server's own network and not on the allow-list. */
export class OutboundRefused extends Data.TaggedError("OutboundRefused")<{ readonly host: string; readonly address: string }> {
  override get message() {
    return `address forbidden: ${this.host} resolves to ${this.address}, which is internal; add it to SERVICE_ALLOW_INTERNAL_CONNECTIONS to allow it`
  }
}

/** The host could not be resolved or connected to, or the connection broke. */
export class OutboundUnreachable extends Data.TaggedError("OutboundUnreachable")<{ readonly host: string; readonly reason: string }> {
  override get message() {
    return `could not reach ${this.host}: ${this.reason}`
  }
}

export class OutboundTimeout extends Data.TaggedError("OutboundTimeout")<{ readonly host: string; readonly afterMs: number }> {
  override get message() {
    return `${this.host} did not answer within ${this.afterMs} ms`
  }
}

export class OutboundTooLarge extends Data.TaggedError("OutboundTooLarge")<{ readonly host: string; readonly limit: number }> {
  override get message() {
    return `the answer from ${this.host} is larger than ${this.limit} bytes`
  }
}

export class OutboundTooManyRedirects extends Data.TaggedError("OutboundTooManyRedirects")<{ readonly url: string }> {
  override get message() {
    return "too many redirects"
  }
}

export type OutboundError =
  | OutboundInvalidUrl
  | OutboundRefused
  | OutboundUnreachable
  | OutboundTimeout
  | OutboundTooLarge
  | OutboundTooManyRedirects
  | CircuitOpenError

export interface OutboundHttpService {
  readonly request: (request: OutboundRequest) => Effect.Effect<OutboundResponse, OutboundError>
}

export class OutboundHttp extends Context.Tag("service/OutboundHttp")<OutboundHttp, OutboundHttpService>() {}

/** One hop: a request to a URL whose host was already checked, connecting only to `addresses`. */
export interface Hop {
  readonly url: URL
  readonly addresses: ReadonlyArray<string>
  readonly method: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string | undefined
  readonly maxBytes: number
  readonly encoding?: "utf8" | "latin1"
}

export interface RawAnswer {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

/** What differs between the live network and the in-memory one: resolving names and sending one request. */
export interface Transport {
  readonly resolve: (host: string) => Effect.Effect<ReadonlyArray<string>, OutboundUnreachable>
  readonly send: (hop: Hop) => Effect.Effect<RawAnswer, OutboundUnreachable | OutboundTooLarge>
}

export interface OutboundOptions {
  /** SERVICE_ALLOW_INTERNAL_CONNECTIONS: host names, addresses and CIDR ranges that may be reached anyway. */
  readonly allow: ReadonlyArray<string>
  /**
   * False for a client whose caller keeps its own breaker with its own rule of what a failure is (IdP per provider,
   * PushSender per transport): two breakers stacked would let one path's failures fail another's calls fast.
   */
  readonly breakerPerDestination?: boolean
  /** Breakers are kept for this many hosts at most; the least recently used is forgotten past it. */
  readonly maxBreakers?: number
  readonly breakerFailures?: number
  readonly breakerReset?: Duration.DurationInput
}

const DEFAULT_TIMEOUT = Duration.seconds(10)
const DEFAULT_MAX_BYTES = 1024 * 1024
const REDIRECTS = new Set([301, 302, 303, 307, 308])

const parseUrl = (raw: string): URL | undefined => {
  try {
    const url = new URL(raw)
    return url.protocol === "http:" || url.protocol === "https:" ? url : undefined
  } catch {
    return undefined
  }
}

/** The addresses of a URL's host that the policy lets through, or why there are none. */
const checkedAddresses = (transport: Transport, policy: AddressPolicy, url: URL) =>
  Effect.gen(function*() {
    const host = url.hostname.replace(/^\[|\]$/g, "")
    const literal = isIP(host) !== 0
    const addresses = literal ? [host] : yield* transport.resolve(host)
    if (addresses.length === 0) return yield* new OutboundUnreachable({ host, reason: "the name has no address" })
    if (!literal && policy.hostAllowed(host)) return addresses
    // Every address must pass: connecting to "whichever works" would let a name with one public and one internal
    // address reach the internal one.
    const refused = addresses.find((a) => !policy.addressAllowed(a))
    if (refused !== undefined) return yield* new OutboundRefused({ host, address: refused })
    return addresses
  })

/** The service around a transport: checks, redirects, timeouts and breakers are the same for every transport. */
export const make = (transport: Transport, options: OutboundOptions): Effect.Effect<OutboundHttpService> =>
  Effect.sync(() => {
    const policy = makePolicy(options.allow)
    const perDestination = options.breakerPerDestination ?? true
    const maxBreakers = options.maxBreakers ?? 1000
    const breakers = new Map<string, CircuitBreaker>()

    const breakerFor = (host: string) =>
      Effect.gen(function*() {
        const known = breakers.get(host)
        if (known !== undefined) {
          breakers.delete(host)
          breakers.set(host, known)
          return known
        }
        const breaker = yield* makeCircuitBreaker({
          name: `outbound:${host}`,
          maxFailures: options.breakerFailures ?? 5,
          resetAfter: options.breakerReset ?? "30 seconds",
          // Only a destination that does not answer counts: a refusal or a large answer says nothing of its health.
          isFailure: (e) => e instanceof OutboundUnreachable || e instanceof OutboundTimeout
        })
        breakers.set(host, breaker)
        if (breakers.size > maxBreakers) breakers.delete(breakers.keys().next().value!)
        return breaker
      })

    const hop = (url: URL, method: string, headers: Readonly<Record<string, string>>, body: string | undefined, maxBytes: number, deadline: number, encoding: "utf8" | "latin1") =>
      Effect.gen(function*() {
        const addresses = yield* checkedAddresses(transport, policy, url)
        const send = transport.send({ url, addresses, method, headers, body, maxBytes, encoding }).pipe(
          Effect.timeoutFail({
            duration: Duration.millis(Math.max(0, deadline)),
            onTimeout: () => new OutboundTimeout({ host: url.hostname, afterMs: deadline })
          })
        )
        if (!perDestination) return yield* send
        // Host and port: two services on one machine (providers on loopback, say) fail independently.
        const breaker = yield* breakerFor(url.host)
        return yield* breaker.protect(send)
      })

    const request = (req: OutboundRequest): Effect.Effect<OutboundResponse, OutboundError> =>
      Effect.gen(function*() {
        const first = parseUrl(req.url)
        if (first === undefined) return yield* new OutboundInvalidUrl({ url: req.url.slice(0, 200) })
        const timeoutMs = Duration.toMillis(req.timeout ?? DEFAULT_TIMEOUT)
        const maxBytes = req.maxBytes ?? DEFAULT_MAX_BYTES
        const maxRedirects = req.maxRedirects ?? 5
        let url = first
        let method: string = req.method ?? "GET"
        let body = req.body
        let headers = req.headers ?? {}
        const run = Effect.gen(function*() {
          for (let redirects = 0;; redirects++) {
            const answer = yield* hop(url, method, headers, body, maxBytes, timeoutMs, req.encoding ?? "utf8")
            const location = answer.headers["location"]
            if (!REDIRECTS.has(answer.status) || location === undefined || maxRedirects === 0) {
              return { ...answer, url: url.toString() }
            }
            if (redirects >= maxRedirects) return yield* new OutboundTooManyRedirects({ url: first.toString() })
            const next = (() => {
              try {
                return parseUrl(new URL(location, url).toString())
              } catch {
                return undefined
              }
            })()
            if (next === undefined) return yield* new OutboundInvalidUrl({ url: location.slice(0, 200) })
            // As browsers do: 303 (and 301/302 after a POST) continue as GET without the body.
            if (answer.status === 303 || ((answer.status === 301 || answer.status === 302) && method !== "GET")) {
              method = "GET"
              body = undefined
              headers = Object.fromEntries(Object.entries(headers).filter(([k]) => !/^content-/i.test(k)))
            }
            // Credentials meant for one host are not handed to another.
            if (next.host !== url.host) {
              headers = Object.fromEntries(Object.entries(headers).filter(([k]) => !/^(authorization|cookie)$/i.test(k)))
            }
            url = next
          }
        })
        return yield* run.pipe(
          Effect.timeoutFail({
            duration: Duration.millis(timeoutMs),
            onTimeout: () => new OutboundTimeout({ host: url.hostname, afterMs: timeoutMs })
          })
        )
      })

    return { request }
  })

// ---------------------------------------------------------------------------------------------------------------
// Live: DNS and node:http(s), connecting to the checked addresses only.

const lowerHeaders = (message: IncomingMessage): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(message.headers)) {
    if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v
  }
  return out
}

/**
 * Keep-alive agents for the operator's destinations (identity providers, FCM, the push proxy): their addresses are
 * not checked (every one is allowed), so a connection may be reused, and a push then costs no new TCP and TLS
 * handshake. Calls on a user's behalf never reuse one (`agent: false`): each connection goes to an address checked
 * for that very call.
 */
export interface ReusedConnections {
  readonly http: HttpAgent
  readonly https: HttpsAgent
}

export const liveTransport = (
  resolve: (host: string) => Promise<ReadonlyArray<string>> = async (host) =>
    (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address),
  reused?: ReusedConnections
): Transport => ({
  resolve: (host) =>
    Effect.tryPromise({
      try: () => resolve(host),
      catch: (e) => new OutboundUnreachable({ host, reason: (e as NodeJS.ErrnoException).code ?? "name resolution failed" })
    }),
  send: (hop) =>
    Effect.async<RawAnswer, OutboundUnreachable | OutboundTooLarge>((resume) => {
      const host = hop.url.hostname
      // Node calls this instead of resolving again, so the socket goes to an address that was checked.
      const pinned: LookupFunction = (_name, opts, callback) => {
        const all = hop.addresses.map((address) => ({ address, family: isIP(address) }))
        if ((opts as { all?: boolean }).all === true) (callback as (e: null, a: typeof all) => void)(null, all)
        else callback(null, all[0].address, all[0].family)
      }
      const secure = hop.url.protocol === "https:"
      const send = secure ? httpsRequest : httpRequest
      const req = send(hop.url, {
        method: hop.method,
        headers: hop.body === undefined ? hop.headers : { ...hop.headers, "content-length": String(Buffer.byteLength(hop.body)) },
        lookup: pinned,
        agent: reused === undefined ? false : secure ? reused.https : reused.http
      })
      let settled = false
      const finish = (outcome: Effect.Effect<RawAnswer, OutboundUnreachable | OutboundTooLarge>) => {
        if (settled) return
        settled = true
        resume(outcome)
      }
      req.on("error", (e: NodeJS.ErrnoException) => finish(Effect.fail(new OutboundUnreachable({ host, reason: e.code ?? e.message }))))
      req.on("response", (res) => {
        // A HEAD answer's length is that of the body it leaves out.
        const declared = hop.method === "HEAD" ? 0 : Number(res.headers["content-length"] ?? "0")
        if (declared > hop.maxBytes) {
          req.destroy()
          return finish(Effect.fail(new OutboundTooLarge({ host, limit: hop.maxBytes })))
        }
        const chunks: Array<Buffer> = []
        let size = 0
        res.on("data", (chunk: Buffer) => {
          size += chunk.length
          if (size > hop.maxBytes) {
            req.destroy()
            finish(Effect.fail(new OutboundTooLarge({ host, limit: hop.maxBytes })))
          } else chunks.push(chunk)
        })
        res.on("error", (e: NodeJS.ErrnoException) => finish(Effect.fail(new OutboundUnreachable({ host, reason: e.code ?? e.message }))))
        res.on("end", () =>
          finish(Effect.succeed({ status: res.statusCode ?? 0, headers: lowerHeaders(res), body: Buffer.concat(chunks).toString(hop.encoding ?? "utf8") })))
      })
      req.end(hop.body)
      return Effect.sync(() => {
        settled = true
        req.destroy()
      })
    })
})

export const makeLive = (
  options: OutboundOptions & {
    readonly resolve?: (host: string) => Promise<ReadonlyArray<string>>
    readonly reused?: ReusedConnections
  }
) => make(liveTransport(options.resolve, options.reused), options)

/** The live layer; `allow` is SERVICE_ALLOW_INTERNAL_CONNECTIONS. */
export const layer = (allow: ReadonlyArray<string>): Layer.Layer<OutboundHttp> => Layer.effect(OutboundHttp, makeLive({ allow }))

/** Every IPv4 and IPv6 address. */
const EVERYWHERE = ["0.0.0.0/0", "::/0"]

/**
 * For calls to destinations the operator names, never a user: the admin CLI's `health` (the operator's own server,
 * usually on loopback), identity providers and push services (set by a system admin, on loopback in tests and often
 * on the internal network in production). Every address is allowed; timeouts and size cap still apply, and the
 * breaker per destination unless the caller keeps its own (`breakerPerDestination: false`: IdP, PushSender).
 */
export const makeOperator = (options: Omit<OutboundOptions, "allow"> = {}) =>
  makeLive({
    ...options,
    allow: EVERYWHERE,
    // Idle connections are kept (unreferenced, so they never hold a process open) until the other side closes them;
    // at most 50 per destination.
    reused: {
      http: new HttpAgent({ keepAlive: true, maxSockets: 50 }),
      https: new HttpsAgent({ keepAlive: true, maxSockets: 50 })
    }
  })

export const layerOperator: Layer.Layer<OutboundHttp> = Layer.effect(OutboundHttp, makeOperator())

/**
 * The operator's client as a capability of its own, for features that call the operator's own destinations while
 * serving a request (the System Console's site URL test calls SERVICE_SITE_URL, usually on the internal network):
 * the OutboundHttp tag stays the guarded client for everything a user names.
 */
export class OperatorHttp extends Context.Tag("service/OperatorHttp")<OperatorHttp, OutboundHttpService>() {}

export const layerOperatorHttp: Layer.Layer<OperatorHttp> = Layer.effect(OperatorHttp, makeOperator())

// ---------------------------------------------------------------------------------------------------------------
// A fetch function over a service, for libraries that make their own requests (openid-client's customFetch).

/** What such a library passes to fetch. */
export interface FetchInit {
  readonly method?: string
  readonly headers?: HeadersInit
  readonly body?: unknown
  readonly redirect?: string
  readonly signal?: AbortSignal | null
}

const FETCH_METHODS = new Set(["GET", "HEAD", "POST", "PUT"])
/** Statuses whose response has no body, for which `new Response` refuses one. */
const NULL_BODY = new Set([101, 204, 205, 304])

/**
 * `fetch` through `service`: the same checks, timeout, size cap and breaker as any call. Failures reject as fetch's
 * do, so that the library reports them as it would: a timeout as a DOMException named TimeoutError (as an expired
 * AbortSignal.timeout), anything else as a TypeError (fetch's network error). `redirect: "manual"` returns the
 * redirect itself; otherwise redirects are followed (and checked) by the service.
 */
export const asFetch = (service: OutboundHttpService, defaults: { readonly timeout?: Duration.DurationInput; readonly maxBytes?: number } = {}) =>
  async (input: string | URL, init: FetchInit = {}): Promise<Response> => {
    const method = (init.method ?? "GET").toUpperCase()
    if (!FETCH_METHODS.has(method)) throw new TypeError(`fetch: the method ${method} is not supported`)
    const raw = init.body
    const body = raw === undefined || raw === null
      ? undefined
      : typeof raw === "string"
      ? raw
      : raw instanceof URLSearchParams
      ? raw.toString()
      : undefined
    if (body === undefined && raw !== undefined && raw !== null) throw new TypeError("fetch: only string and form bodies are supported")
    const exit = await Effect.runPromiseExit(
      service.request({
        url: input.toString(),
        method: method as OutboundRequest["method"],
        headers: Object.fromEntries(new Headers(init.headers).entries()),
        body,
        timeout: defaults.timeout,
        maxBytes: defaults.maxBytes,
        maxRedirects: init.redirect === "manual" ? 0 : undefined
      }),
      init.signal ? { signal: init.signal } : undefined
    )
    if (init.signal?.aborted) throw init.signal.reason
    if (Exit.isSuccess(exit)) {
      const answer = exit.value
      if (answer.status < 200 || answer.status > 599) throw new TypeError(`fetch: unexpected status ${answer.status}`)
      return new Response(NULL_BODY.has(answer.status) ? null : answer.body, { status: answer.status, headers: answer.headers })
    }
    const error = Cause.failureOption(exit.cause)
    if (Option.isSome(error) && error.value._tag === "OutboundTimeout") throw new DOMException(error.value.message, "TimeoutError")
    throw new TypeError(Option.isSome(error) ? error.value.message : "fetch failed", { cause: Cause.squash(exit.cause) })
  }

// ---------------------------------------------------------------------------------------------------------------
// In memory: names from a table, answers from handlers registered per origin; the same checks apply.

export interface MemoryRequest {
  readonly url: string
  readonly address: string
  readonly method: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string | undefined
}

export type MemoryHandler = (request: MemoryRequest) => Effect.Effect<RawAnswer>

const endpoint = (address: string, port: string) => `${address.replace(/^\[|\]$/g, "")}:${port}`

export const makeMemory = (options: OutboundOptions & { readonly names?: Readonly<Record<string, ReadonlyArray<string>>> }) =>
  Effect.gen(function*() {
    const names = new Map(Object.entries(options.names ?? {}).map(([k, v]) => [k.toLowerCase(), v]))
    const handlers = new Map<string, MemoryHandler>()
    const received: Array<MemoryRequest> = []
    const transport: Transport = {
      resolve: (host) => {
        const found = names.get(host.toLowerCase())
        return found === undefined ? Effect.fail(new OutboundUnreachable({ host, reason: "ENOTFOUND" })) : Effect.succeed(found)
      },
      send: (hop) =>
        Effect.gen(function*() {
          // Like a network: what answers is whatever listens at the address connected to, whatever the name was.
          const port = hop.url.port || (hop.url.protocol === "https:" ? "443" : "80")
          const handler = handlers.get(endpoint(hop.addresses[0], port))
          if (handler === undefined) return yield* new OutboundUnreachable({ host: hop.url.hostname, reason: "ECONNREFUSED" })
          const request = { url: hop.url.toString(), address: hop.addresses[0], method: hop.method, headers: hop.headers, body: hop.body }
          received.push(request)
          const answer = yield* handler(request)
          if (Buffer.byteLength(answer.body) > hop.maxBytes) return yield* new OutboundTooLarge({ host: hop.url.hostname, limit: hop.maxBytes })
          return answer
        })
    }
    const service = yield* make(transport, options)
    return {
      service,
      received,
      /** Answers requests to `origin`'s address and port (such as http://127.0.0.1:4000) with `handler`. */
      serve: (origin: string, handler: MemoryHandler) => {
        const url = new URL(origin)
        handlers.set(endpoint(url.hostname, url.port || (url.protocol === "https:" ? "443" : "80")), handler)
      },
      layer: Layer.succeed(OutboundHttp, service)
    }
  })

import { Clock, type Duration, Effect, Option, SynchronizedRef } from "effect"
import { importPKCS8, SignJWT } from "jose"
import { createHash } from "node:crypto"
import * as http2 from "node:http2"
import { failure, isRetryableStatus, makeGuard, retryAfter } from "./Guard.ts"
import type { ApnsCredentials, PushNotification, PushSendError, SendOutcome } from "./Model.ts"

/**
 * Apple Push Notification service over HTTP/2 (sso-push-notes.md section 5): one long-lived connection per origin,
 * token-based authentication with an ES256 provider JWT that is reused for 40 minutes (Apple wants it renewed no
 * more than once every 20 and no less than once every 60 minutes), VoIP pushes on the `<bundle>.voip` topic.
 *
 * APNs speaks HTTP/2 only, and OutboundHttp (node:http, HTTP/1.1) cannot carry it, so this transport keeps its own
 * node:http2 connections; the guard's timeout, throttle and breaker apply as for the others, and the origin is the
 * operator's (APNs or a configured base URL), never a user's.
 */

const APNS_QUOTA_PER_SECOND = 1000
const PROVIDER_TOKEN_LIFETIME_MS = 40 * 60 * 1000

interface ProviderToken {
  readonly jwt: string
  readonly issuedAt: number
}

/** Topic, push type, priority and expiry for a push: VoIP for calls to PushKit tokens, background for `clear`. */
export const apnsHeaders = (push: PushNotification, bundleId: string, nowSeconds: number) => {
  if (push.kind === "call") {
    return {
      "apns-topic": push.voip ? `${bundleId}.voip` : bundleId,
      "apns-push-type": push.voip ? "voip" : "alert",
      "apns-priority": "10",
      // A ring is worth nothing later: deliver now or drop.
      "apns-expiration": "0"
    }
  }
  if (push.kind === "clear") {
    return { "apns-topic": bundleId, "apns-push-type": "background", "apns-priority": "5", "apns-expiration": "0" }
  }
  return {
    "apns-topic": bundleId,
    "apns-push-type": "alert",
    "apns-priority": push.priority === "high" ? "10" : "5",
    "apns-expiration": String(nowSeconds + 24 * 60 * 60)
  }
}

/** The APNs JSON: `aps` with the alert (or content-available for `clear`), the data keys beside it. */
export const apnsPayload = (push: PushNotification) => {
  const badge = Option.isSome(push.badge) ? { badge: push.badge.value } : {}
  const aps = push.kind === "clear"
    ? { "content-available": 1, ...badge }
    : {
      alert: { title: push.title, body: push.body },
      ...(Option.isSome(push.sound) ? { sound: push.sound.value } : {}),
      ...badge,
      ...(Option.isSome(push.threadId) ? { "thread-id": push.threadId.value } : {}),
      "mutable-content": 1,
      ...(push.kind === "call" ? { "interruption-level": "time-sensitive" } : {})
    }
  return { ...push.data, aps }
}

interface Http2Answer {
  readonly status: number
  readonly headers: http2.IncomingHttpHeaders
  readonly body: string
}

const connectionKey = (credentials: ApnsCredentials) =>
  `${credentials.baseUrl}|${createHash("sha256").update(Option.getOrElse(credentials.ca, () => "")).digest("hex")}`

export const make = (timeout: Duration.DurationInput) => Effect.gen(function*() {
  const guard = yield* makeGuard({ transport: "apns", perSecond: APNS_QUOTA_PER_SECOND, timeout })
  const sessions = new Map<string, http2.ClientHttp2Session>()
  const tokens = yield* SynchronizedRef.make(new Map<string, ProviderToken>())

  yield* Effect.addFinalizer(() =>
    Effect.sync(() => {
      for (const session of sessions.values()) session.close()
      sessions.clear()
    }))

  /** The open connection for these credentials, or a new one; a connection that fails or closes is forgotten. */
  const connection = (credentials: ApnsCredentials) => {
    const key = connectionKey(credentials)
    const open = sessions.get(key)
    if (open !== undefined && !open.closed && !open.destroyed) return open
    const session = http2.connect(credentials.baseUrl, Option.isSome(credentials.ca) ? { ca: credentials.ca.value } : {})
    const forget = () => {
      if (sessions.get(key) === session) sessions.delete(key)
    }
    session.on("error", forget)
    session.on("close", forget)
    session.on("goaway", forget)
    // An idle connection must not keep the process alive.
    session.unref()
    sessions.set(key, session)
    return session
  }

  const providerToken = (credentials: ApnsCredentials, renew: boolean) =>
    SynchronizedRef.modifyEffect(tokens, (cache) =>
      Effect.gen(function*() {
        const key = `${credentials.keyId}|${credentials.teamId}|${createHash("sha256").update(credentials.privateKey).digest("hex")}`
        const now = yield* Clock.currentTimeMillis
        const cached = cache.get(key)
        if (!renew && cached !== undefined && now - cached.issuedAt < PROVIDER_TOKEN_LIFETIME_MS) return [cached.jwt, cache] as const
        const jwt = yield* Effect.tryPromise({
          try: async () =>
            new SignJWT({})
              .setProtectedHeader({ alg: "ES256", kid: credentials.keyId })
              .setIssuer(credentials.teamId)
              .setIssuedAt(Math.floor(now / 1000))
              .sign(await importPKCS8(credentials.privateKey, "ES256")),
          catch: () => failure("apns", "push_ios_private_key is not a valid ES256 (P-256 PKCS#8) key", false)
        })
        return [jwt, new Map(cache).set(key, { jwt, issuedAt: now })] as const
      }))

  const post = (credentials: ApnsCredentials, headers: Record<string, string>, path: string, body: string) =>
    Effect.async<Http2Answer, PushSendError>((resume) => {
      let stream: http2.ClientHttp2Stream
      try {
        stream = connection(credentials).request({ ":method": "POST", ":path": path, "content-type": "application/json", ...headers })
      } catch (cause) {
        resume(Effect.fail(failure("apns", `connection: ${String(cause)}`, true)))
        return
      }
      let status = 0
      let responseHeaders: http2.IncomingHttpHeaders = {}
      const chunks: Array<Buffer> = []
      stream.on("response", (h) => {
        status = Number(h[":status"] ?? 0)
        responseHeaders = h
      })
      stream.on("data", (chunk: Buffer) => chunks.push(chunk))
      stream.on("end", () => resume(Effect.succeed({ status, headers: responseHeaders, body: Buffer.concat(chunks).toString("utf8") })))
      stream.on("error", (cause) => resume(Effect.fail(failure("apns", `stream: ${cause.message}`, true))))
      stream.end(body)
      return Effect.sync(() => stream.close(http2.constants.NGHTTP2_CANCEL))
    })

  const attempt = (credentials: ApnsCredentials, push: PushNotification, renew: boolean): Effect.Effect<SendOutcome, PushSendError> =>
    Effect.gen(function*() {
      const jwt = yield* providerToken(credentials, renew)
      const now = yield* Clock.currentTimeMillis
      const headers = { authorization: `bearer ${jwt}`, ...apnsHeaders(push, credentials.bundleId, Math.floor(now / 1000)) }
      const answer = yield* post(credentials, headers, `/3/device/${encodeURIComponent(push.token)}`, JSON.stringify(apnsPayload(push)))
      if (answer.status === 200) return { _tag: "Sent" } as const
      let reason = ""
      try {
        reason = String((JSON.parse(answer.body) as { reason?: unknown }).reason ?? "")
      } catch {
        reason = answer.body
      }
      if (answer.status === 410 || reason === "BadDeviceToken" || reason === "DeviceTokenNotForTopic" || reason === "Unregistered") {
        return { _tag: "InvalidToken", reason: reason || String(answer.status) } as const
      }
      if (answer.status === 403 && reason === "ExpiredProviderToken" && !renew) return yield* attempt(credentials, push, true)
      const after = yield* retryAfter(answer.headers["retry-after"] as string | undefined)
      return yield* Effect.fail(failure("apns", `${answer.status} ${reason}`, isRetryableStatus(answer.status), after))
    })

  return { send: (credentials: ApnsCredentials, push: PushNotification) => guard(attempt(credentials, push, false)) }
})

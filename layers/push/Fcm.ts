import { Clock, type Duration, Effect, Option, SynchronizedRef } from "effect"
import { importPKCS8, SignJWT } from "jose"
import type { OutboundHttpService } from "../OutboundHttp.ts"
import { failure, makeGuard, refuse, request } from "./Guard.ts"
import type { FcmCredentials, PushNotification, PushSendError, SendOutcome, ServiceAccount } from "./Model.ts"

/**
 * Firebase Cloud Messaging HTTP v1 (sso-push-notes.md section 5). The access token is either the configured one
 * (refreshed by hand, as the spec has it) or minted from a service-account key with an RS256 JWT grant and renewed a
 * minute before it expires.
 */

/** The spec's Android limit: 500 messages per second per project. */
const FCM_QUOTA_PER_SECOND = 500
const SCOPE = "https://www.googleapis.com/auth/firebase.messaging"
const RENEW_BEFORE_EXPIRY_MS = 60_000
const GRANT_LIFETIME_S = 3600

interface MintedToken {
  readonly token: string
  readonly expiresAt: number
}

/** The FCM v1 message: a notification the system shows on the kind's channel, or data only for `clear`. */
export const toFcmMessage = (push: PushNotification) => {
  const shown = push.kind !== "clear"
  const androidNotification = {
    ...(Option.isSome(push.androidChannel) ? { channel_id: push.androidChannel.value } : {}),
    ...(Option.isSome(push.sound) ? { sound: push.sound.value } : {}),
    ...(Option.isSome(push.threadId) ? { tag: push.threadId.value } : {}),
    ...(Option.isSome(push.badge) ? { notification_count: push.badge.value } : {})
  }
  return {
    message: {
      token: push.token,
      data: push.data,
      ...(shown ? { notification: { title: push.title, body: push.body } } : {}),
      android: {
        priority: push.priority === "high" ? "HIGH" : "NORMAL",
        ttl: push.kind === "call" ? "30s" : "86400s",
        ...(shown ? { notification: androidNotification } : {})
      }
    }
  }
}

interface FcmErrorBody {
  readonly error?: {
    readonly status?: string
    readonly message?: string
    readonly details?: ReadonlyArray<{ readonly errorCode?: string }>
  }
}

const errorCode = (body: unknown) => {
  const error = (body as FcmErrorBody | null)?.error
  const detail = error?.details?.find((d) => typeof d.errorCode === "string")?.errorCode
  return { code: detail ?? error?.status ?? "", message: error?.message ?? "" }
}

export const make = (timeout: Duration.DurationInput, http: OutboundHttpService) => Effect.gen(function*() {
  const guard = yield* makeGuard({ transport: "fcm", perSecond: FCM_QUOTA_PER_SECOND, timeout })
  const minted = yield* SynchronizedRef.make(new Map<string, MintedToken>())

  const mint = (account: ServiceAccount) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const iat = Math.floor(now / 1000)
      const assertion = yield* Effect.tryPromise({
        try: async () =>
          new SignJWT({ scope: SCOPE })
            .setProtectedHeader({ alg: "RS256", typ: "JWT" })
            .setIssuer(account.client_email)
            .setAudience(account.token_uri)
            .setIssuedAt(iat)
            .setExpirationTime(iat + GRANT_LIFETIME_S)
            .sign(await importPKCS8(account.private_key, "RS256")),
        catch: () => failure("fcm", "the service-account private key is not a valid RS256 PKCS#8 key", false)
      })
      const answer = yield* request(http, "fcm", account.token_uri, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion }).toString()
      }, timeout)
      if (answer.status !== 200) return yield* refuse("fcm", answer, "from the OAuth token endpoint")
      const body = answer.body as { access_token?: unknown; expires_in?: unknown } | null
      if (typeof body?.access_token !== "string") return yield* Effect.fail(failure("fcm", "the token endpoint returned no access_token", true))
      const lifetime = typeof body.expires_in === "number" ? body.expires_in : GRANT_LIFETIME_S
      return { token: body.access_token, expiresAt: now + lifetime * 1000 }
    })

  /** The bearer token: a cached minted one while it has more than a minute left, else a fresh one. */
  const accessToken = (credentials: FcmCredentials, renew: boolean) =>
    Option.match(credentials.serviceAccount, {
      onNone: () =>
        Option.match(credentials.accessToken, {
          onNone: () => Effect.fail(failure("fcm", "no access token or service-account key configured", false)),
          onSome: Effect.succeed
        }),
      onSome: (account) =>
        SynchronizedRef.modifyEffect(minted, (cache) =>
          Effect.gen(function*() {
            const key = `${account.client_email}|${account.token_uri}`
            const now = yield* Clock.currentTimeMillis
            const cached = cache.get(key)
            if (!renew && cached !== undefined && cached.expiresAt - now > RENEW_BEFORE_EXPIRY_MS) return [cached.token, cache] as const
            const fresh = yield* mint(account)
            return [fresh.token, new Map(cache).set(key, fresh)] as const
          }))
    })

  const attempt = (credentials: FcmCredentials, push: PushNotification, renew: boolean): Effect.Effect<SendOutcome, PushSendError> =>
    Effect.gen(function*() {
      const token = yield* accessToken(credentials, renew)
      const url = `${credentials.baseUrl.replace(/\/+$/, "")}/v1/projects/${encodeURIComponent(credentials.projectId)}/messages:send`
      const answer = yield* request(http, "fcm", url, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify(toFcmMessage(push))
      }, timeout)
      if (answer.status === 200) return { _tag: "Sent" } as const
      const { code, message } = errorCode(answer.body)
      if (code === "UNREGISTERED" || code === "SENDER_ID_MISMATCH") return { _tag: "InvalidToken", reason: code } as const
      if (code === "INVALID_ARGUMENT" && /registration token/i.test(message)) return { _tag: "InvalidToken", reason: message } as const
      if (answer.status === 401 && !renew && Option.isSome(credentials.serviceAccount)) return yield* attempt(credentials, push, true)
      return yield* refuse("fcm", answer, code || message || "from FCM")
    })

  return { send: (credentials: FcmCredentials, push: PushNotification) => guard(attempt(credentials, push, false)) }
})

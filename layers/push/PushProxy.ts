import { type Duration, Effect, Option } from "effect"
import type { OutboundHttpService } from "../OutboundHttp.ts"
import { failure, makeGuard, refuse, request } from "./Guard.ts"
import type { ProxyCredentials, PushNotification, SendOutcome } from "./Model.ts"

/**
 * The Mattermost push-proxy protocol (mattermost-compat.md 11.3): `POST {proxy}/api/v1/send_push` with the server's
 * push model; the proxy answers `{"status":"OK"}`, `{"status":"FAIL","error":...}` or `{"status":"REMOVE"}` (the
 * token is dead). The store-built Mattermost apps are only reachable this way.
 */

const PROXY_QUOTA_PER_SECOND = 500

const TYPE_BY_KIND = { message: "message", clear: "clear", call: "message" } as const

/** The proxy's JSON: numeric badge and cont_ava, boolean flags, everything else the strings of `data`. */
export const toProxyPayload = (push: PushNotification): Record<string, unknown> => {
  const { badge, is_crt_enabled, ...data } = push.data
  return {
    ...data,
    platform: push.proxyPlatform,
    device_id: push.token,
    type: TYPE_BY_KIND[push.kind],
    message: push.kind === "call" ? push.title : push.body,
    ...(Option.isSome(push.sound) ? { sound: push.sound.value } : {}),
    badge: Option.getOrElse(push.badge, () => Number(badge ?? 0)),
    cont_ava: push.kind === "clear" ? 1 : 0,
    is_crt_enabled: is_crt_enabled === "true",
    is_id_loaded: false,
    ...(push.voip ? { transport: "voip" } : {})
  }
}

export const make = (timeout: Duration.DurationInput, http: OutboundHttpService) => Effect.gen(function*() {
  const guard = yield* makeGuard({ transport: "proxy", perSecond: PROXY_QUOTA_PER_SECOND, timeout })

  const send = (credentials: ProxyCredentials, push: PushNotification) =>
    guard(Effect.gen(function*() {
      const answer = yield* request(http, "proxy", `${credentials.url.replace(/\/+$/, "")}/api/v1/send_push`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(toProxyPayload(push))
      }, timeout)
      if (answer.status < 200 || answer.status >= 300) return yield* refuse("proxy", answer, "from the push proxy")
      const body = (answer.body ?? {}) as { status?: string; error?: string }
      switch (body.status) {
        case "OK":
          return { _tag: "Sent" } as SendOutcome
        case "REMOVE":
          return { _tag: "InvalidToken", reason: "proxy answered REMOVE" } as SendOutcome
        default:
          return yield* Effect.fail(failure("proxy", `proxy answered ${body.status ?? "nothing"}: ${body.error ?? ""}`, false))
      }
    }))

  return { send }
})

import { HttpServerRequest } from "@effect/platform"
import { Effect, Option } from "effect"
import { clientInfo } from "../auth/ClientInfo.ts"
import { Sessions } from "../auth/Sessions.ts"
import { UserRepo } from "../users/UserRepo.ts"
import { type Grant, recordSpentSession, takeCode } from "./FlowStore.ts"
import { logSecurityEvent, SecurityEvent } from "../security/SecurityEvents.ts"
import { SsoErrors } from "./SsoErrors.ts"

/**
 * Redeeming a one-time code for a session. A replayed code is refused, logged as the "Exchange code reuse" security
 * event, and the session its first use created is revoked (RFC 6749 section 4.1.2: a replay means the code leaked).
 */
export const redeem = <E, R>(
  kind: "exchange" | "login",
  code: string,
  check: (grant: Grant) => Effect.Effect<void, E, R>,
  lengthMs: number
) =>
  Effect.gen(function*() {
    const sessions = yield* Sessions
    const taken = yield* takeCode(kind, code)
    if (taken._tag === "Spent") {
      yield* logSecurityEvent(SecurityEvent.ExchangeCodeReuse, { code_kind: kind })
      if (taken.sessionId !== "") yield* sessions.revoke(taken.sessionId)
      return yield* SsoErrors.invalidExchangeCode()
    }
    if (taken._tag === "Unknown") return yield* SsoErrors.invalidExchangeCode()
    yield* check(taken.grant)
    const repo = yield* UserRepo
    const user = yield* repo.findById(taken.grant.user_id)
    if (Option.isNone(user) || Number(user.value.delete_at) > 0) return yield* SsoErrors.deactivated()
    const request = yield* HttpServerRequest.HttpServerRequest
    const info = clientInfo(request.headers["user-agent"] ?? "")
    const created = yield* sessions.create({
      userId: user.value.id,
      roles: user.value.roles,
      lengthMs,
      props: {
        os: info.os,
        platform: info.platform,
        browser: info.browser,
        is_guest: String(user.value.roles.split(" ").includes("system_guest"))
      }
    })
    yield* recordSpentSession(kind, code, created.session.id)
    return { ...created, user: user.value, grant: taken.grant }
  })

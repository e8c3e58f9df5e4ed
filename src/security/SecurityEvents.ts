import { Effect, Option } from "effect"
import { SecurityEventLog } from "./SecurityEventLog.ts"

/** The security events of the specification, each logged as one structured line with its severity. */
export const SecurityEvent = {
  RateLimitExceeded: { name: "Rate limit exceeded", severity: "Warning" },
  InvalidOAuthState: { name: "Invalid OAuth state", severity: "Warning" },
  WeakSecretDetected: { name: "Weak secret detected", severity: "Critical" },
  WebSocketAuthFailure: { name: "WebSocket authentication failure", severity: "Info" },
  ExchangeCodeReuse: { name: "Exchange code reuse", severity: "Warning" },
  SignInFailed: { name: "Sign-in failed", severity: "Info" },
  AccountLocked: { name: "Account locked after failed sign-ins", severity: "Warning" },
  LockedAccountSignIn: { name: "Sign-in to a locked account refused", severity: "Warning" },
  SessionsRevoked: { name: "Sessions revoked", severity: "Info" }
} as const

export type SecurityEventKind = (typeof SecurityEvent)[keyof typeof SecurityEvent]

/**
 * Logs a security event, and keeps it among the node's recent ones when the server runs (the System Console shows
 * them; the admin CLI has no such log, hence the optional service). Details must never carry secrets or tokens.
 */
export const logSecurityEvent = (event: SecurityEventKind, details: Record<string, unknown> = {}) => {
  const log = event.severity === "Critical"
    ? Effect.logError
    : event.severity === "Warning"
    ? Effect.logWarning
    : Effect.logInfo
  const keep = Effect.flatMap(Effect.serviceOption(SecurityEventLog), Option.match({
    onNone: () => Effect.void,
    onSome: (recent) => recent.record({ name: event.name, severity: event.severity, details })
  }))
  return log(`security event: ${event.name}`).pipe(
    Effect.annotateLogs({ security_event: event.name, severity: event.severity, ...details }),
    Effect.zipRight(keep)
  )
}

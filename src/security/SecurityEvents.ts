import { Effect } from "effect"

/** The security events of the specification, each logged as one structured line with its severity. */
export const SecurityEvent = {
  RateLimitExceeded: { name: "Rate limit exceeded", severity: "Warning" },
  InvalidOAuthState: { name: "Invalid OAuth state", severity: "Warning" },
  WeakSecretDetected: { name: "Weak secret detected", severity: "Critical" },
  WebSocketAuthFailure: { name: "WebSocket authentication failure", severity: "Info" },
  ExchangeCodeReuse: { name: "Exchange code reuse", severity: "Warning" },
  AccountLocked: { name: "Account locked after failed sign-ins", severity: "Warning" },
  LockedAccountSignIn: { name: "Sign-in to a locked account refused", severity: "Warning" }
} as const

export type SecurityEventKind = (typeof SecurityEvent)[keyof typeof SecurityEvent]

/** Logs a security event. Details must never carry secrets or tokens. */
export const logSecurityEvent = (event: SecurityEventKind, details: Record<string, unknown> = {}) => {
  const log = event.severity === "Critical"
    ? Effect.logError
    : event.severity === "Warning"
    ? Effect.logWarning
    : Effect.logInfo
  return log(`security event: ${event.name}`).pipe(
    Effect.annotateLogs({ security_event: event.name, severity: event.severity, ...details })
  )
}

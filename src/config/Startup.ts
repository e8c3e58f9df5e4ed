import { Data, Effect, Option } from "effect"
import { type ConfigProblem, inspectConfig, type ResolvedConfig } from "../Config.ts"
import { logSecurityEvent, SecurityEvent } from "../security/SecurityEvents.ts"
import { resolveSecrets } from "./Secrets.ts"

export class InvalidConfig extends Data.TaggedError("InvalidConfig")<{ readonly problems: ReadonlyArray<ConfigProblem> }> {
  override get message() {
    return `configuration invalid:\n${this.problems.map((p) => `  - ${p.variable}: ${p.message} (hint: ${p.hint})`).join("\n")}`
  }
}

const SECRET_VARIABLES = new Set(["SERVICE_JWT_SECRET", "SERVICE_ENCRYPTION_KEY"])

/**
 * The configuration the server starts with: any error (and in production any warning) stops start-up with every
 * problem listed; outside production weak secrets are logged as the security event "Weak secret detected". Notices
 * never stop it and are not logged here: each says what a mode will choose (SERVICE_WORKERS=auto's count), and the
 * mode that uses the choice logs it (main.ts's serve).
 */
export const loadForStartup: Effect.Effect<ResolvedConfig, InvalidConfig | Error> = Effect.gen(function*() {
  const report = yield* inspectConfig
  const production = Option.match(report.config, { onNone: () => false, onSome: (c) => c.isProduction })
  const blocking = report.problems.filter((p) => p.severity === "error" || (production && p.severity === "warning"))
  for (const p of report.problems.filter((p) => SECRET_VARIABLES.has(p.variable))) {
    yield* logSecurityEvent(SecurityEvent.WeakSecretDetected, { variable: p.variable, problem: p.message })
  }
  if (blocking.length > 0 || Option.isNone(report.config)) return yield* new InvalidConfig({ problems: blocking })
  for (const p of report.problems.filter((p) => p.severity !== "notice")) {
    yield* Effect.logWarning(`configuration: ${p.variable} ${p.message}`).pipe(Effect.annotateLogs({ hint: p.hint }))
  }
  return yield* resolveSecrets(report.config.value)
})

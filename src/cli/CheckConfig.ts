import { Console, Effect, Option, Redacted } from "effect"
import { type AppConfigShape, inspectConfig } from "../Config.ts"

/** `--check-config`: the same loader the server uses, every problem with its variable and a hint. */
const redactUrl = (url: Option.Option<Redacted.Redacted>, fallback: string) =>
  Option.match(url, {
    onNone: () => fallback,
    onSome: (u) => {
      try {
        const parsed = new URL(Redacted.value(u))
        if (parsed.password !== "") parsed.password = "***"
        // libpq and Redis clients also take credentials as query parameters.
        for (const key of [...parsed.searchParams.keys()]) {
          if (/pass|secret|token|key/i.test(key)) parsed.searchParams.set(key, "***")
        }
        return parsed.toString()
      } catch {
        return "<invalid>"
      }
    }
  })

const secretState = (secret: Option.Option<Redacted.Redacted>, production: boolean) =>
  Option.isSome(secret) ? "set (redacted)" : production ? "NOT SET" : "unset: generated in the data directory at start-up"

export const summary = (c: AppConfigShape) => [
  `  environment        ${c.environment}`,
  `  listen             ${c.host}:${c.port}${c.workers > 1 ? `, ${c.workers} worker processes` : ""}`,
  ...(c.workersSetting === "auto" || c.workersSetting === "split" ? [`  workers            ${c.workersReason}`] : []),
  `  site URL           ${c.siteUrl}`,
  `  data directory     ${c.dataDir}`,
  `  database           ${redactUrl(c.databaseUrl, "embedded PostgreSQL under the data directory")}`,
  `  cache              ${redactUrl(c.cacheUrl, "in memory (single node)")}`,
  `  JWT secret         ${secretState(c.jwtSecret, c.isProduction)}`,
  `  encryption key     ${secretState(c.encryptionKey, c.isProduction)}`,
  `  CORS origins       ${c.corsAllowedOrigins.length === 0 ? "(none)" : c.corsAllowedOrigins.join(", ")}`,
  `  rate limits        ${c.rateLimitEnabled ? `auth ${c.rateLimitAuthPerMinute}/min, websocket ${c.rateLimitWsPerMinute}/min per IP` : "disabled"}`,
  `  trusted proxies    ${c.trustedProxies.join(", ") || "(none)"}`,
  `  internal hosts     ${c.allowInternalConnections.join(", ") || "(none: integrations reach public addresses only)"}`,
  `  database pool      ${c.dbPoolMin}..${c.dbPoolMax} connections, prepared statements ${c.dbPreparedStatements ? "on" : "off"}`,
  `  log level          ${c.logLevel.label}`,
  `  web app            ${Option.getOrElse(c.webappDir, () => "(built-in pages)")}`,
  `  files              ${
    Option.match(c.filesS3, {
      onNone: () => `local directory ${c.dataDir}/files`,
      onSome: (s3) => `S3 bucket ${s3.bucket} at ${Option.getOrElse(s3.endpoint, () => `AWS ${s3.region}`)}${s3.forcePathStyle ? " (path style)" : ""}`
    })
  }`,
  `  email              ${
    Option.isSome(c.smtpUrl)
      ? `${redactUrl(c.smtpUrl, "")}${Option.isSome(c.smtpPassword) ? " (password set, redacted)" : ""}, from ${Option.getOrElse(c.emailFrom, () => "NOT SET")}`
      : "off (no SERVICE_SMTP_URL: no password reset or invitation mail)"
  }`
].join("\n")

export const checkConfig: Effect.Effect<number> = Effect.gen(function*() {
  const report = yield* inspectConfig
  const production = Option.match(report.config, { onNone: () => false, onSome: (c) => c.isProduction })
  const blocking = report.problems.filter((p) => p.severity === "error" || (production && p.severity === "warning"))
  const warnings = report.problems.filter((p) => p.severity === "warning" && !blocking.includes(p))
  const notices = report.problems.filter((p) => p.severity === "notice")
  for (const p of blocking) yield* Console.error(`  ✗ ${p.variable}: ${p.message}\n      hint: ${p.hint}`)
  for (const p of warnings) yield* Console.error(`  ! ${p.variable}: ${p.message} (warning outside production)\n      hint: ${p.hint}`)
  for (const p of notices) yield* Console.error(`  i ${p.variable}: ${p.message} (notice)\n      hint: ${p.hint}`)
  if (blocking.length > 0) {
    yield* Console.error(`configuration invalid: ${blocking.length} problem${blocking.length === 1 ? "" : "s"}`)
    return 1
  }
  const config = Option.getOrThrow(report.config)
  // The one check that needs the network: the bucket answers with these settings.
  if (Option.isSome(config.filesS3)) {
    const s3 = config.filesS3.value
    const S3 = yield* Effect.promise(() => import("../../layers/FileStoreS3.ts"))
    const failure = yield* Effect.flip(S3.checkBucket(s3)).pipe(Effect.option)
    if (Option.isSome(failure)) {
      yield* Console.error(`  ✗ SERVICE_FILES_S3_BUCKET: the bucket "${s3.bucket}" does not answer: ${failure.value.message}\n      hint: check the endpoint, region, credentials and that the bucket exists`)
      yield* Console.error("configuration invalid: 1 problem")
      return 1
    }
  }
  const counted = [[warnings.length, "warning"], [notices.length, "notice"]] as const
  const remarks = counted.filter(([n]) => n > 0).map(([n, word]) => `${n} ${word}${n === 1 ? "" : "s"}`).join(", ")
  yield* Console.log(`configuration valid${remarks === "" ? "" : ` (${remarks})`}:\n${summary(config)}`)
  return 0
})

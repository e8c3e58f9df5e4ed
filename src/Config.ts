import { Config, ConfigError, Context, Effect, Either, Layer, LogLevel, Option, Redacted } from "effect"
import { existsSync, statSync } from "node:fs"
import { isIP } from "node:net"
import { availableParallelism } from "node:os"
import { join } from "node:path"
import type { S3Settings } from "../layers/FileStoreS3.ts"
import { isAllowEntry } from "../layers/outbound/AddressPolicy.ts"
import { checkSecretStrength } from "./config/SecretRules.ts"

/** Everything the service reads from the environment, loaded once and shared by every layer. */
export interface AppConfigShape {
  readonly environment: string
  readonly isProduction: boolean
  readonly port: number
  readonly host: string
  readonly siteUrl: string
  readonly dataDir: string
  readonly databaseUrl: Option.Option<Redacted.Redacted>
  readonly cacheUrl: Option.Option<Redacted.Redacted>
  /** Unset outside production until `resolveSecrets` fills them from the data directory. */
  readonly jwtSecret: Option.Option<Redacted.Redacted>
  readonly encryptionKey: Option.Option<Redacted.Redacted>
  readonly corsAllowedOrigins: ReadonlyArray<string>
  readonly rateLimitEnabled: boolean
  readonly rateLimitAuthPerMinute: number
  readonly rateLimitWsPerMinute: number
  /** Channels and teams one user may create in a burst, then per minute on average (RateLimit.enforceCreation). */
  readonly rateLimitCreateBurst: number
  readonly rateLimitCreatePerMinute: number
  readonly wsPingIntervalMs: number
  /** After SIGTERM/SIGINT, a stop still running this long ends the process with exit code 1. */
  readonly shutdownDeadlineMs: number
  /** After SIGTERM/SIGINT, how long the node keeps serving (readiness 503) before it stops listening. */
  readonly shutdownDrainMs: number
  /** How long a stopping node waits for its WebSocket connections to be taken over by other nodes. */
  readonly shutdownHandoverMs: number
  /** Node's headersTimeout: the request line and headers must arrive within this. */
  readonly httpHeadersTimeoutMs: number
  /** Node's requestTimeout: the whole request (headers and body) must arrive within this. */
  readonly httpRequestTimeoutMs: number
  /** A request body that sends nothing for this long is cut. */
  readonly httpBodyIdleTimeoutMs: number
  /** Open connections per client address (counted as the rate limits count addresses); 0: no cap. */
  readonly maxConnectionsPerClient: number
  /** Each WebSocket's actions: a token bucket refilled at this rate, holding at most `wsActionsBurst`. */
  readonly wsActionsPerSecond: number
  readonly wsActionsBurst: number
  readonly wsAllowQueryToken: boolean
  readonly oauthTokenDelivery: string
  readonly dbPoolMax: number
  readonly dbPoolMin: number
  readonly dbPreparedStatements: boolean
  readonly trustedProxies: ReadonlyArray<string>
  /** Internal hosts, addresses and CIDR ranges that integrations may call anyway (layers/OutboundHttp.ts). */
  readonly allowInternalConnections: ReadonlyArray<string>
  /** How long a slash command's or dialog's integration may take to answer (Mattermost's OutgoingIntegrationRequestsTimeout). */
  readonly integrationTimeoutMs: number
  readonly logLevel: LogLevel.LogLevel
  /** A Mattermost web app build (its root.html and /static files) served at the site root, if set. */
  readonly webappDir: Option.Option<string>
  /** S3-compatible file storage, used when SERVICE_FILES_S3_BUCKET is set; otherwise files go under the data directory. */
  readonly filesS3: Option.Option<S3Settings>
  /** The SMTP server mail goes through (smtp:// or smtps://); unset, nothing is mailed. */
  readonly smtpUrl: Option.Option<Redacted.Redacted>
  readonly smtpUsername: Option.Option<string>
  readonly smtpPassword: Option.Option<Redacted.Redacted>
  readonly emailFrom: Option.Option<string>
  /** How often waiting notification emails are looked at (their batching intervals are the users' own). */
  readonly emailBatchingCheckMs: number
  /** The hand-written dispatch of the hottest routes in front of the router (src/http/FastPath.ts); on by default. */
  readonly httpFastPath: boolean
  /** Channel pages answered from memory while their channel is unchanged (src/posts/PageCache.ts); on by default. */
  readonly pageCache: boolean
  /**
   * Worker processes sharing the listening port (node:cluster), so one machine's cores all serve; 1 runs the server
   * in this process. More than one needs PostgreSQL and Redis (SERVICE_DATABASE_URL, SERVICE_CACHE_URL): workers are
   * nodes of a cluster and meet there, as nodes on different machines do. Resolved from `workersSetting`.
   */
  readonly workers: number
  /** SERVICE_WORKERS as set, or DEFAULT_WORKERS when unset. */
  readonly workersSetting: WorkersSetting
  /** Why `workers` is what it is, in words, for the start-up log and --check-config (`auto` only says much). */
  readonly workersReason: string
}

/**
 * SERVICE_WORKERS: a number of worker processes, `auto` (one per core when PostgreSQL and Redis are external), or
 * `split` (two: one answers HTTP, the other holds the realtime sockets; src/cli/WorkerRole.ts).
 */
export type WorkersSetting = number | "auto" | "split"

/**
 * SERVICE_WORKERS when unset. It goes through the same resolution as a set value, so `"auto"` here makes auto the
 * default with nothing else to change. 1, from the load simulation (docs/performance.md, 2026-11-27): on a machine
 * that also runs PostgreSQL and Redis, one worker per core cost 75% more CPU per request (caches per worker, every
 * event through Redis) and held fewer users than one process; workers pay only where the service has the cores.
 */
export const DEFAULT_WORKERS: WorkersSetting = 1

const MAX_WORKERS = 64

type Stores = Pick<AppConfigShape, "databaseUrl" | "cacheUrl">

/** What worker processes cannot share, for each variable that would make it external, and whether it is set. */
const SHARED_BY_WORKERS = [
  ["SERVICE_DATABASE_URL", "the embedded database", (c: Stores) => Option.isSome(c.databaseUrl)],
  ["SERVICE_CACHE_URL", "the in-memory cache and event bus", (c: Stores) => Option.isSome(c.cacheUrl)]
] as const

/** The variables among SERVICE_DATABASE_URL and SERVICE_CACHE_URL that are not set, with what each leaves in process. */
const inProcessStores = (c: Stores) => SHARED_BY_WORKERS.filter(([, , isSet]) => !isSet(c))

/**
 * The number of worker processes a setting asks for. `auto` is one per core (os.availableParallelism(), at most 64)
 * when PostgreSQL and Redis are external, and 1 otherwise: workers on an embedded database or an in-memory cache and
 * bus would each have their own, and a post written on one would never reach the sockets of another.
 */
export const resolveWorkers = (
  setting: WorkersSetting,
  c: Stores,
  cores: number
): { readonly workers: number; readonly reason: string } => {
  if (setting === "split") {
    return { workers: 2, reason: "SERVICE_WORKERS=split: 2 worker processes, one answering HTTP and one holding the realtime sockets" }
  }
  if (setting !== "auto") return { workers: setting, reason: `SERVICE_WORKERS=${setting}` }
  const missing = inProcessStores(c)
  if (missing.length > 0) {
    return {
      workers: 1,
      reason: `SERVICE_WORKERS=auto: 1 process, since ${missing.map(([variable]) => variable).join(" and ")} ${
        missing.length === 1 ? "is" : "are"
      } not set (worker processes cannot share ${missing.map(([, store]) => store).join(" or ")})`
    }
  }
  const workers = Math.max(1, Math.min(MAX_WORKERS, cores))
  return {
    workers,
    reason: `SERVICE_WORKERS=auto: ${workers === 1 ? "1 process" : `${workers} worker processes`}, one per core (${cores} available${
      cores > MAX_WORKERS ? `, at most ${MAX_WORKERS} workers` : ""
    })`
  }
}

/** The configuration with both secrets present (generated outside production when unset). */
export interface ResolvedConfig extends AppConfigShape {
  readonly jwtSecretValue: Redacted.Redacted
  readonly encryptionKeyValue: Redacted.Redacted
}

export class AppConfig extends Context.Tag("service/AppConfig")<AppConfig, ResolvedConfig>() {}

const splitList = (raw: string) => raw.split(",").map((s) => s.trim()).filter((s) => s.length > 0)

const list = (name: string, fallback: ReadonlyArray<string>, entry: { readonly message: string; readonly validation: (s: string) => boolean }) =>
  Config.string(name).pipe(
    Config.validate({ message: entry.message, validation: (raw) => splitList(raw).every(entry.validation) }),
    Config.map(splitList),
    Config.withDefault(fallback)
  )

// Validation goes before the default: validating after it reports the problem without the variable's name.
const boundedInt = (name: string, fallback: number, min: number, max: number) =>
  Config.integer(name).pipe(
    Config.validate({ message: `must be an integer between ${min} and ${max}`, validation: (n) => n >= min && n <= max }),
    Config.withDefault(fallback)
  )

const isAddressOrCidr = (entry: string) => {
  const [address, bits, extra] = entry.split("/")
  const version = isIP(address)
  if (version === 0 || extra !== undefined) return false
  if (bits === undefined) return true
  const n = Number(bits)
  return /^\d+$/.test(bits) && n <= (version === 4 ? 32 : 128)
}

const isOrigin = (entry: string) => {
  if (entry === "*") return true
  try {
    return new URL(entry).origin === entry
  } catch {
    return false
  }
}

const absoluteUrl = (protocols: ReadonlyArray<string>) => (raw: string) => {
  try {
    return protocols.includes(new URL(raw).protocol)
  } catch {
    return false
  }
}

const optionalSecretUrl = (name: string, protocols: ReadonlyArray<string>) =>
  Config.option(
    Config.nested(
      Config.string().pipe(
        Config.validate({
          message: `must be a URL with scheme ${protocols.map((p) => p.replace(":", "")).join(" or ")}`,
          validation: absoluteUrl(protocols)
        }),
        Config.map(Redacted.make)
      ),
      name
    )
  )

const isFromAddress = (raw: string) => /^(?:[^<>\r\n]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/.test(raw.trim())

/** Reads the raw environment. Every problem is accumulated so that `--check-config` can list them all. */
export const rawConfig: Config.Config<AppConfigShape> = Config.all({
  environment: Config.string("SERVICE_ENVIRONMENT").pipe(Config.withDefault("development")),
  port: Config.port("SERVICE_PORT").pipe(Config.withDefault(3000)),
  host: Config.string("SERVICE_HOST").pipe(Config.withDefault("0.0.0.0")),
  siteUrl: Config.option(
    Config.string("SERVICE_SITE_URL").pipe(
      Config.validate({ message: "must be an absolute http(s) URL", validation: absoluteUrl(["http:", "https:"]) })
    )
  ),
  dataDir: Config.string("SERVICE_DATA_DIR").pipe(Config.withDefault("./data")),
  databaseUrl: optionalSecretUrl("SERVICE_DATABASE_URL", ["postgres:", "postgresql:"]),
  cacheUrl: optionalSecretUrl("SERVICE_CACHE_URL", ["redis:", "rediss:"]),
  jwtSecret: Config.option(Config.redacted("SERVICE_JWT_SECRET")),
  encryptionKey: Config.option(Config.redacted("SERVICE_ENCRYPTION_KEY")),
  corsAllowedOrigins: list("SERVICE_CORS_ALLOWED_ORIGINS", [], {
    message: "every entry must be an origin such as https://chat.example.com (scheme, host and port; no path)",
    validation: isOrigin
  }),
  rateLimitEnabled: Config.boolean("SERVICE_SECURITY_RATE_LIMIT_ENABLED").pipe(Config.withDefault(true)),
  rateLimitAuthPerMinute: boundedInt("SERVICE_SECURITY_RATE_LIMIT_AUTH_PER_MINUTE", 10, 1, 100_000),
  rateLimitWsPerMinute: boundedInt("SERVICE_SECURITY_RATE_LIMIT_WS_PER_MINUTE", 30, 1, 100_000),
  rateLimitCreateBurst: boundedInt("SERVICE_SECURITY_RATE_LIMIT_CREATE_BURST", 20, 1, 100_000),
  rateLimitCreatePerMinute: boundedInt("SERVICE_SECURITY_RATE_LIMIT_CREATE_PER_MINUTE", 4, 1, 100_000),
  wsPingIntervalMs: boundedInt("SERVICE_WS_PING_INTERVAL_MS", 30_000, 100, 600_000),
  shutdownDeadlineMs: boundedInt("SERVICE_SHUTDOWN_DEADLINE_MS", 30_000, 1_000, 600_000),
  shutdownDrainMs: boundedInt("SERVICE_SHUTDOWN_DRAIN_MS", 5_000, 0, 300_000),
  shutdownHandoverMs: boundedInt("SERVICE_SHUTDOWN_HANDOVER_MS", 6_000, 0, 120_000),
  httpHeadersTimeoutMs: boundedInt("SERVICE_HTTP_HEADERS_TIMEOUT_MS", 20_000, 100, 600_000),
  httpRequestTimeoutMs: boundedInt("SERVICE_HTTP_REQUEST_TIMEOUT_MS", 120_000, 100, 3_600_000),
  httpBodyIdleTimeoutMs: boundedInt("SERVICE_HTTP_BODY_IDLE_TIMEOUT_MS", 15_000, 100, 600_000),
  maxConnectionsPerClient: boundedInt("SERVICE_SECURITY_MAX_CONNECTIONS_PER_CLIENT", 1_000, 0, 1_000_000),
  wsActionsPerSecond: boundedInt("SERVICE_WS_ACTIONS_PER_SECOND", 10, 1, 100_000),
  wsActionsBurst: boundedInt("SERVICE_WS_ACTIONS_BURST", 30, 1, 100_000),
  wsAllowQueryToken: Config.boolean("SERVICE_SECURITY_WS_ALLOW_QUERY_TOKEN").pipe(
    Config.validate({
      message: "query-string WebSocket tokens leak into logs and history; this option was removed and must be false",
      validation: (allowed) => !allowed
    }),
    Config.withDefault(false)
  ),
  oauthTokenDelivery: Config.string("SERVICE_SECURITY_OAUTH_TOKEN_DELIVERY").pipe(
    Config.validate({ message: "only `cookie` is supported", validation: (mode) => mode === "cookie" }),
    Config.withDefault("cookie")
  ),
  dbPoolMax: boundedInt("SERVICE_DB_POOL__MAX_CONNECTIONS", 10, 1, 1000),
  dbPoolMin: boundedInt("SERVICE_DB_POOL__MIN_CONNECTIONS", 1, 0, 1000),
  dbPreparedStatements: Config.boolean("SERVICE_DB_PREPARED_STATEMENTS").pipe(Config.withDefault(true)),
  // Empty by default: trusting loopback would let any local program (or a proxy forwarding without overwriting the
  // header) rotate X-Forwarded-For past the rate limits; a proxy is believed only once the operator names it.
  trustedProxies: list("SERVICE_TRUSTED_PROXIES", [], {
    message: "every entry must be an IP address or a CIDR range",
    validation: isAddressOrCidr
  }),
  // Empty by default: integrations (webhooks, slash commands) configured by users reach only the public internet.
  allowInternalConnections: list("SERVICE_ALLOW_INTERNAL_CONNECTIONS", [], {
    message: "every entry must be a host name, an IP address or a CIDR range",
    validation: isAllowEntry
  }),
  integrationTimeoutMs: boundedInt("SERVICE_INTEGRATION_TIMEOUT_MS", 30_000, 100, 120_000),
  logLevel: Config.logLevel("SERVICE_LOG_LEVEL").pipe(Config.withDefault(LogLevel.Info)),
  webappDir: Config.option(Config.nonEmptyString("SERVICE_WEBAPP_DIR")),
  s3: Config.all({
    endpoint: Config.option(Config.string("SERVICE_FILES_S3_ENDPOINT").pipe(
      Config.validate({ message: "must be an absolute http(s) URL", validation: absoluteUrl(["http:", "https:"]) })
    )),
    region: Config.nonEmptyString("SERVICE_FILES_S3_REGION").pipe(Config.withDefault("us-east-1")),
    bucket: Config.option(Config.nonEmptyString("SERVICE_FILES_S3_BUCKET")),
    accessKeyId: Config.option(Config.redacted("SERVICE_FILES_S3_ACCESS_KEY_ID")),
    secretAccessKey: Config.option(Config.redacted("SERVICE_FILES_S3_SECRET_ACCESS_KEY")),
    forcePathStyle: Config.boolean("SERVICE_FILES_S3_FORCE_PATH_STYLE").pipe(Config.withDefault(false))
  }),
  httpFastPath: Config.boolean("SERVICE_HTTP_FAST_PATH").pipe(Config.withDefault(true)),
  pageCache: Config.boolean("SERVICE_PAGE_CACHE").pipe(Config.withDefault(true)),
  workersSetting: Config.string("SERVICE_WORKERS").pipe(
    Config.mapOrFail((raw) => {
      const word = raw.trim().toLowerCase()
      if (word === "auto" || word === "split") return Either.right<WorkersSetting>(word)
      // Number() as Config.integer reads it, so that every integer accepted before still is.
      const n = Number(raw)
      return Number.isInteger(n) && n >= 1 && n <= MAX_WORKERS
        ? Either.right<WorkersSetting>(n)
        : Either.left(ConfigError.InvalidData([], `must be auto, split or an integer between 1 and ${MAX_WORKERS}, not ${JSON.stringify(raw)}`))
    }),
    Config.withDefault(DEFAULT_WORKERS)
  ),
  smtpUrl: optionalSecretUrl("SERVICE_SMTP_URL", ["smtp:", "smtps:"]),
  smtpUsername: Config.option(Config.nonEmptyString("SERVICE_SMTP_USERNAME")),
  smtpPassword: Config.option(Config.redacted("SERVICE_SMTP_PASSWORD")),
  emailFrom: Config.option(
    Config.string("SERVICE_EMAIL_FROM").pipe(
      Config.validate({ message: "must be an email address, optionally as Name <address>", validation: isFromAddress })
    )
  ),
  emailBatchingCheckMs: boundedInt("SERVICE_EMAIL_BATCHING_CHECK_MS", 15_000, 100, 3_600_000)
}).pipe(
  Config.map(({ s3, ...c }) => {
    const { reason, workers } = resolveWorkers(c.workersSetting, c, availableParallelism())
    return {
      ...c,
      workers,
      workersReason: reason,
      filesS3: Option.map(s3.bucket, (bucket): S3Settings => ({ ...s3, bucket })),
      isProduction: c.environment === "production",
      siteUrl: Option.getOrElse(c.siteUrl, () => `http://localhost:${c.port}`).replace(/\/+$/, "")
    }
  })
)

export interface ConfigProblem {
  readonly variable: string
  readonly message: string
  readonly hint: string
  /**
   * Warnings do not stop the service outside production; notices never do: they say what the service chose where a
   * setting leaves it a choice, and --check-config lists them.
   */
  readonly severity: "error" | "warning" | "notice"
}

const hints: Record<string, string> = {
  SERVICE_PORT: "a TCP port number such as 3000",
  SERVICE_SITE_URL: "the public base URL clients use, e.g. https://chat.example.com",
  SERVICE_DATABASE_URL: "e.g. postgres://user:password@db-host:5432/chat; leave unset for the embedded database",
  SERVICE_CACHE_URL: "e.g. redis://cache-host:6379; leave unset for the in-memory cache (one node only)",
  SERVICE_JWT_SECRET: "generate one with: openssl rand -base64 48",
  SERVICE_ENCRYPTION_KEY: "generate one with: openssl rand -base64 48 (must differ from SERVICE_JWT_SECRET)",
  SERVICE_CORS_ALLOWED_ORIGINS: "a comma-separated list of origins such as https://chat.example.com",
  SERVICE_SECURITY_WS_ALLOW_QUERY_TOKEN: "unset it or set it to false; clients authenticate with a header or subprotocol",
  SERVICE_SECURITY_OAUTH_TOKEN_DELIVERY: "unset it or set it to cookie",
  SERVICE_LOG_LEVEL: "one of trace, debug, info, warn, error, fatal, all, off (any case)",
  SERVICE_DB_POOL__MAX_CONNECTIONS: "an integer such as 10",
  SERVICE_DB_POOL__MIN_CONNECTIONS: "an integer no larger than the maximum, such as 1",
  SERVICE_DB_PREPARED_STATEMENTS: "true or false (false behind a pooler in transaction mode that cannot keep them)",
  SERVICE_SECURITY_RATE_LIMIT_AUTH_PER_MINUTE: "an integer such as 10",
  SERVICE_SECURITY_RATE_LIMIT_WS_PER_MINUTE: "an integer such as 30",
  SERVICE_SECURITY_RATE_LIMIT_CREATE_BURST: "an integer such as 20",
  SERVICE_SECURITY_RATE_LIMIT_CREATE_PER_MINUTE: "an integer such as 4",
  SERVICE_WS_PING_INTERVAL_MS: "milliseconds between pings, such as 30000 (100 to 600000)",
  SERVICE_SHUTDOWN_DEADLINE_MS: "milliseconds a stop may take before the process exits with 1, such as 30000 (1000 to 600000)",
  SERVICE_SHUTDOWN_DRAIN_MS: "milliseconds a stopping node keeps serving while readiness answers 503, such as 5000 (0 to 300000)",
  SERVICE_SHUTDOWN_HANDOVER_MS: "milliseconds a stopping node waits for its WebSocket clients to resume elsewhere, such as 6000 (0 to 120000)",
  SERVICE_HTTP_HEADERS_TIMEOUT_MS: "milliseconds for a request's headers to arrive, such as 20000 (100 to 600000)",
  SERVICE_HTTP_REQUEST_TIMEOUT_MS: "milliseconds for a whole request, body included, to arrive, such as 120000 (100 to 3600000); uploads must fit in it",
  SERVICE_HTTP_BODY_IDLE_TIMEOUT_MS: "milliseconds a request body may send nothing before it is cut, such as 15000 (100 to 600000)",
  SERVICE_SECURITY_MAX_CONNECTIONS_PER_CLIENT: "open connections per client address, such as 1000 (0 for no cap); a whole office behind one NAT counts as one address",
  SERVICE_WS_ACTIONS_PER_SECOND: "actions a WebSocket may send per second, such as 10 (1 to 100000)",
  SERVICE_WS_ACTIONS_BURST: "actions a WebSocket may send at once before the rate applies, such as 30 (1 to 100000)",
  SERVICE_SECURITY_RATE_LIMIT_ENABLED: "true or false",
  SERVICE_HTTP_FAST_PATH: "true or false",
  SERVICE_PAGE_CACHE: "true or false",
  SERVICE_TRUSTED_PROXIES: "a comma-separated list of addresses or CIDR ranges, e.g. 10.0.0.0/8,127.0.0.1",
  SERVICE_ALLOW_INTERNAL_CONNECTIONS: "a comma-separated list of host names, addresses or CIDR ranges, e.g. ci.internal,10.0.5.0/24",
  SERVICE_INTEGRATION_TIMEOUT_MS: "milliseconds an integration may take to answer, such as 30000 (100 to 120000)",
  SERVICE_ENVIRONMENT: "production, or anything else for development",
  SERVICE_FILES_S3_ACCESS_KEY_ID: "set both SERVICE_FILES_S3_ACCESS_KEY_ID and SERVICE_FILES_S3_SECRET_ACCESS_KEY, or neither (the AWS default credential chain)",
  SERVICE_FILES_S3_ENDPOINT: "the store's URL, e.g. http://minio:9000; leave unset for AWS S3",
  SERVICE_SMTP_URL: "e.g. smtps://user:password@mail.example.com:465 or smtp://mail.example.com:587 (STARTTLS when offered)",
  SERVICE_SMTP_USERNAME: "the SMTP user, when it is not in SERVICE_SMTP_URL",
  SERVICE_SMTP_PASSWORD: "the SMTP password, when it is not in SERVICE_SMTP_URL",
  SERVICE_EMAIL_FROM: "the sender of every mail, e.g. Chat <chat@example.com>",
  SERVICE_EMAIL_BATCHING_CHECK_MS: "milliseconds between looks at waiting notification emails, such as 15000 (100 to 3600000)",
  SERVICE_WORKERS: "auto (one per core when SERVICE_DATABASE_URL and SERVICE_CACHE_URL are set, otherwise 1), split (one process for HTTP, one for the realtime sockets) or the number of worker processes, such as 2 on a 2-core machine (1 to 64); more than 1 needs SERVICE_DATABASE_URL and SERVICE_CACHE_URL",
  SERVICE_WEBAPP_DIR: "the client/ folder of a Mattermost 10.11 release (it holds root.html); unset it to serve the built-in pages"
}

export const hintFor = (variable: string) => hints[variable] ?? "see the configuration table in README.md"

const configErrorProblems = (error: ConfigError.ConfigError): Array<ConfigProblem> =>
  ConfigError.reduceWithContext(error, undefined, {
    andCase: (_, l: Array<ConfigProblem>, r: Array<ConfigProblem>) => [...l, ...r],
    orCase: (_, l: Array<ConfigProblem>, r: Array<ConfigProblem>) => [...l, ...r],
    invalidDataCase: (_, path, message) => [problem(path, message)],
    missingDataCase: (_, path, message) => [problem(path, message)],
    sourceUnavailableCase: (_, path, message) => [problem(path, message)],
    unsupportedCase: (_, path, message) => [problem(path, message)]
  })

const problem = (path: ReadonlyArray<string>, message: string): ConfigProblem => {
  const variable = path.join("_") || "environment"
  return { variable, message: message.replace(/^Expected /, "expected "), hint: hintFor(variable), severity: "error" }
}

/** Rules that span several variables or depend on the environment, checked after the raw load succeeded. */
export const crossFieldProblems = (c: AppConfigShape): Array<ConfigProblem> => {
  const problems: Array<ConfigProblem> = []
  const severity = c.isProduction ? "error" : "warning"
  const secrets = [
    ["SERVICE_JWT_SECRET", c.jwtSecret],
    ["SERVICE_ENCRYPTION_KEY", c.encryptionKey]
  ] as const
  for (const [variable, secret] of secrets) {
    if (Option.isNone(secret)) {
      if (c.isProduction) problems.push({ variable, message: "required in production, not set", hint: hintFor(variable), severity: "error" })
      continue
    }
    for (const weakness of checkSecretStrength(Redacted.value(secret.value))) {
      problems.push({ variable, message: weakness, hint: hintFor(variable), severity })
    }
  }
  if (
    Option.isSome(c.jwtSecret) && Option.isSome(c.encryptionKey) &&
    Redacted.value(c.jwtSecret.value) === Redacted.value(c.encryptionKey.value)
  ) {
    problems.push({
      variable: "SERVICE_ENCRYPTION_KEY",
      message: "must differ from SERVICE_JWT_SECRET",
      hint: hintFor("SERVICE_ENCRYPTION_KEY"),
      severity
    })
  }
  if (c.isProduction && c.corsAllowedOrigins.some((o) => o.includes("*"))) {
    problems.push({
      variable: "SERVICE_CORS_ALLOWED_ORIGINS",
      message: "a wildcard origin is refused in production",
      hint: hintFor("SERVICE_CORS_ALLOWED_ORIGINS"),
      severity: "error"
    })
  }
  if (c.isProduction && Option.isNone(c.databaseUrl)) {
    problems.push({
      variable: "SERVICE_DATABASE_URL",
      message: "not set: production would run on the embedded database",
      hint: hintFor("SERVICE_DATABASE_URL"),
      severity: "warning"
    })
  }
  if (c.workers > 1) {
    // Workers are separate processes: an embedded database or an in-memory cache and bus would be one per worker,
    // and a post written on one would never reach the sockets of another.
    for (const [variable] of inProcessStores(c)) {
      problems.push({ variable, message: "required when SERVICE_WORKERS is more than 1", hint: hintFor(variable), severity: "error" })
    }
  }
  if (c.workersSetting === "auto") {
    // Running one process is what auto is for on an embedded database or an in-memory cache: a notice, never an error.
    for (const [variable, store] of inProcessStores(c)) {
      problems.push({
        variable,
        message: `not set: SERVICE_WORKERS=auto runs 1 process (worker processes cannot share ${store})`,
        hint: hintFor(variable),
        severity: "notice"
      })
    }
  }
  if (Option.isSome(c.webappDir)) {
    const problem = webappDirProblem(c.webappDir.value)
    if (problem !== undefined) problems.push({ variable: "SERVICE_WEBAPP_DIR", message: problem, hint: hintFor("SERVICE_WEBAPP_DIR"), severity: "error" })
  }
  if (Option.isSome(c.filesS3) && Option.isSome(c.filesS3.value.accessKeyId) !== Option.isSome(c.filesS3.value.secretAccessKey)) {
    problems.push({
      variable: "SERVICE_FILES_S3_ACCESS_KEY_ID",
      message: "SERVICE_FILES_S3_ACCESS_KEY_ID and SERVICE_FILES_S3_SECRET_ACCESS_KEY go together",
      hint: hintFor("SERVICE_FILES_S3_ACCESS_KEY_ID"),
      severity: "error"
    })
  }
  if (Option.isSome(c.smtpUrl) && Option.isNone(c.emailFrom)) {
    problems.push({ variable: "SERVICE_EMAIL_FROM", message: "required when SERVICE_SMTP_URL is set", hint: hintFor("SERVICE_EMAIL_FROM"), severity: "error" })
  }
  if (Option.isNone(c.smtpUrl)) {
    const strays = [["SERVICE_SMTP_USERNAME", Option.isSome(c.smtpUsername)], ["SERVICE_SMTP_PASSWORD", Option.isSome(c.smtpPassword)], [
      "SERVICE_EMAIL_FROM",
      Option.isSome(c.emailFrom)
    ]] as const
    for (const [variable, set] of strays) {
      if (set) {
        problems.push({ variable, message: "set without SERVICE_SMTP_URL: no mail is sent", hint: hintFor("SERVICE_SMTP_URL"), severity: "warning" })
      }
    }
  }
  // A stop drains, then waits for the handover and the requests in flight side by side (requests get REQUEST_GRACE).
  const stopTakes = c.shutdownDrainMs + Math.max(c.shutdownHandoverMs, 10_000)
  if (stopTakes >= c.shutdownDeadlineMs) {
    problems.push({
      variable: "SERVICE_SHUTDOWN_DEADLINE_MS",
      message: `a stop may take ${stopTakes} ms (drain ${c.shutdownDrainMs} ms, then handover or the 10 s request grace): the deadline would cut it`,
      hint: hintFor("SERVICE_SHUTDOWN_DEADLINE_MS"),
      severity: "warning"
    })
  }
  // Pairs of settings where the first must not exceed the second.
  const ordered: ReadonlyArray<readonly [string, number, string, number]> = [
    ["SERVICE_HTTP_HEADERS_TIMEOUT_MS", c.httpHeadersTimeoutMs, "SERVICE_HTTP_REQUEST_TIMEOUT_MS", c.httpRequestTimeoutMs],
    ["SERVICE_DB_POOL__MIN_CONNECTIONS", c.dbPoolMin, "SERVICE_DB_POOL__MAX_CONNECTIONS", c.dbPoolMax]
  ]
  for (const [variable, value, limitVariable, limit] of ordered) {
    if (value > limit) {
      problems.push({ variable, message: `must not exceed ${limitVariable} (${limit})`, hint: hintFor(variable), severity: "error" })
    }
  }
  return problems
}

/** Why a directory is not a web app build the service can serve, if it is not. */
const webappDirProblem = (dir: string): string | undefined => {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return `${dir} is not a directory`
  const index = join(dir, "root.html")
  if (!existsSync(index) || !statSync(index).isFile()) return `${dir} holds no root.html: not a Mattermost web app build`
  return undefined
}

export interface ConfigReport {
  readonly config: Option.Option<AppConfigShape>
  readonly problems: ReadonlyArray<ConfigProblem>
}

/** Loads the configuration and lists every problem without failing: the shared core of start-up and `--check-config`. */
export const inspectConfig: Effect.Effect<ConfigReport> = Effect.gen(function*() {
  const loaded = yield* Effect.either(rawConfig)
  if (Either.isLeft(loaded)) return { config: Option.none(), problems: configErrorProblems(loaded.left) }
  return { config: Option.some(loaded.right), problems: crossFieldProblems(loaded.right) }
})

/** A layer that fails start-up with every problem listed, used by tests that need the plain config. */
export const layerFrom = (config: ResolvedConfig) => Layer.succeed(AppConfig, config)

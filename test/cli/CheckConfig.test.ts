import { describe, expect, it } from "vitest"
import { startS3 } from "../support/S3Server.ts"
import { FROM_BUILD, runCli } from "./Cli.ts"

const JWT = "Vh3kP9qW2mZx7Lr5Tn8Bc4Fd6Gs1Jy0E"
const KEY = "Nq7Zt2Wx5Km9Pr3Hv8Ld1Fs6Bj4Gc0Ya"
const DB_PASSWORD = "db-pass-Qm4Rt8"
const CACHE_PASSWORD = "cache-pass-Zx2Wk6"

const production = {
  SERVICE_ENVIRONMENT: "production",
  SERVICE_JWT_SECRET: JWT,
  SERVICE_ENCRYPTION_KEY: KEY,
  SERVICE_DATABASE_URL: `postgres://chat:${DB_PASSWORD}@db.internal:5432/chat`,
  SERVICE_CACHE_URL: `redis://cache.internal:6379/0?password=${CACHE_PASSWORD}`,
  SERVICE_SITE_URL: "https://chat.example.com",
  SERVICE_CORS_ALLOWED_ORIGINS: "https://chat.example.com"
}

// The production build (built once by the global setup) starts several times faster than the sources through tsx,
// and this file starts the CLI many times.
const checkConfig = (vars: Record<string, string>) => runCli(["--check-config"], vars, 110_000, FROM_BUILD)

/** Secrets that break one rule each, with the words of the problem reported. */
const weakSecrets = {
  tooShort: ["Xk9mP2qRz", /must be at least 32 characters/],
  repeated: ["k8Q!".repeat(10), /is a repeated pattern/],
  weakWord: [`password${JWT.slice(8)}`, /contains the common weak pattern "password"/],
  lowEntropy: ["01101001100101101001011001101001", /has too little entropy/]
} as const

/** Each run breaks one rule in each secret, so that four rules take two processes per environment. */
const pairs = [
  ["too short", weakSecrets.tooShort, "a repeated pattern", weakSecrets.repeated],
  ["a common weak word", weakSecrets.weakWord, "low entropy", weakSecrets.lowEntropy]
] as const

describe.concurrent("--check-config", { timeout: 120_000 }, () => {
  it("checks that the S3 bucket answers when one is configured", async () => {
    const s3 = await startS3("checked-bucket")
    const ok = await checkConfig(s3.env)
    expect(ok.code).toBe(0)
    expect(ok.stdout).toMatch(/files\s+S3 bucket checked-bucket at http:\/\/127\.0\.0\.1:\d+ \(path style\)/)
    expect(ok.output).not.toContain("S3RVER")
    const missing = await checkConfig({ ...s3.env, SERVICE_FILES_S3_BUCKET: "no-such-bucket" })
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('SERVICE_FILES_S3_BUCKET: the bucket "no-such-bucket" does not answer')
    const half = await checkConfig({ SERVICE_FILES_S3_BUCKET: "b", SERVICE_FILES_S3_ACCESS_KEY_ID: "only-the-id" })
    expect(half.code).toBe(1)
    expect(half.stderr).toContain("SERVICE_FILES_S3_ACCESS_KEY_ID and SERVICE_FILES_S3_SECRET_ACCESS_KEY go together")
  })

  it("accepts a valid production configuration and prints a redacted summary", async () => {
    const result = await checkConfig(production)
    expect(result.code).toBe(0)
    expect(result.stdout).toContain("configuration valid")
    expect(result.stdout).toMatch(/environment\s+production/)
    expect(result.stdout).toMatch(/JWT secret\s+set \(redacted\)/)
    expect(result.stdout).toContain("postgres://chat:***@db.internal:5432/chat")
    expect(result.stdout).toContain("redis://cache.internal:6379/0?password=***")
    for (const secret of [JWT, KEY, DB_PASSWORD, CACHE_PASSWORD]) expect(result.output).not.toContain(secret)
  })

  for (const [jwtRule, [jwt, jwtProblem], keyRule, [key, keyProblem]] of pairs) {
    it(`production fails on a JWT secret that is ${jwtRule} and a key that is ${keyRule}, naming each with a hint`, async () => {
      const result = await checkConfig({ ...production, SERVICE_JWT_SECRET: jwt, SERVICE_ENCRYPTION_KEY: key })
      expect(result.code).toBe(1)
      expect(result.stderr).toMatch(new RegExp(`✗ SERVICE_JWT_SECRET: ${jwtProblem.source}.*\n\\s+hint: generate one with: openssl rand`))
      expect(result.stderr).toMatch(new RegExp(`✗ SERVICE_ENCRYPTION_KEY: ${keyProblem.source}.*\n\\s+hint: generate one with: openssl rand`))
      expect(result.stderr).toContain("configuration invalid")
      expect(result.output).not.toContain(jwt)
      expect(result.output).not.toContain(key)
    })

    it(`development only warns about a JWT secret that is ${jwtRule} and a key that is ${keyRule}`, async () => {
      const result = await checkConfig({ SERVICE_JWT_SECRET: jwt, SERVICE_ENCRYPTION_KEY: key })
      expect(result.code).toBe(0)
      expect(result.stderr).toMatch(new RegExp(`! SERVICE_JWT_SECRET: ${jwtProblem.source}.* \\(warning outside production\\)`))
      expect(result.stderr).toMatch(new RegExp(`! SERVICE_ENCRYPTION_KEY: ${keyProblem.source}.* \\(warning outside production\\)`))
      expect(result.stdout).toMatch(/configuration valid \(\d+ warnings\)/)
      expect(result.output).not.toContain(jwt)
      expect(result.output).not.toContain(key)
    })
  }

  it("a JWT secret equal to the encryption key fails production and warns in development", async () => {
    const prod = await checkConfig({ ...production, SERVICE_ENCRYPTION_KEY: JWT })
    expect(prod.code).toBe(1)
    expect(prod.stderr).toContain("SERVICE_ENCRYPTION_KEY: must differ from SERVICE_JWT_SECRET")
    const dev = await checkConfig({ SERVICE_JWT_SECRET: JWT, SERVICE_ENCRYPTION_KEY: JWT })
    expect(dev.code).toBe(0)
    expect(dev.stderr).toMatch(/SERVICE_ENCRYPTION_KEY: must differ from SERVICE_JWT_SECRET \(warning outside production\)/)
  })

  it("production refuses missing secrets, naming both", async () => {
    const { SERVICE_JWT_SECRET: _jwt, SERVICE_ENCRYPTION_KEY: _key, ...rest } = production
    const result = await checkConfig(rest)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain("SERVICE_JWT_SECRET: required in production, not set")
    expect(result.stderr).toContain("SERVICE_ENCRYPTION_KEY: required in production, not set")
  })

  it("development with nothing set is valid: secrets are generated at start-up", async () => {
    const result = await checkConfig({})
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/JWT secret\s+unset: generated in the data directory/)
    expect(result.stdout).toMatch(/database\s+embedded PostgreSQL/)
  })

  it("refuses query-string WebSocket tokens in any environment", async () => {
    const result = await checkConfig({ SERVICE_SECURITY_WS_ALLOW_QUERY_TOKEN: "true" })
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/SERVICE_SECURITY_WS_ALLOW_QUERY_TOKEN: .*must be false/)
    expect(result.stderr).toMatch(/hint: unset it or set it to false/)
  })

  it("checks the stop and the listener's limits: out of range, headers over the request timeout, a drain the deadline would cut", async () => {
    const bad = await checkConfig({
      SERVICE_WS_ACTIONS_BURST: "0",
      SERVICE_SECURITY_MAX_CONNECTIONS_PER_CLIENT: "-1",
      SERVICE_HTTP_HEADERS_TIMEOUT_MS: "60000",
      SERVICE_HTTP_REQUEST_TIMEOUT_MS: "30000"
    })
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/SERVICE_WS_ACTIONS_BURST: .*between 1 and 100000/)
    expect(bad.stderr).toMatch(/SERVICE_SECURITY_MAX_CONNECTIONS_PER_CLIENT: .*between 0 and 1000000/)
    // Cross-field rules run once every variable is valid on its own.
    const crossed = await checkConfig({ SERVICE_HTTP_HEADERS_TIMEOUT_MS: "60000", SERVICE_HTTP_REQUEST_TIMEOUT_MS: "30000" })
    expect(crossed.code).toBe(1)
    expect(crossed.stderr).toContain("SERVICE_HTTP_HEADERS_TIMEOUT_MS: must not exceed SERVICE_HTTP_REQUEST_TIMEOUT_MS (30000)")
    const long = await checkConfig({ SERVICE_SHUTDOWN_DRAIN_MS: "25000" })
    expect(long.code).toBe(0)
    expect(long.stderr).toMatch(/! SERVICE_SHUTDOWN_DEADLINE_MS: a stop may take 35000 ms \(drain 25000 ms.*the deadline would cut it/)
  })

  it("refuses any OAuth token delivery but cookie", async () => {
    const result = await checkConfig({ SERVICE_SECURITY_OAUTH_TOKEN_DELIVERY: "query" })
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/SERVICE_SECURITY_OAUTH_TOKEN_DELIVERY: only `cookie` is supported/)
  })

  for (const [variable, value] of [
    ["SERVICE_DATABASE_URL", "mysql://db.internal/chat"],
    ["SERVICE_CACHE_URL", "not a url"],
    ["SERVICE_SITE_URL", "chat.example.com"],
    ["SERVICE_PORT", "70000"]
  ] as const) {
    it(`refuses ${variable}=${value} naming the variable`, async () => {
      const result = await checkConfig({ ...production, [variable]: value })
      expect(result.code).toBe(1)
      expect(result.stderr).toMatch(new RegExp(`✗ ${variable}: `))
      expect(result.stderr).toContain("hint: ")
    })
  }

  it("lists every problem at once", async () => {
    const result = await checkConfig({
      SERVICE_PORT: "abc",
      SERVICE_CACHE_URL: "http://cache",
      SERVICE_LOG_LEVEL: "Loud",
      SERVICE_TRUSTED_PROXIES: "10.0.0.0/8,proxy.internal",
      SERVICE_SECURITY_RATE_LIMIT_AUTH_PER_MINUTE: "0"
    })
    expect(result.code).toBe(1)
    for (const variable of ["SERVICE_PORT", "SERVICE_CACHE_URL", "SERVICE_LOG_LEVEL", "SERVICE_TRUSTED_PROXIES", "SERVICE_SECURITY_RATE_LIMIT_AUTH_PER_MINUTE"]) {
      expect(result.stderr).toMatch(new RegExp(`✗ ${variable}: .+\\n\\s+hint: .+`))
    }
    expect(result.stderr).toContain("configuration invalid: 5 problems")
  })

  it("validates SERVICE_ALLOW_INTERNAL_CONNECTIONS: host names, addresses and CIDR ranges, nothing else", async () => {
    const good = await checkConfig({ SERVICE_ALLOW_INTERNAL_CONNECTIONS: "ci.internal, 10.0.5.0/24,127.0.0.1,fd00::/8" })
    expect(good.code).toBe(0)
    expect(good.stdout).toMatch(/internal hosts\s+ci\.internal, 10\.0\.5\.0\/24, 127\.0\.0\.1, fd00::\/8/)
    const none = await checkConfig({})
    expect(none.stdout).toMatch(/internal hosts\s+\(none: integrations reach public addresses only\)/)
    for (const bad of ["10.0.0.0/33", "http://ci.internal", "10.0.0.0/8/1", "bad host!"]) {
      const result = await checkConfig({ SERVICE_ALLOW_INTERNAL_CONNECTIONS: bad })
      expect(result.code).toBe(1)
      expect(result.stderr).toMatch(/✗ SERVICE_ALLOW_INTERNAL_CONNECTIONS: .+\n\s+hint: a comma-separated list of host names/)
    }
  })

  it("refuses a CORS wildcard in production only", async () => {
    const prod = await checkConfig({ ...production, SERVICE_CORS_ALLOWED_ORIGINS: "https://chat.example.com,*" })
    expect(prod.code).toBe(1)
    expect(prod.stderr).toContain("SERVICE_CORS_ALLOWED_ORIGINS: a wildcard origin is refused in production")
    const dev = await checkConfig({ SERVICE_CORS_ALLOWED_ORIGINS: "*" })
    expect(dev.code).toBe(0)
  })

  it("accepts SERVICE_WEBAPP_DIR naming a web app build and refuses a directory without root.html", async () => {
    const build = new URL("../fixtures/webapp", import.meta.url).pathname
    const good = await checkConfig({ SERVICE_WEBAPP_DIR: build })
    expect(good.code).toBe(0)
    expect(good.stdout).toMatch(new RegExp(`web app\\s+${build}`))
    const empty = await checkConfig({ SERVICE_WEBAPP_DIR: new URL("../fixtures/webapp/emoji", import.meta.url).pathname })
    expect(empty.code).toBe(1)
    expect(empty.stderr).toMatch(/✗ SERVICE_WEBAPP_DIR: .*holds no root\.html.*\n\s+hint: the client\/ folder of a Mattermost 10\.11 release/)
    const missing = await checkConfig({ SERVICE_WEBAPP_DIR: "/nonexistent/webapp" })
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain("✗ SERVICE_WEBAPP_DIR: /nonexistent/webapp is not a directory")
  })

  it("validates the SMTP settings: scheme, a from address when set, and the password kept out of the summary", async () => {
    const SMTP_PASSWORD = "smtp-pass-Hq7Lw3"
    const good = await checkConfig({
      ...production,
      SERVICE_SMTP_URL: `smtps://mailer:${SMTP_PASSWORD}@mail.example.com:465`,
      SERVICE_EMAIL_FROM: "Chat <chat@example.com>"
    })
    expect(good.code).toBe(0)
    expect(good.stdout).toMatch(/email\s+smtps:\/\/mailer:\*\*\*@mail\.example\.com:465, from Chat <chat@example\.com>/)
    expect(good.output).not.toContain(SMTP_PASSWORD)
    const bad = await checkConfig({ ...production, SERVICE_SMTP_URL: "http://mail.example.com", SERVICE_EMAIL_FROM: "not an address" })
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/✗ SERVICE_SMTP_URL: must be a URL with scheme smtp or smtps\n\s+hint: /)
    expect(bad.stderr).toMatch(/✗ SERVICE_EMAIL_FROM: must be an email address/)
    const noFrom = await checkConfig({ ...production, SERVICE_SMTP_URL: "smtp://mail.example.com:587" })
    expect(noFrom.code).toBe(1)
    expect(noFrom.stderr).toContain("✗ SERVICE_EMAIL_FROM: required when SERVICE_SMTP_URL is set")
    const off = await checkConfig({})
    expect(off.stdout).toMatch(/email\s+off/)
  })
})

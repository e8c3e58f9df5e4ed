import { randomBytes } from "node:crypto"
import { inject } from "vitest"
import { atFileEnd } from "./Cleanup.ts"
import { createDatabase, databaseUrl, deleteRedisKeys, dropDatabase } from "./Leftovers.ts"
import { redisPrefix } from "./Run.ts"

/**
 * A fresh, empty database for one test file, on the PostgreSQL the global setup found; dropped when the file ends
 * (with FORCE: a server the file did not close must not keep it).
 */
export const createTestDatabase = async (): Promise<string> => {
  const adminUrl = inject("pgAdminUrl")
  const name = await createDatabase(adminUrl, inject("testRun"))
  atFileEnd(`drop database ${name}`, () => dropDatabase(adminUrl, name, true))
  return databaseUrl(adminUrl, name)
}

/**
 * A database with every migration already applied: a copy of the one the global setup migrated (globalSetup.ts),
 * for servers started in the tests' own process (TestServer.ts). Migrating each one afresh took about 0.4 s of every
 * server's start; the server's migrator still runs and finds nothing to do. Tests of the migrations themselves, and
 * of processes that start on an empty database, use `createTestDatabase`.
 */
export const createMigratedDatabase = async (): Promise<string> => {
  const adminUrl = inject("pgAdminUrl")
  const name = await createDatabase(adminUrl, inject("testRun"), inject("pgTemplate"))
  atFileEnd(`drop database ${name}`, () => dropDatabase(adminUrl, name, true))
  return databaseUrl(adminUrl, name)
}

export const redisUrl = (): string => inject("redisUrl")
export const hasRedis = (): boolean => inject("redisUrl") !== ""

/** A Redis key prefix of this run for one test file; its keys are deleted when the file ends. */
export const redisKeyPrefix = (): string => {
  const prefix = `${redisPrefix(inject("testRun"))}${randomBytes(4).toString("hex")}:`
  if (hasRedis()) atFileEnd(`delete Redis keys ${prefix}*`, () => deleteRedisKeys(redisUrl(), prefix))
  return prefix
}

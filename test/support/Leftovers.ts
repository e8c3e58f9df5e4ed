import { Redis } from "ioredis"
import { readdirSync, statSync } from "node:fs"
import { join } from "node:path"
import pg from "pg"
import { removeDir } from "./Cleanup.ts"
import { databaseName, databasePattern, isStaleTag, redisPrefix, STALE_AFTER_MS, tagOfDatabase, tagOfRedisKey, tagOfTmpRoot } from "./Run.ts"

/**
 * Creating the run's databases (named as Run.ts says; here rather than in Databases.ts, whose vitest `inject` the
 * global setup cannot use) and removing what test runs leave: everything of the run that just ended (its files are
 * done, so even a database a crashed worker still held is dropped, with FORCE), and what earlier runs that crashed
 * left (see Run.ts for how a leftover is told from the work of a run in progress; those are dropped only when nobody
 * is connected to them).
 */

const withClient = async <A>(url: string, f: (client: pg.Client) => Promise<A>) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await f(client)
  } finally {
    await client.end()
  }
}

const quote = (name: string) => `"${name.replaceAll("\"", "\"\"")}"`

/** Creates a database named after the run tagged `tag`, empty or a copy of `template`; its name. */
export const createDatabase = async (adminUrl: string, tag: string, template?: string): Promise<string> => {
  const name = databaseName(tag)
  await withClient(adminUrl, (c) => c.query(template === undefined ? `CREATE DATABASE ${name}` : `CREATE DATABASE ${name} TEMPLATE ${template}`))
  return name
}

export const databaseUrl = (adminUrl: string, name: string) => {
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return url.toString()
}

export const dropDatabase = (adminUrl: string, name: string, force: boolean) =>
  withClient(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${quote(name)}${force ? " WITH (FORCE)" : ""}`))

/** Every database of the run tagged `tag`; their names. */
export const dropRunDatabases = (adminUrl: string, tag: string) =>
  withClient(adminUrl, async (c) => {
    const { rows } = await c.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [databasePattern(tag)])
    for (const { datname } of rows) await c.query(`DROP DATABASE IF EXISTS ${quote(datname)} WITH (FORCE)`)
    return rows.map((r) => r.datname)
  })

/** Databases named by the test support before run tags existed (`test_` and 12 hex digits). */
const LEGACY_DATABASE = /^test_[0-9a-f]{12}$/

/**
 * Databases of crashed runs nobody is connected to; names of those dropped. A database from before run tags counts
 * when its directory has not changed for STALE_AFTER_MS (pg_stat_file needs a superuser; without one they stay).
 */
export const dropStaleDatabases = (adminUrl: string, now = Date.now()) =>
  withClient(adminUrl, async (c) => {
    const { rows } = await c.query<{ datname: string; oid: number; connections: string }>(
      `SELECT d.datname, d.oid, (SELECT count(*) FROM pg_stat_activity a WHERE a.datid = d.oid) AS connections
         FROM pg_database d WHERE d.datname LIKE 'test\\_%'`
    )
    const dropped: Array<string> = []
    for (const row of rows) {
      if (Number(row.connections) > 0) continue
      const tag = tagOfDatabase(row.datname)
      let stale = tag !== undefined && isStaleTag(tag, now)
      if (tag === undefined && LEGACY_DATABASE.test(row.datname)) {
        const changed = await c.query<{ modification: Date }>(`SELECT (pg_stat_file('base/' || $1::text)).modification`, [row.oid])
          .then((r) => r.rows[0]?.modification, () => undefined)
        stale = changed !== undefined && now - changed.getTime() > STALE_AFTER_MS
      }
      if (!stale) continue
      // Without FORCE: should a client have connected since, the drop fails and the database stays.
      const ok = await c.query(`DROP DATABASE IF EXISTS ${quote(row.datname)}`).then(() => true, () => false)
      if (ok) dropped.push(row.datname)
    }
    return dropped
  })

const redisClient = (url: string) => {
  const client = new Redis(url, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 1 })
  client.on("error", () => {})
  return client
}

const scanKeys = async (client: Redis, match: string) => {
  const keys: Array<string> = []
  let cursor = "0"
  do {
    const [next, batch] = await client.scan(cursor, "MATCH", match, "COUNT", 1000)
    cursor = next
    keys.push(...batch)
  } while (cursor !== "0")
  return keys
}

/** Deletes the keys starting with `prefix` (a test file's or a run's); how many there were. */
export const deleteRedisKeys = async (url: string, prefix: string) => {
  const client = redisClient(url)
  try {
    await client.connect()
    const keys = await scanKeys(client, `${prefix.replace(/[*?[\]\\]/g, "\\$&")}*`)
    for (let i = 0; i < keys.length; i += 500) await client.unlink(...keys.slice(i, i + 500))
    return keys.length
  } finally {
    client.disconnect()
  }
}

export const deleteRunRedisKeys = (url: string, tag: string) => deleteRedisKeys(url, redisPrefix(tag))

/** Keys of crashed runs (`test:<tag>:…`); how many were deleted. */
export const deleteStaleRedisKeys = async (url: string, now = Date.now()) => {
  const client = redisClient(url)
  try {
    await client.connect()
    const stale = (await scanKeys(client, "test:*")).filter((key) => {
      const tag = tagOfRedisKey(key)
      return tag !== undefined && isStaleTag(tag, now)
    })
    for (let i = 0; i < stale.length; i += 500) await client.unlink(...stale.slice(i, i + 500))
    return stale.length
  } finally {
    client.disconnect()
  }
}

/** Directories the test support created under the system temporary directory before run directories existed. */
const LEGACY_TMP = /^(service-test-data-|service-test-pg-|service-cli-|service-startup-|service-node-|filestore-|fake-apns-)/

/** Run directories of crashed runs, and old directories from before them, under `base`; their names. */
export const removeStaleTmp = async (base: string, now = Date.now()) => {
  const removed: Array<string> = []
  for (const name of readdirSync(base)) {
    const path = join(base, name)
    const tag = tagOfTmpRoot(name)
    let stale = tag !== undefined && isStaleTag(tag, now)
    if (tag === undefined && LEGACY_TMP.test(name)) {
      const changed = (() => {
        try {
          return statSync(path).mtimeMs
        } catch {
          return undefined
        }
      })()
      stale = changed !== undefined && now - changed > STALE_AFTER_MS
    }
    if (!stale) continue
    await removeDir(path)
    removed.push(name)
  }
  return removed
}

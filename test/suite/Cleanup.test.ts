import { spawn } from "node:child_process"
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Redis } from "ioredis"
import pg from "pg"
import { describe, expect, inject, it } from "vitest"
import { atFileEnd } from "../support/Cleanup.ts"
import { hasRedis, redisUrl } from "../support/Databases.ts"
import setup from "../support/globalSetup.ts"
import { createDatabase, databaseUrl, dropDatabase } from "../support/Leftovers.ts"
import { formatTag, hostHash, redisPrefix, TMP_ROOT_PREFIX } from "../support/Run.ts"

/**
 * The suite's global set-up and teardown, run here a second time as a run of its own: everything named after that run
 * is gone afterwards, and so is what a run that crashed on this machine left, while the work of runs still in progress
 * (this one, or one on another host that started recently) is left alone.
 */
const adminUrl = inject("pgAdminUrl")
const HOUR = 60 * 60 * 1000

const databasesOf = async (tag: string) => {
  const client = new pg.Client({ connectionString: adminUrl })
  await client.connect()
  try {
    const { rows } = await client.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE $1 ORDER BY datname`, [`test\\_${tag.replaceAll("_", "\\_")}\\_%`])
    return rows.map((r) => r.datname)
  } finally {
    await client.end()
  }
}

/** A pid that no process has any more: a child that ran and exited. */
const exitedPid = () =>
  new Promise<number>((resolve, reject) => {
    const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" })
    child.on("error", reject)
    child.on("exit", () => resolve(child.pid!))
  })

/** A database of the run tagged `tag`, dropped at the end of this file whatever happens to it here. */
const leftover = async (tag: string) => {
  const name = await createDatabase(adminUrl, tag)
  atFileEnd(`drop database ${name}`, () => dropDatabase(adminUrl, name, true))
  return name
}

describe("the suite's global set-up and teardown", () => {
  it("remove their run's databases, Redis keys and temporary directory, and what crashed runs left, but nothing of a run in progress", async () => {
    const now = Date.now()
    const crashedHere = formatTag({ pid: await exitedPid(), startedMs: now - 60_000, host: hostHash() })
    // Started a few seconds ago: a tag of this second would be the very tag the set-up below gives its own run.
    const runningHere = formatTag({ pid: process.pid, startedMs: now - 5_000, host: hostHash() })
    const oldElsewhere = formatTag({ pid: 1, startedMs: now - 13 * HOUR, host: hostHash("another-ci-runner") })
    const recentElsewhere = formatTag({ pid: 1, startedMs: now - HOUR, host: hostHash("another-ci-runner") })

    await leftover(crashedHere)
    const crashedButInUse = await leftover(crashedHere)
    const running = await leftover(runningHere)
    await leftover(oldElsewhere)
    const recent = await leftover(recentElsewhere)
    const user = new pg.Client({ connectionString: databaseUrl(adminUrl, crashedButInUse) })
    user.on("error", () => {}) // the forced drop at the end of the file ends this connection if an assertion fails first
    await user.connect()

    const base = tmpdir()
    const crashedDir = join(base, `${TMP_ROOT_PREFIX}${crashedHere}`)
    const runningDir = join(base, `${TMP_ROOT_PREFIX}${runningHere}`)
    atFileEnd(`remove ${runningDir}`, () => rmSync(runningDir, { recursive: true, force: true }))
    for (const dir of [crashedDir, runningDir]) {
      mkdirSync(join(dir, "service-test-data-x"), { recursive: true })
      writeFileSync(join(dir, "service-test-data-x", "secrets.json"), "{}")
    }

    const redis = hasRedis() ? new Redis(redisUrl()) : undefined
    await redis?.set(`${redisPrefix(crashedHere)}ab12:session:1`, "x")
    await redis?.set(`${redisPrefix(runningHere)}ab12:session:1`, "x", "PX", 60_000)

    const provided = new Map<string, unknown>()
    const outerTmpdir = process.env.TMPDIR
    const teardown = await setup({ provide: ((key: string, value: unknown) => provided.set(key, value)) as never })
    let tag = ""
    let leaked: pg.Client | undefined
    try {
      tag = String(provided.get("testRun"))
      expect(provided.get("pgAdminUrl")).toBe(adminUrl)
      expect(process.env.TMPDIR).toBe(join(base, `${TMP_ROOT_PREFIX}${tag}`))
      expect(existsSync(crashedDir)).toBe(false)

      // What the run's test files would create: databases (one still held by a pool a crashed worker left open), keys
      // under the run's prefix, files under its TMPDIR.
      // The run's migrated template (globalSetup.ts) is one of its databases, and copies of it are the rest.
      const template = String(provided.get("pgTemplate"))
      const mine = [template, await createDatabase(adminUrl, tag, template), await createDatabase(adminUrl, tag)].sort()
      expect(await databasesOf(tag)).toEqual(mine)
      leaked = new pg.Client({ connectionString: databaseUrl(adminUrl, mine[0]!) })
      leaked.on("error", () => {})
      await leaked.connect()
      await redis?.set(`${redisPrefix(tag)}cd34:cache:forever`, "kept")
      writeFileSync(join(tmpdir(), "upload.bin"), "bytes")
    } finally {
      await teardown?.()
    }
    expect(process.env.TMPDIR).toBe(outerTmpdir)

    expect(await databasesOf(tag)).toEqual([])
    expect(existsSync(join(base, `${TMP_ROOT_PREFIX}${tag}`))).toBe(false)
    expect(await databasesOf(crashedHere)).toEqual([crashedButInUse])
    expect(await databasesOf(runningHere)).toEqual([running])
    expect(await databasesOf(oldElsewhere)).toEqual([])
    expect(await databasesOf(recentElsewhere)).toEqual([recent])
    expect(existsSync(runningDir)).toBe(true)
    if (redis !== undefined) {
      expect(await redis.keys(`${redisPrefix(tag)}*`)).toEqual([])
      expect(await redis.keys(`${redisPrefix(crashedHere)}*`)).toEqual([])
      expect(await redis.keys(`${redisPrefix(runningHere)}*`)).toHaveLength(1)
      await redis.del(`${redisPrefix(runningHere)}ab12:session:1`)
      redis.disconnect()
    }
    await user.end()
  })
})

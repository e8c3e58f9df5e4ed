import { createHash, randomBytes } from "node:crypto"
import { existsSync, readFileSync } from "node:fs"
import { hostname } from "node:os"

/**
 * Names of what a test run creates carry the run's tag: the pid of the process that ran the global setup, its start
 * time (seconds, base 36) and a hash of the host name, e.g. `test_48213_t4k2mw_9c1f0a_5e0b…` for a database. A later
 * run can then tell leftovers of a crashed run (same host and that process gone, or started long ago on another host)
 * from the databases of a run still in progress elsewhere on the same PostgreSQL, and leaves the latter alone.
 */
export interface RunTag {
  readonly pid: number
  readonly startedMs: number
  readonly host: string
}

/** A run on another host is presumed dead this long after it started (the whole suite takes minutes). */
export const STALE_AFTER_MS = 12 * 60 * 60 * 1000

export const hostHash = (name = hostname()) => createHash("sha256").update(name).digest("hex").slice(0, 6)

export const formatTag = (tag: RunTag) => `${tag.pid}_${Math.floor(tag.startedMs / 1000).toString(36)}_${tag.host}`

export const newTag = (): string => formatTag({ pid: process.pid, startedMs: Date.now(), host: hostHash() })

const TAG = /^(\d+)_([0-9a-z]+)_([0-9a-f]{6})$/

export const parseTag = (text: string): RunTag | undefined => {
  const match = TAG.exec(text)
  if (match === null) return undefined
  return { pid: Number(match[1]), startedMs: parseInt(match[2]!, 36) * 1000, host: match[3]! }
}

export const databaseName = (tag: string) => `test_${tag}_${randomBytes(6).toString("hex")}`
/** The LIKE pattern of a run's databases (`_` escaped). */
export const databasePattern = (tag: string) => `test\\_${tag.replaceAll("_", "\\_")}\\_%`
export const tagOfDatabase = (name: string) => /^test_(\d+_[0-9a-z]+_[0-9a-f]{6})_[0-9a-f]+$/.exec(name)?.[1]

export const redisPrefix = (tag: string) => `test:${tag}:`
export const tagOfRedisKey = (key: string) => /^test:(\d+_[0-9a-z]+_[0-9a-f]{6}):/.exec(key)?.[1]

export const TMP_ROOT_PREFIX = "service-test-run-"
export const tagOfTmpRoot = (name: string) => name.startsWith(TMP_ROOT_PREFIX) ? name.slice(TMP_ROOT_PREFIX.length) : undefined

/** A live Node process with that pid (a pid reused by another program does not count). */
const nodeProcessAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false
  }
  const cmdline = `/proc/${pid}/cmdline`
  if (!existsSync(cmdline)) return true
  try {
    return readFileSync(cmdline, "utf8").includes("node")
  } catch {
    return true
  }
}

/** Whether what a run tagged `text` created is clearly left over: never for the current run or a live one here. */
export const isStaleTag = (text: string, now = Date.now()): boolean => {
  const tag = parseTag(text)
  if (tag === undefined) return false
  if (tag.host === hostHash()) return !nodeProcessAlive(tag.pid)
  return now - tag.startedMs > STALE_AFTER_MS
}

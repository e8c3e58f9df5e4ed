import { Clock, Duration, Effect, Schedule } from "effect"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { newId } from "../../layers/Crypto.ts"
import { EXPORT_NAME } from "../../schemas/native/ConsoleReports.ts"
import { AppConfig } from "../Config.ts"
import { exportTo } from "./Exporter.ts"

/**
 * Exports started from the System Console: each writes a Mattermost bulk export (a zip with the files, no password
 * hashes) into SERVICE_DATA_DIR/exports in a daemon fiber of the node that took the request. The folder is the
 * record, so no table is needed and an operator can copy or delete exports by hand: `NAME.running` marks one in
 * progress, `NAME.failed` holds why one failed, and `NAME` alone is a finished export.
 *
 * A running export touches its marker every HEARTBEAT_MS. A marker untouched for STALE_MS belongs to an export whose
 * node stopped before it finished (a crash, a kill, a restart): it is listed as failed, so the console does not show
 * it running for ever. The time is the marker's own mtime, so any node sharing the folder (workers of one machine, or
 * nodes on a shared volume) judges it alike, with no record of which process owns it.
 */
export interface ExportJob {
  readonly name: string
  readonly status: "running" | "succeeded" | "failed"
  readonly size: number
  readonly update_at: number
  readonly error: string
}

export const HEARTBEAT_MS = 15_000
export const STALE_MS = 120_000
export const INTERRUPTED = "interrupted: the node running this export stopped before it finished"

/** The newest this many are listed. */
export const MAX_LISTED = 100

export const exportsDir = Effect.map(AppConfig, (config) => path.resolve(config.dataDir, "exports"))

const stamp = (ms: number) => new Date(ms).toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15)

const statOf = (file: string) => fs.stat(file).then((s) => s, () => undefined)

const describe = (e: unknown) => (typeof e === "object" && e !== null && "message" in e ? String(e.message) : String(e)).slice(0, 1000)

export const start = Effect.gen(function*() {
  const dir = yield* exportsDir
  const name = `export-${stamp(yield* Clock.currentTimeMillis)}-${newId().slice(0, 6)}.zip`
  const file = path.join(dir, name)
  yield* Effect.promise(async () => {
    await fs.mkdir(dir, { recursive: true })
    await fs.writeFile(`${file}.running`, "")
  })
  const marker = `${file}.running`
  const heartbeat = Effect.flatMap(Clock.currentTimeMillis, (now) =>
    Effect.promise(() => fs.utimes(marker, now / 1000, now / 1000).catch(() => undefined))).pipe(
      Effect.repeat(Schedule.spaced(Duration.millis(HEARTBEAT_MS)))
    )
  // The marker goes last: an export seen as finished is complete on disk.
  const run = Effect.scoped(Effect.zipRight(Effect.forkScoped(heartbeat), exportTo(file, { passwordHashes: false }))).pipe(
    Effect.zipRight(Effect.promise(() => fs.rm(`${file}.running`, { force: true }))),
    Effect.catchAllCause((cause) =>
      Effect.zipRight(
        Effect.logWarning("export failed", cause),
        Effect.promise(async () => {
          await fs.rm(file, { force: true })
          await fs.writeFile(`${file}.failed`, describe(cause._tag === "Fail" ? cause.error : cause))
          await fs.rm(`${file}.running`, { force: true })
        })
      ))
  )
  yield* Effect.forkDaemon(run)
  return yield* find(name)
})

export const find = (name: string) =>
  Effect.gen(function*() {
    const dir = yield* exportsDir
    const now = yield* Clock.currentTimeMillis
    return yield* Effect.promise(async (): Promise<ExportJob | undefined> => {
      const file = path.join(dir, name)
      const [running, failed, done] = await Promise.all([statOf(`${file}.running`), statOf(`${file}.failed`), statOf(file)])
      if (running && now - running.mtimeMs > STALE_MS) {
        return { name, status: "failed", size: 0, update_at: running.mtimeMs, error: INTERRUPTED }
      }
      if (running) return { name, status: "running", size: done?.size ?? 0, update_at: Math.max(running.mtimeMs, done?.mtimeMs ?? 0), error: "" }
      if (failed) return { name, status: "failed", size: 0, update_at: failed.mtimeMs, error: await fs.readFile(`${file}.failed`, "utf8") }
      if (done) return { name, status: "succeeded", size: done.size, update_at: done.mtimeMs, error: "" }
      return undefined
    })
  })

/** The exports of the folder, newest first (their names begin with the time they started). */
export const list = Effect.gen(function*() {
  const dir = yield* exportsDir
  const entries = yield* Effect.promise(() => fs.readdir(dir).catch(() => [] as Array<string>))
  const names = [...new Set(entries.map((e) => e.replace(/\.(running|failed)$/, "")).filter((n) => EXPORT_NAME.test(n)))]
    .sort().reverse().slice(0, MAX_LISTED)
  const jobs = yield* Effect.forEach(names, find, { concurrency: 8 })
  return jobs.filter((j): j is ExportJob => j !== undefined)
})

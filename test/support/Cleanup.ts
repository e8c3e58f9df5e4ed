import { chmodSync, type Dirent, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/**
 * What a test file created and must remove when it ends: registered here, run by the afterAll hook of
 * test/support/fileSetup.ts after the file's own hooks (also when its tests failed or timed out). Whatever a crashed
 * worker leaves is removed by the global teardown (test/support/Leftovers.ts), which knows the run's names.
 */
const cleanups: Array<{ readonly what: string; readonly run: () => unknown }> = []

export const atFileEnd = (what: string, run: () => unknown) => {
  cleanups.push({ what, run })
}

/** Newest first (a process before the directory and database it uses); every one runs even when another fails. */
export const runFileCleanups = async () => {
  const failures: Array<string> = []
  for (const cleanup of cleanups.splice(0).reverse()) {
    try {
      await cleanup.run()
    } catch (error) {
      failures.push(`${cleanup.what}: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
  if (failures.length > 0) throw new Error(`test clean-up failed:\n${failures.join("\n")}`)
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** postmaster.pid files at most `depth` directories below `dir` (a run directory holds data directories holding clusters). */
const postmasterPidFiles = (dir: string, depth: number): Array<string> => {
  let entries: Array<Dirent>
  try {
    entries = readdirSync(dir, { withFileTypes: true })
  } catch {
    return []
  }
  return entries.flatMap((entry) =>
    entry.isFile() && entry.name === "postmaster.pid" ? [join(dir, entry.name)]
      : entry.isDirectory() && depth > 0 ? postmasterPidFiles(join(dir, entry.name), depth - 1)
      : []
  )
}

/**
 * Stops the PostgreSQL postmasters whose data directories lie under `dir` (left running by a service that was killed
 * before it could stop its embedded one) and waits up to 10 s for each to exit, so that their files can be removed.
 */
export const stopPostmastersUnder = async (dir: string) => {
  for (const pidFile of postmasterPidFiles(dir, 3)) {
    const pid = (() => {
      try {
        return Number(readFileSync(pidFile, "utf8").split("\n")[0])
      } catch {
        return 0
      }
    })()
    if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) continue
    process.kill(pid, "SIGTERM")
    for (let waited = 0; waited < 10_000 && alive(pid); waited += 100) await new Promise((r) => setTimeout(r, 100))
  }
}

export const removeDir = async (dir: string) => {
  await stopPostmastersUnder(dir)
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 })
}

/**
 * A fresh directory under the run's temporary directory (the global setup points TMPDIR there), removed when the test
 * file ends. `shared` makes it 0755 so that the postgres user an embedded PostgreSQL runs as under root can enter it.
 */
export const tempDir = (prefix: string, options: { readonly shared?: boolean } = {}) => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  if (options.shared === true) chmodSync(dir, 0o755)
  atFileEnd(`remove ${dir}`, () => removeDir(dir))
  return dir
}

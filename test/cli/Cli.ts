import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { atFileEnd } from "../support/Cleanup.ts"

/** The repository root, where `node --import tsx src/main.ts` runs. */
export const root = fileURLToPath(new URL("../../", import.meta.url))

export interface CliResult {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
  /** stdout and stderr together, for assertions that do not care which. */
  readonly output: string
}

/** How node starts the service: the TypeScript source through tsx, or the production build (`npm run build`). */
export type Entry = ReadonlyArray<string>
export const FROM_SOURCE: Entry = ["--import", "tsx", "src/main.ts"]
export const FROM_BUILD: Entry = ["dist/main.js"]

/**
 * Starts `src/main.ts` (or the build) with `args` from the repository root with exactly the given variables (plus PATH and HOME), as
 * an operator's shell would, and collects what it writes. A process still running when the test file ends is killed
 * (its embedded PostgreSQL, if any, is stopped when its data directory is removed).
 */
export const spawnMain = (args: ReadonlyArray<string>, vars: Record<string, string>, entry: Entry = FROM_SOURCE) => {
  const child = spawn(process.execPath, [...entry, ...args], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...vars },
    stdio: ["pipe", "pipe", "pipe"]
  })
  atFileEnd(`kill process ${child.pid}`, () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  })
  const written = { stdout: "", stderr: "" }
  child.stdout.on("data", (d) => (written.stdout += d))
  child.stderr.on("data", (d) => (written.stderr += d))
  return { child, written }
}

/** Runs the CLI to its exit, with nothing on stdin. */
export const runCli = (args: ReadonlyArray<string>, vars: Record<string, string> = {}, timeoutMs = 110_000, entry: Entry = FROM_SOURCE) =>
  new Promise<CliResult>((resolve, reject) => {
    const { child, written } = spawnMain(args, vars, entry)
    child.stdin.end()
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`CLI ${args.join(" ")} did not exit within ${timeoutMs} ms:\n${written.stdout}\n${written.stderr}`))
    }, timeoutMs)
    child.on("error", reject)
    child.on("close", (code) => {
      clearTimeout(timer)
      resolve({ code, stdout: written.stdout, stderr: written.stderr, output: written.stdout + written.stderr })
    })
  })

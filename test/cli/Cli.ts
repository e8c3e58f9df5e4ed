import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"

/** The repository root, where `node --import tsx src/main.ts` runs. */
export const root = fileURLToPath(new URL("../../", import.meta.url))

export interface CliResult {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
  /** stdout and stderr together, for assertions that do not care which. */
  readonly output: string
}

/** Runs the CLI with exactly the given variables (plus PATH and HOME), as an operator's shell would. */
export const runCli = (args: ReadonlyArray<string>, vars: Record<string, string> = {}, timeoutMs = 110_000) =>
  new Promise<CliResult>((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts", ...args], {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...vars },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`CLI ${args.join(" ")} did not exit within ${timeoutMs} ms:\n${stdout}\n${stderr}`))
    }, timeoutMs)
    child.on("error", reject)
    child.on("close", (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr, output: stdout + stderr })
    })
  })

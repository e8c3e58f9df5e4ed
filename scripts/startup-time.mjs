// Measures the start-up time of the service to its "Listening on" log line, through tsx (node --import tsx
// src/main.ts) and from the build (node dist/main.js), against the database in SERVICE_DATABASE_URL (already migrated
// by a first run, so migrations are not counted). Usage: npm run build && SERVICE_DATABASE_URL=... node scripts/startup-time.mjs [runs]
import { spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const runs = Number(process.argv[2] ?? 5)
const dataDir = mkdtempSync(join(tmpdir(), "startup-time-"))

const once = (args) =>
  new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, args, {
      env: { ...process.env, SERVICE_DATA_DIR: dataDir, SERVICE_PORT: process.env.SERVICE_PORT ?? "3918", SERVICE_LOG_LEVEL: "Info" },
      stdio: ["ignore", "pipe", "inherit"]
    })
    let out = ""
    let listening = false
    child.stdout.on("data", (d) => {
      out += d
      if (!listening && out.includes("Listening on")) {
        listening = true
        const ms = performance.now() - started
        child.kill("SIGTERM")
        child.on("close", () => resolve(ms))
      }
    })
    child.on("close", (code) => listening || reject(new Error(`exited ${code} before listening:\n${out}`)))
  })

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
await once(["dist/main.js"]) // migrations and generated secrets, not counted
for (const [label, args] of [["tsx (node --import tsx src/main.ts)", ["--import", "tsx", "src/main.ts"]], ["build (node dist/main.js)", ["dist/main.js"]]]) {
  const times = []
  for (let i = 0; i < runs; i++) times.push(await once(args))
  console.log(`${label}: median ${Math.round(median(times))} ms over ${runs} runs (${times.map((t) => Math.round(t)).join(", ")})`)
}

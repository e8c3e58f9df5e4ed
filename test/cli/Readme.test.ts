import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { startServer } from "../support/TestServer.ts"
import { root } from "./Cli.ts"

/** Variables features read with Effect's Config outside src/Config.ts (e.g. SERVICE_FILES_MAX_FILE_SIZE). */
const featureVariables = () =>
  readdirSync(join(root, "src"), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts") && file !== "Config.ts")
    .flatMap((file) => [...readFileSync(join(root, "src", file), "utf8").matchAll(/Config\.\w+\("(SERVICE_[A-Z_]+)"/g)].map((m) => m[1]))

/** The README's configuration table is the operator's reference; it must list exactly what the service reads. */
describe("README configuration table", () => {
  it("lists every SERVICE_* variable the service reads and no other", () => {
    const config = readFileSync(join(root, "src/Config.ts"), "utf8")
    const loader = config.slice(config.indexOf("export const rawConfig"), config.indexOf("export interface ConfigProblem"))
    const read = new Set([...loader.match(/"SERVICE_[A-Z_]+"/g)!.map((s) => s.slice(1, -1)), ...featureVariables()])
    const readme = readFileSync(join(root, "README.md"), "utf8")
    const section = readme.slice(readme.indexOf("## Configuration"), readme.indexOf("## Command line"))
    const documented = new Set([...section.matchAll(/^\| `(SERVICE_[A-Z_]+)` \|/gm)].map((m) => m[1]))
    expect(read.size).toBeGreaterThan(15)
    expect([...documented].sort()).toEqual([...read].sort())
  })
})

/** The README's first-account example is what a newcomer pastes first: it must create the system admin. */
describe("README first-account example", () => {
  it("creates the first account, a system admin, on a fresh server", async () => {
    const readme = readFileSync(join(root, "README.md"), "utf8")
    const example = /curl -s -X POST localhost:3000\/api\/v4\/users[^\n]*\n\s*-d '([^']+)'/.exec(readme)
    expect(example, "the curl example of README.md").not.toBeNull()
    const server = await startServer()
    try {
      const response = await fetch(`${server.url}/api/v4/users`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: example![1]
      })
      const body = await response.json() as { username: string; roles: string }
      expect(response.status, JSON.stringify(body)).toBe(201)
      expect(body.roles).toContain("system_admin")
    } finally {
      await server.close()
    }
  })
})

import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
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

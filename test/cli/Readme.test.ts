import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { root } from "./Cli.ts"

/** The README's configuration table is the operator's reference; it must list exactly what src/Config.ts reads. */
describe("README configuration table", () => {
  it("lists every SERVICE_* variable of src/Config.ts and no other", () => {
    const config = readFileSync(join(root, "src/Config.ts"), "utf8")
    const loader = config.slice(config.indexOf("export const rawConfig"), config.indexOf("export interface ConfigProblem"))
    const read = new Set(loader.match(/"SERVICE_[A-Z_]+"/g)!.map((s) => s.slice(1, -1)))
    const readme = readFileSync(join(root, "README.md"), "utf8")
    const section = readme.slice(readme.indexOf("## Configuration"), readme.indexOf("## Command line"))
    const documented = new Set([...section.matchAll(/^\| `(SERVICE_[A-Z_]+)` \|/gm)].map((m) => m[1]))
    expect(read.size).toBeGreaterThan(15)
    expect([...documented].sort()).toEqual([...read].sort())
  })
})

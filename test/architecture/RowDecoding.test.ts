import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { describe, expect, it } from "vitest"

/**
 * Rows are decoded at the repo boundary (issue 13, layers/Rows.ts): a statement's rows go through `rows(name, Schema)`
 * instead of being typed by assertion with `sql<Row>`, which the driver never checks. The allowlist names the files
 * that still assert; an entry that no longer does fails the test, so the list only shrinks.
 */
const root = join(import.meta.dirname, "..", "..")
const sources = readdirSync(join(root, "src"), { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile() && e.name.endsWith(".ts"))
  .map((e) => relative(root, join(e.parentPath, e.name)))
  .sort()
const text = (path: string) => readFileSync(join(root, path), "utf8")

/** `sql<Row>` followed by its template: rows typed by assertion. */
const ASSERTED_ROWS = /\bsql\s*<[^`]*?>\s*`/

/**
 * Files whose statements may still assert their rows' type: none since every repo was converted (issue 13). A file
 * added here must say why its rows cannot be decoded.
 */
const ASSERTING: ReadonlyArray<string> = []

describe("database rows", () => {
  it("are decoded with a Schema, not typed by assertion (sql<Row>)", () => {
    const offenders = sources.filter((path) => ASSERTED_ROWS.test(text(path)) && !ASSERTING.includes(path))
    expect(offenders).toEqual([])
  })

  it("allowlisted files still assert (shrink the list when one is converted)", () => {
    expect(ASSERTING.filter((path) => !ASSERTED_ROWS.test(text(path)))).toEqual([])
  })
})

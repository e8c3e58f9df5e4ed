import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { describe, expect, it } from "vitest"

/**
 * A list of values goes into a statement as one array (`column = ${anyText(sql, ids)}`, layers/SqlArrays.ts), not as
 * `IN ${sql.in(ids)}`, which writes one placeholder per value: a statement text per list length, each of them one of
 * a process's 2,000 named prepared statements (layers/ServiceClient.ts) and planned afresh for its first five runs on
 * every connection (issue 31, docs/performance.md). The allowlist names the files where a list per length is meant,
 * each with its reason; an entry that no longer matches fails the test, so the list only shrinks.
 */
const root = join(import.meta.dirname, "..", "..")
const sources = ["src", "layers"].flatMap((dir) =>
  readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => relative(root, join(e.parentPath, e.name)))
).sort()

const SEARCH = "a search's filter: a custom plan for the actual values is the point"
const ALLOWED: Record<string, string> = {
  "src/search/PostSearch.ts": SEARCH,
  "src/search/FileSearch.ts": SEARCH,
  "src/search/SearchScope.ts": SEARCH,
  "src/channels/AllChannelsSearchRepo.ts": SEARCH,
  "src/teams/Membership.ts": "the default channels' names, a constant list (one text)",
  "src/imports/Exporter.ts": "the channel types of a direct or an open export, two constant lists (two texts)"
}

const lists = (path: string) =>
  readFileSync(join(root, path), "utf8").split("\n").filter((line) => /\bsql\.in\(/.test(line))

describe("statement texts", () => {
  it("pass lists as one array outside the allowlist (anyText), never one placeholder per value", () => {
    const offenders = sources.filter((path) => ALLOWED[path] === undefined && lists(path).length > 0)
    expect(offenders.map((path) => `${path}: ${lists(path)[0].trim()}`)).toEqual([])
  })

  it("every allowlisted file still holds such a list", () => {
    expect(Object.keys(ALLOWED).filter((path) => lists(path).length === 0)).toEqual([])
  })
})

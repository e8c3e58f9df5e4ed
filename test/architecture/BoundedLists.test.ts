import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { describe, expect, it } from "vitest"

/**
 * Every list a client sends has a maximum (docs/architecture.md, "Bounded input"): each `Schema.Array` of the
 * request schemas, in src/ and schemas/ (not the wire and native response schemas), states `maxItems`, directly or
 * through `ListOf` (schemas/Limits.ts). The allowlist names the arrays that are not client input or are bounded
 * another way, each with its reason; an entry that no longer matches fails the test, so the list only shrinks.
 */
const root = join(import.meta.dirname, "..", "..")
const files = (dir: string, recursive: boolean) =>
  readdirSync(join(root, dir), { recursive, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => relative(root, join(e.parentPath, e.name)))
const sources = [...files("src", true), ...files("schemas", false)].sort()

const ALLOWED: Record<string, string> = {
  "src/http/Respond.ts": "encodes responses",
  "src/posts/PostRepo.ts": "decodes a row PostgreSQL returned",
  "src/realtime/Takeover.ts": "a node's handover to another node, over the internal bus",
  "src/posts/CreatePost.ts": "file_ids: at most 10, refused with Mattermost's model.post.is_valid.file_ids before any statement",
  "schemas/BulkImport.ts": "lines of an import file, validated line by line by the importer (src/imports/Validate.ts)",
  "schemas/SlackExport.ts": "files of a Slack export an administrator imports, read entry by entry from the zip (src/imports/slack/)",
  "schemas/Events.ts": "the domain events' cross-node envelope, written by the service itself",
  "schemas/users.ts": "RoleNamesParam: the comma list of a query string of at most 1,000 characters"
}

/** Lines with a `Schema.Array(` whose maximum is neither on that line nor on the next (a `.pipe(` continued). */
const unbounded = (path: string) => {
  const lines = readFileSync(join(root, path), "utf8").split("\n")
  return lines.filter((line, i) => /\bSchema\.Array\(/.test(line) && !/maxItems\(/.test(`${line}${lines[i + 1] ?? ""}`))
}

describe("bounded lists", () => {
  it("every array of a request schema states its maximum", () => {
    const offenders = sources.filter((path) => ALLOWED[path] === undefined && unbounded(path).length > 0)
    expect(offenders.map((path) => `${path}: ${unbounded(path)[0].trim()}`)).toEqual([])
  })

  it("every allowlisted file still holds such an array", () => {
    expect(Object.keys(ALLOWED).filter((path) => unbounded(path).length === 0)).toEqual([])
  })
})

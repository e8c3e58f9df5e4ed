import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { describe, expect, it } from "vitest"

/**
 * Response bodies are encoded with their wire Schema (issue 13, src/http/Respond.ts): handlers answer with
 * `respondWith(Schema, value)` / `respondWithAll`, so the Schema is the response contract and no undeclared key
 * reaches the wire, instead of the plain `json(...)` / `created(...)`, which send whatever the value holds. The
 * allowlist names the files that still use those, each with its reason; an entry that no longer does fails the test,
 * so the list only shrinks.
 */
const root = join(import.meta.dirname, "..", "..")
const sources = readdirSync(join(root, "src"), { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile() && e.name.endsWith(".ts"))
  .map((e) => relative(root, join(e.parentPath, e.name)))
  .sort()
const text = (path: string) => readFileSync(join(root, path), "utf8")

/**
 * `json` or `created` imported from src/http/Respond.ts (by any relative path, alone or among other names), or
 * defined there. The import is what is matched, not the calls: a file may have its own `json` (UserRepo's jsonb
 * parameter), and a handler may pass `json` as a function (`Effect.map(hook, json)`).
 */
const PLAIN_JSON = /import\s*\{[^}]*\b(?:json|created)\b[^}]*\}\s*from\s*"[^"]*\/Respond\.ts"|export const (?:json|created)\b/

/** The files that may answer with plain `json(...)` / `created(...)`, and why. */
const PLAIN: Readonly<Record<string, string>> = {
  // Justified: no fixed body shape, or the wire form built elsewhere.
  "src/http/Respond.ts": "defines json and created, ok() (Mattermost's `{status: \"OK\"}` action body) and respondWith's last step",
  "src/http/ErrorResponse.ts": "error bodies: Mattermost's AppError shape on /api/v4, the native error on /api/v1 (errorAnswer)",
  "src/openapi/Routes.ts": "the OpenAPI document, generated from the native Schemas themselves",
  "src/posts/ListRoutes.ts": "post lists built by the post-list mappers (src/posts/PostWire.ts postList), Mattermost's PostList, which test/compat/WireMappers.test.ts checks against the PostList Schema",
  "src/search/Routes.ts": "post search results built by the same post-list mappers (postSearchResults); file search is encoded with FileSearchResults",
  "src/channels/ChannelMemberRoutes.ts": "POST /channels/members/{user_id}/view answers viewedChannel's result, already encoded by ChannelViewResponse's precompiled encoder (toViewResponse; a hot route, shared with src/http/FastPath.ts); the other routes use respondWith",
  "src/compat/EmptyByDesign.ts": "the empty-by-design compatibility answers: each entry's body is its own constant (an empty list or map, a zero count), listed in the compat document",
}

describe("responses", () => {
  it("are encoded with their wire Schema (respondWith), not sent with plain json/created", () => {
    const offenders = sources.filter((path) => PLAIN_JSON.test(text(path)) && !(path in PLAIN))
    expect(offenders).toEqual([])
  })

  it("allowlisted files still use json (shrink the list when one is converted)", () => {
    expect(Object.keys(PLAIN).filter((path) => !PLAIN_JSON.test(text(path)))).toEqual([])
  })

  it("every allowlisted file says why", () => {
    expect(Object.entries(PLAIN).filter(([, reason]) => reason.trim() === "")).toEqual([])
  })
})

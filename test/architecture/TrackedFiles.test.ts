import { execFileSync } from "node:child_process"
import { describe, expect, it } from "vitest"

/**
 * Files that must never be committed. A worktree's `node_modules` is a symlink to the shared install; committed, a
 * fast-forward of the shared tree replaces that install with a link to itself (it happened twice on one day), and every
 * worktree loses its dependencies at once.
 */
describe("tracked files", () => {
  it("tracks no node_modules, build output or test results", () => {
    const tracked = execFileSync("git", ["ls-files", "--", "node_modules", "web/dist", "dist", "test-results"], { encoding: "utf8" }).trim()
    expect(tracked).toBe("")
  })
})

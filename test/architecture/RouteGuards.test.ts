import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { describe, expect, it } from "vitest"

/**
 * Who may call a route is declared in the route table (src/auth/Guards.ts): `authed(handler)`, `authed.admin(handler)`
 * or `publicRoute(handler)`, and handlers read `CurrentCaller` instead of authenticating themselves. Read from the
 * source: every route of every table carries one of the three, and no file outside src/auth/ authenticates with
 * `requireCaller`/`requireSystemAdmin` on its own. The allowlists name what is known to remain, with the reason; an
 * entry that no longer breaks the rule fails the test, so they only shrink.
 */
const root = join(import.meta.dirname, "..", "..")
const sources = readdirSync(join(root, "src"), { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile() && e.name.endsWith(".ts"))
  .map((e) => relative(root, join(e.parentPath, e.name)))
  .sort()

/** The code without its comments, so that prose naming `requireCaller` is no call of it. */
const code = (path: string) =>
  readFileSync(join(root, path), "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1")

const AUTHENTICATES_ITSELF = /\brequire(Caller|SystemAdmin)\b/
/** A route declared in a table: the platform's method helpers, in pipe or data-first form. */
const ROUTE = /HttpRouter\.((get|post|put|patch|del|head|options|all)|route\([^)]*\))\(/
const DECLARED = /,\s*(authed(\.admin)?|publicRoute)\(/

/**
 * Files outside src/auth/ that still authenticate inside a handler (none left since issue 13; the list stays so an
 * exception is named here with its reason). src/http/FastPath.ts answers three hot routes before the router and
 * authenticates with `callerOf`/`requiredCallerNow` itself, which this rule does not forbid.
 */
const AUTHENTICATING_HANDLERS: ReadonlyArray<string> = []

/** Tables whose routes are declared some other way (none left; named here with the reason when one is). */
const UNDECLARED_TABLES: ReadonlyArray<string> = []

const outsideAuth = sources.filter((path) => !path.startsWith("src/auth/"))
const tables = sources.filter((path) => ROUTE.test(code(path)))

const undeclaredRoutes = (path: string) =>
  code(path).split("\n").filter((line) => ROUTE.test(line) && !DECLARED.test(line)).map((line) => `${path}: ${line.trim()}`)

describe("route guards", () => {
  it("route tables are found", () => {
    expect(tables.length).toBeGreaterThan(40)
  })

  it("handlers read CurrentCaller: nothing outside src/auth/ calls requireCaller or requireSystemAdmin", () => {
    const offenders = outsideAuth.filter((path) => AUTHENTICATES_ITSELF.test(code(path)) && !AUTHENTICATING_HANDLERS.includes(path))
    expect(offenders).toEqual([])
  })

  it("allowlisted files still authenticate themselves (shrink the list when one is converted)", () => {
    expect(AUTHENTICATING_HANDLERS.filter((path) => !AUTHENTICATES_ITSELF.test(code(path)))).toEqual([])
  })

  it("every route of every table is declared authed, authed.admin or publicRoute, on its own line", () => {
    const offenders = tables.filter((path) => !UNDECLARED_TABLES.includes(path)).flatMap(undeclaredRoutes)
    expect(offenders).toEqual([])
  })

  it("allowlisted tables still have undeclared routes (shrink the list when one is declared)", () => {
    expect(UNDECLARED_TABLES.filter((path) => undeclaredRoutes(path).length === 0)).toEqual([])
  })
})

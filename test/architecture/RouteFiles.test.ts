import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { describe, expect, it } from "vitest"

/**
 * The house rules of docs/architecture.md, read from the source: a feature is routes + service + repo, so route files
 * hold no SQL; services and repos fail with domain errors (schemas/Errors.ts), so only the edge imports the HTTP
 * `ApiError`. Each allowlist names what is known to remain; an entry that no longer breaks the rule fails the test, so
 * the lists only shrink.
 */
const root = join(import.meta.dirname, "..", "..")
const sources = readdirSync(join(root, "src"), { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile() && e.name.endsWith(".ts"))
  .map((e) => relative(root, join(e.parentPath, e.name)))
  .sort()

const isRouteFile = (path: string) => /(^|\/)(\w*Routes|Routes)\.ts$/.test(path)
const text = (path: string) => readFileSync(join(root, path), "utf8")

/** A statement built with the `sql` tag, or the client's helpers; the Db capability alone (ping, saturation) is not SQL. */
const SQL = /\bsql\s*(<[^`]*?>)?\s*`|\bdb\.sql\b|\bsql\.(in|and|or|literal|join)\(/
const IMPORTS_API_ERROR = /from\s+"[^"]*\/http\/ApiError(\.ts)?"/

/** Route files that still hold SQL (none left since issue 13; the list stays so an exception is named here). */
const ROUTES_WITH_SQL: ReadonlyArray<string> = []

/**
 * Non-route files that are the HTTP edge by nature and so speak ApiError: authentication (401) and its enforced second
 * factor (403 api.context.mfa_required, decided per request with the route), rate limiting (429
 * with Retry-After), the 501 answers, the WebSocket upgrade, pages and redirects rendered for browsers (the SSO flow's
 * error redirect and mobile error page).
 */
const EDGE = [
  "src/auth/Authenticate.ts",
  "src/auth/MfaEnforcement.ts",
  "src/compat/EmptyByDesign.ts",
  "src/compat/NotImplemented.ts",
  "src/ratelimit/RateLimit.ts",
  "src/realtime/SocketServer.ts",
  "src/realtime/Upgrade.ts",
  "src/sso/Flow.ts",
  "src/sso/MobilePage.ts",
  "src/web/ClientApp.ts"
]

/** Services that still fail with ApiError, to be converted to domain errors (none left since issue 13). */
const SERVICES_WITH_API_ERROR: ReadonlyArray<string> = []

describe("route files", () => {
  const routeFiles = sources.filter(isRouteFile)

  it("are found", () => {
    expect(routeFiles.length).toBeGreaterThan(40)
  })

  it("hold no SQL: statements live in the feature's repo", () => {
    const offenders = routeFiles.filter((path) => SQL.test(text(path)) && !ROUTES_WITH_SQL.includes(path))
    expect(offenders).toEqual([])
  })

  it("allowlisted ones still hold SQL (shrink the list when one is cleaned)", () => {
    expect(ROUTES_WITH_SQL.filter((path) => !SQL.test(text(path)))).toEqual([])
  })
})

describe("services and repos", () => {
  const services = sources.filter((path) => !isRouteFile(path) && !path.startsWith("src/http/"))

  it("fail with domain errors, not the HTTP ApiError", () => {
    const offenders = services.filter((path) =>
      IMPORTS_API_ERROR.test(text(path)) && !EDGE.includes(path) && !SERVICES_WITH_API_ERROR.includes(path))
    expect(offenders).toEqual([])
  })

  it("allowlisted ones still import ApiError (shrink the list when one is converted)", () => {
    expect([...EDGE, ...SERVICES_WITH_API_ERROR].filter((path) => !IMPORTS_API_ERROR.test(text(path)))).toEqual([])
  })
})

import { Chunk } from "effect"
import { describe, expect, it } from "vitest"
import { routeTable, samplePath } from "../../src/compat/CompatDoc.ts"
import { MATTERMOST_ROUTES } from "../../src/compat/MattermostRoutes.ts"
import { served } from "../../src/Routes.ts"

/**
 * Literal path segments win over parameters everywhere: for every route of Mattermost's API description, a request
 * for it reaches a route of exactly its shape (ours, or its own 501), never a parameter handler of a neighbouring
 * path such as `/users/:user_id` for `/users/stats`. The table is the one docs/compat.md is generated from; the
 * compat-doc test checks it against real requests.
 */
const shape = (path: string) => path.replace(/\{[^}]+\}|:[A-Za-z_]+/g, ":")

describe("route matching", () => {
  const table = routeTable(Chunk.toReadonlyArray(served.routes).map((r) => ({ method: r.method, path: r.path })))

  it("sends every Mattermost route to a route of its own shape", () => {
    const misrouted: Array<string> = []
    for (const route of MATTERMOST_ROUTES) {
      const hit = table.find(route.method, samplePath(route.path))?.handler
      if (hit === undefined || shape(hit.path) !== shape(route.path)) misrouted.push(`${route.method} ${route.path} -> ${hit?.path}`)
    }
    expect(misrouted).toEqual([])
  })

  it("never lets a parameter take a literal segment of another Mattermost route", () => {
    const literals = ["stats", "tokens", "invalid_emails", "mention_counts", "search", "autocomplete"]
    for (const route of MATTERMOST_ROUTES.filter((r) => literals.some((l) => r.path.endsWith(`/${l}`)))) {
      const hit = table.find(route.method, samplePath(route.path))?.handler
      expect(hit?.path.split("/").at(-1), `${route.method} ${route.path}`).toBe(route.path.split("/").at(-1))
    }
  })
})

describe("route matching of the service's own routes", () => {
  const ours = Chunk.toReadonlyArray(served.routes).map((r) => ({ method: r.method, path: r.path }))
  const table = routeTable(ours)
  const concrete = (path: string) => path.replace(/:[A-Za-z_]+/g, samplePath("{x}"))

  it("sends a request for every route the service serves, Mattermost's or not, to a route of its own shape", () => {
    const misrouted: Array<string> = []
    const checked = ours.filter((r) => !r.path.includes("*"))
    expect(checked.length).toBeGreaterThan(200)
    for (const route of checked) {
      const methods = route.method === "*" ? ["GET"] : [route.method]
      for (const method of methods) {
        const hit = table.find(method, concrete(route.path))?.handler
        if (hit === undefined || shape(hit.path) !== shape(route.path)) misrouted.push(`${method} ${route.path} -> ${hit?.path}`)
      }
    }
    expect(misrouted).toEqual([])
    // The routes this covers beyond Mattermost's description, e.g. POST /users/login/type beside /users/:user_id.
    expect(ours.some((r) => r.path === "/api/v4/users/login/type")).toBe(true)
  })
})

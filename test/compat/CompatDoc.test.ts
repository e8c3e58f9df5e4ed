import { existsSync, readFileSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { classify } from "../../src/compat/CompatDoc.ts"
import { extractRoutes } from "../../src/compat/GenerateMattermostRoutes.ts"
import { currentDoc, DOC_PATH } from "../../src/compat/GenerateCompatDoc.ts"
import { MATTERMOST_ROUTES } from "../../src/compat/MattermostRoutes.ts"
import { served } from "../../src/Routes.ts"
import { Chunk } from "effect"
import { startServer, type TestServer } from "../support/TestServer.ts"

/** docs/compat.md cannot drift from the router, and the states it claims are what clients get. */
const YAML = new URL("../../../shared/openapi/mattermost-v4.yaml", import.meta.url)

let server: TestServer

beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server?.close())

describe("docs/compat.md", () => {
  it("is exactly what `npm run compat-doc` generates from the current router", () => {
    const committed = readFileSync(DOC_PATH, "utf8")
    expect(committed === currentDoc(), "docs/compat.md is stale: run `npm run compat-doc` and commit it").toBe(true)
  })

  it.skipIf(!existsSync(YAML))("lists the routes of Mattermost's API description as extracted from it", () => {
    expect(extractRoutes(readFileSync(YAML, "utf8"))).toEqual(MATTERMOST_ROUTES)
  })

  it("states what each route really answers: 501 where it says 501, served elsewhere", async () => {
    const { mattermost } = classify(Chunk.toReadonlyArray(served.routes).map((r) => ({ method: r.method, path: r.path })))
    expect(mattermost.length).toBe(MATTERMOST_ROUTES.length)
    const sample = (template: string) => template.replace(/\{[^}]+\}/g, "x0000000000000000000000000")
    const mismatches: Array<string> = []
    for (const row of mattermost) {
      const response = await fetch(`${server.url}${sample(row.path)}`, { method: row.method, headers: { "content-type": "application/json" }, body: row.method === "GET" ? undefined : "{}" })
      const body = response.headers.get("content-type") === "application/json" ? await response.json() as { id?: string } : {}
      const unrouted = response.status === 501 || body.id === "api.context.404.app_error"
      if (row.state === "501" ? response.status !== 501 : unrouted) mismatches.push(`${row.method} ${row.path}: documented ${row.state}, got ${response.status}`)
    }
    expect(mismatches).toEqual([])
  })
})

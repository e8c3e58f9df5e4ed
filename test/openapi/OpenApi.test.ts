import { Chunk } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { served } from "../../src/Routes.ts"
import { send, type RawResponse } from "../http/Fetch.ts"
import { newUser } from "../support/Clients.ts"
import { problems } from "../support/JsonSchema.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * GET /api/v1/openapi.json: the OpenAPI document of the native API, generated from the Schemas the handlers decode
 * and encode with. It must describe every /api/v1 route the router serves, and what the routes really answer must
 * fit it.
 */

let server: TestServer
let doc: any
let adminToken: string
let memberToken: string

beforeAll(async () => {
  server = await startServer()
  // The first account of a fresh server is the system administrator.
  const admin = await newUser(server.url, "oaadmin")
  adminToken = admin.client.getToken()
  const member = await newUser(server.url, "oamember")
  memberToken = member.client.getToken()
  doc = (await send(`${server.url}/api/v1/openapi.json`)).body
})
afterAll(() => server?.close())

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

/** The router's /api/v1 routes as "METHOD /path/{param}", the OpenAPI spelling. */
const servedNativeRoutes = () =>
  Chunk.toReadonlyArray(served.routes)
    .filter((route) => route.path === "/api/v1" || route.path.startsWith("/api/v1/"))
    .map((route) => `${route.method} ${route.path.replace(/:(\w+)\??/g, "{$1}")}`)

const documentedRoutes = () =>
  Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
    Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))

/** Checks a real response against the document: its status is declared for the route and its body fits the schema. */
const expectFits = (method: string, path: string, response: RawResponse) => {
  const operation = doc.paths[path]?.[method.toLowerCase()]
  expect(operation, `${method} ${path} is documented`).toBeDefined()
  const declared = operation.responses[String(response.status)]
  expect(declared, `${method} ${path} declares ${response.status}`).toBeDefined()
  const contentType = response.headers.get("content-type") ?? ""
  if (declared.content === undefined) {
    expect(response.text).toBe("")
    return
  }
  const media = declared.content[contentType]
  expect(media, `${method} ${path} ${response.status} is declared as ${contentType}`).toBeDefined()
  if (contentType === "application/json") expect(problems(media.schema, response.body, doc)).toEqual([])
}

describe("GET /api/v1/openapi.json", () => {
  it("is public JSON with the structure of an OpenAPI 3 document", async () => {
    const response = await send(`${server.url}/api/v1/openapi.json`)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("application/json")
    expect(response.body.openapi).toMatch(/^3\.\d+\.\d+$/)
    expect(response.body.info).toEqual(expect.objectContaining({ title: expect.any(String), version: expect.any(String) }))
    expect(Object.keys(response.body.paths).length).toBeGreaterThan(0)
    for (const [path, item] of Object.entries<Record<string, any>>(response.body.paths)) {
      expect(path).toMatch(/^\/api\/v1\//)
      for (const operation of Object.values(item)) {
        expect(Object.keys(operation.responses).length, path).toBeGreaterThan(0)
        for (const status of Object.keys(operation.responses)) expect(status).toMatch(/^[1-5]\d\d$/)
      }
    }
    // Every reference resolves inside the document.
    const refs = [...response.text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1])
    expect(refs.length).toBeGreaterThan(0)
    for (const name of refs) expect(response.body.components.schemas[name], name).toBeDefined()
    expectFits("GET", "/api/v1/openapi.json", response)
  })

  it("describes every /api/v1 route the router serves, and only those", () => {
    const servedRoutes = servedNativeRoutes()
    expect(servedRoutes).toContain("GET /api/v1/health/live")
    expect(servedRoutes).toContain("GET /api/v1/openapi.json")
    expect(Chunk.toReadonlyArray(served.mounts).filter(([prefix]) => prefix.startsWith("/api/v1"))).toEqual([])
    expect([...documentedRoutes()].sort()).toEqual([...new Set(servedRoutes)].sort())
  })

  it("marks the administration routes as needing a session and the health routes as public", () => {
    expect(doc.paths["/api/v1/admin/push"].get.security).toEqual([{ bearer: [] }, { cookie: [] }])
    expect(doc.paths["/api/v1/admin/import/{id}"].get.security).toEqual([{ bearer: [] }, { cookie: [] }])
    expect(doc.paths["/api/v1/health/live"].get.security).toEqual([])
    expect(doc.components.securitySchemes.cookie).toMatchObject({ type: "apiKey", in: "cookie", name: "MMAUTHTOKEN" })
  })
})

describe("real answers fit the document", () => {
  it("health", async () => {
    for (const path of ["/api/v1/health/live", "/api/v1/health/ready", "/api/v1/health/stats"]) {
      const response = await send(`${server.url}${path}`)
      expect(response.status).toBe(200)
      expectFits("GET", path, response)
    }
    const metrics = await send(`${server.url}/api/v1/health/metrics`)
    expect(metrics.status).toBe(200)
    expectFits("GET", "/api/v1/health/metrics", metrics)
  })

  it("push administration, with its 401 and 403", async () => {
    const view = await send(`${server.url}/api/v1/admin/push`, { headers: bearer(adminToken) })
    expect(view.status).toBe(200)
    expectFits("GET", "/api/v1/admin/push", view)
    const updated = await send(`${server.url}/api/v1/admin/push`, {
      method: "PUT",
      headers: bearer(adminToken),
      json: { push_proxy_url: "https://push.example.com", push_ios_private_key: null }
    })
    expect(updated.status).toBe(200)
    expect(updated.body.push_proxy_url).toBe("https://push.example.com")
    expectFits("PUT", "/api/v1/admin/push", updated)
    const refused = await send(`${server.url}/api/v1/admin/push`, {
      method: "PUT",
      headers: bearer(adminToken),
      json: { push_proxy_url: "not a url" }
    })
    expect(refused.status).toBe(400)
    expectFits("PUT", "/api/v1/admin/push", refused)
    const anonymous = await send(`${server.url}/api/v1/admin/push`)
    expect(anonymous.status).toBe(401)
    expectFits("GET", "/api/v1/admin/push", anonymous)
    const member = await send(`${server.url}/api/v1/admin/push`, { headers: bearer(memberToken) })
    expect(member.status).toBe(403)
    expectFits("GET", "/api/v1/admin/push", member)
  })

  it("single sign-on administration and the public provider list", async () => {
    const created = await send(`${server.url}/api/v1/admin/sso`, {
      method: "POST",
      headers: bearer(adminToken),
      json: {
        provider_key: "corp",
        provider_type: "oidc",
        display_name: "Corp",
        issuer_url: "https://idp.example.com",
        client_id: "client",
        client_secret: "secret",
        is_active: true,
        role_mappings: { admins: "system_admin" }
      }
    })
    expect(created.status).toBe(201)
    expect(created.body.warnings).toEqual([expect.stringContaining("switched off globally")])
    expectFits("POST", "/api/v1/admin/sso", created)
    const list = await send(`${server.url}/api/v1/admin/sso`, { headers: bearer(adminToken) })
    expect(list.body).toHaveLength(1)
    expectFits("GET", "/api/v1/admin/sso", list)
    const settings = await send(`${server.url}/api/v1/admin/sso/settings`, { method: "PUT", headers: bearer(adminToken), json: { enable_sso: true } })
    expect(settings.body).toEqual({ enable_sso: true, require_sso: false })
    expectFits("PUT", "/api/v1/admin/sso/settings", settings)
    const providers = await send(`${server.url}/api/v1/oauth2/providers`)
    expect(providers.body).toEqual([expect.objectContaining({ provider_key: "corp" })])
    expectFits("GET", "/api/v1/oauth2/providers", providers)
    const missing = await send(`${server.url}/api/v1/admin/sso/${crypto.randomUUID()}`, { method: "PUT", headers: bearer(adminToken), json: {} })
    expect(missing.status).toBe(404)
    expectFits("PUT", "/api/v1/admin/sso/{id}", missing)
    const removed = await send(`${server.url}/api/v1/admin/sso/${created.body.id}`, { method: "DELETE", headers: bearer(adminToken) })
    expect(removed.status).toBe(204)
    expectFits("DELETE", "/api/v1/admin/sso/{id}", removed)
  })

  it("import jobs: a 400 for a path outside the imports folder, a 404 for an unknown job", async () => {
    const outside = await send(`${server.url}/api/v1/admin/import`, { method: "POST", headers: bearer(adminToken), json: { path: "../../etc/passwd" } })
    expect(outside.status).toBe(400)
    expectFits("POST", "/api/v1/admin/import", outside)
    const unknown = await send(`${server.url}/api/v1/admin/import/${"a".repeat(26)}`, { headers: bearer(adminToken) })
    expect(unknown.status).toBe(404)
    expectFits("GET", "/api/v1/admin/import/{id}", unknown)
  })

  it("an upload starts an import job as the document describes it", async () => {
    const line = JSON.stringify({ type: "version", version: 1 })
    const started = await send(`${server.url}/api/v1/admin/import?dry_run=true`, {
      method: "POST",
      headers: { ...bearer(adminToken), "content-type": "application/octet-stream" },
      body: `${line}\n`
    })
    expect(started.status).toBe(201)
    expectFits("POST", "/api/v1/admin/import", started)
    // Until the job has ended (it runs beside the request), so that its last write happens while the server runs.
    let job = await send(`${server.url}/api/v1/admin/import/${started.body.id}`, { headers: bearer(adminToken) })
    for (let i = 0; i < 200 && !["succeeded", "failed"].includes(job.body.status); i++) {
      await new Promise((resolve) => setTimeout(resolve, 25))
      job = await send(`${server.url}/api/v1/admin/import/${started.body.id}`, { headers: bearer(adminToken) })
    }
    expect(job.status).toBe(200)
    expect(job.body.status).toBe("succeeded")
    expectFits("GET", "/api/v1/admin/import/{id}", job)
  })
})

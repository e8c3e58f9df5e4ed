import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { startFakeOidc, type FakeOidc } from "./support/FakeOidc.ts"
import { SITE, type SsoHarness, startSsoServer } from "./support/Harness.ts"

/**
 * SSO outside production: a provider on plain http (a local Keycloak, the fake provider here) is accepted with a
 * warning in the admin answer, and works; production keeps requiring https. The server's own IdP capability is used
 * (no test override), as `npm start` runs it.
 */
let dev: SsoHarness
let prod: SsoHarness
let op: FakeOidc

const body = () => ({
  provider_key: "local",
  provider_type: "oidc",
  display_name: "Local Keycloak",
  issuer_url: op.issuer,
  client_id: op.clientId,
  client_secret: "dev-secret-0a1b2c3d4e5f",
  is_active: true
})

describe("SSO over http", () => {
  beforeAll(async () => {
    op = await startFakeOidc({ redirectUris: [`${SITE}/api/v1/oauth2/local/callback`] })
    // Warnings logged, to see the one about plain http.
    dev = await startSsoServer({ env: { SERVICE_LOG_LEVEL: "warn" }, overrides: { idp: undefined } })
    prod = await startSsoServer({ env: { SERVICE_ENVIRONMENT: "production" }, overrides: { idp: undefined } })
  })
  afterAll(async () => {
    await dev?.close()
    await prod?.close()
    await op?.close()
  })

  it("accepts an http issuer in development with warnings (plain http, SSO switched off globally), and the provider works", async () => {
    expect(op.issuer).toMatch(/^http:\/\//)
    const created = await dev.api("POST", "/api/v1/admin/sso", body())
    expect(created.status).toBe(201)
    expect(created.body.warnings).toEqual([
      expect.stringMatching(/^issuer_url uses plain http/),
      expect.stringMatching(/single sign-on is switched off globally.*enable_sso/)
    ])
    const tested = await dev.api("POST", `/api/v1/admin/sso/${created.body.id}/test`)
    expect(tested.status).toBe(200)
    expect(tested.body.success).toBe(true)
    // Once SSO is on, only the http warning remains.
    expect((await dev.api("PUT", "/api/v1/admin/sso/settings", { enable_sso: true })).status).toBe(200)
    const updated = await dev.api("PUT", `/api/v1/admin/sso/${created.body.id}`, { display_name: "Keycloak" })
    expect(updated.status).toBe(200)
    expect(updated.body.warnings).toEqual([expect.stringMatching(/^issuer_url uses plain http/)])
  })

  it("refuses an http issuer in production", async () => {
    const refused = await prod.api("POST", "/api/v1/admin/sso", body())
    expect(refused.status).toBe(400)
    expect(JSON.stringify(refused.body)).toMatch(/issuer_url.*must use https/)
  })

  /** A GitHub Enterprise on plain http, as a developer would run one locally. */
  const codehost = {
    provider_key: "ghe",
    provider_type: "codehost",
    display_name: "Local GHE",
    client_id: "c",
    client_secret: "s-ghe-0a1b2c3d",
    required_organization: "acme",
    web_base_url: "http://localhost:8929",
    api_base_url: "http://localhost:8929/api/v3"
  }

  it("accepts http base URLs in development, warning in the answer and in the log, and refuses them in production", async () => {
    const lines: Array<string> = []
    const spy = vi.spyOn(console, "log").mockImplementation((...args: Array<unknown>) => void lines.push(args.join(" ")))
    let created: Awaited<ReturnType<SsoHarness["api"]>>
    try {
      created = await dev.api("POST", "/api/v1/admin/sso", codehost)
    } finally {
      spy.mockRestore()
    }
    expect(created.status).toBe(201)
    expect(created.body.warnings).toEqual([
      expect.stringMatching(/^web_base_url uses plain http/),
      expect.stringMatching(/^api_base_url uses plain http/)
    ])
    const logged = lines.find((l) => l.includes("SSO provider saved with warnings"))
    expect(logged).toBeDefined()
    expect(logged).toContain("provider_key=ghe")
    expect(logged).toContain("web_base_url uses plain http")
    expect(logged).toContain("level=WARN")

    const refused = await prod.api("POST", "/api/v1/admin/sso", codehost)
    expect(refused.status).toBe(400)
    expect(JSON.stringify(refused.body)).toMatch(/base_url.*must use https/)
  })
})

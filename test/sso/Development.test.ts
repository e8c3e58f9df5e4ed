import { afterAll, beforeAll, describe, expect, it } from "vitest"
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
    dev = await startSsoServer({ overrides: { idp: undefined } })
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
})

import pg from "pg"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { client4, newUser } from "../support/Clients.ts"
import { startFakeGithub, type FakeGithub } from "./support/FakeGithub.ts"
import { startFakeOidc, type FakeOidc } from "./support/FakeOidc.ts"
import { createProvider, enableSso, PASSWORD, SITE, type SsoHarness, startSsoServer } from "./support/Harness.ts"

/** The admin API: authorization, validation naming the field, secrets never returned or logged, settings, test. */

const logged: Array<string> = []
let h: SsoHarness
let op: FakeOidc
let gh: FakeGithub
let memberToken: string
const SECRETS = ["admin-test-secret-0a1b2c3d", "rotated-secret-9f8e7d6c"]

beforeAll(async () => {
  for (const method of ["log", "info", "warn", "error", "debug", "trace"] as const) {
    vi.spyOn(console, method).mockImplementation((...args: Array<unknown>) => {
      logged.push(args.map((a) => (typeof a === "string" ? a : JSON.stringify(a) ?? String(a))).join(" "))
    })
  }
  h = await startSsoServer({ env: { SERVICE_LOG_LEVEL: "Debug" } })
  op = await startFakeOidc({ redirectUris: [`${SITE}/api/v1/oauth2/corp/callback`] })
  gh = await startFakeGithub({ callbackPrefix: `${SITE}/api/v1/oauth2/` })
  memberToken = (await newUser(h.server.url, "member")).client.getToken()
})
afterAll(async () => {
  await h?.close()
  await op?.close()
  await gh?.close()
  vi.restoreAllMocks()
})

const oidcBody = (overrides: Record<string, unknown> = {}) => ({
  provider_key: "corp",
  provider_type: "oidc",
  display_name: "Corp SSO",
  issuer_url: op.issuer,
  client_id: op.clientId,
  client_secret: SECRETS[0],
  ...overrides
})

describe("authorization", () => {
  it("answers 401 without a session and 403 to a non-administrator on every admin path", async () => {
    const id = "00000000-0000-4000-8000-000000000000"
    const paths: Array<[string, string, unknown?]> = [
      ["GET", "/api/v1/admin/sso"],
      ["POST", "/api/v1/admin/sso", oidcBody()],
      ["PUT", `/api/v1/admin/sso/${id}`, { display_name: "x" }],
      ["DELETE", `/api/v1/admin/sso/${id}`],
      ["POST", `/api/v1/admin/sso/${id}/test`],
      ["GET", "/api/v1/admin/sso/settings"],
      ["PUT", "/api/v1/admin/sso/settings", { enable_sso: true }]
    ]
    for (const [method, path, body] of paths) {
      const anonymous = await h.api(method, path, body, null)
      expect(anonymous.status, `${method} ${path}`).toBe(401)
      expect(anonymous.body.error.code).toBe("UNAUTHORIZED")
      const member = await h.api(method, path, body, memberToken)
      expect(member.status, `${method} ${path}`).toBe(403)
      expect(member.body.error).toMatchObject({ code: "FORBIDDEN", status: 403 })
    }
    expect((await h.api("GET", "/api/v1/admin/sso")).body).toEqual([])
  })
})

describe("provider configurations", () => {
  it("creates a provider with a UUID, never returns the secret, and stores it encrypted", async () => {
    const created = await h.api("POST", "/api/v1/admin/sso", oidcBody({ role_mappings: { admins: "system_admin" } }))
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({
      provider_key: "corp",
      provider_type: "oidc",
      display_name: "Corp SSO",
      issuer_url: op.issuer,
      client_id: op.clientId,
      client_secret_set: true,
      is_active: false,
      auto_provision: false,
      default_role: "member",
      groups_claim: "groups",
      role_mappings: { admins: "system_admin" },
      allow_domains: null,
      required_organization: null,
      callback_url: `${SITE}/api/v1/oauth2/corp/callback`,
      last_test_success: false,
      last_test_at: null
    })
    expect(created.body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(created.body).not.toHaveProperty("client_secret")
    expect(JSON.stringify(created.body)).not.toContain(SECRETS[0])

    const db = new pg.Client({ connectionString: h.server.databaseUrl })
    await db.connect()
    const { rows } = await db.query("SELECT client_secret_encrypted FROM sso_providers WHERE id = $1", [created.body.id])
    await db.end()
    expect(rows[0].client_secret_encrypted).toMatch(/^v1:/)
    expect(rows[0].client_secret_encrypted).not.toContain(SECRETS[0])

    const listed = await h.api("GET", "/api/v1/admin/sso")
    expect(listed.body).toHaveLength(1)
    // The list leaves out the warnings of the save (plain-http issuer of the test provider, SSO switched off).
    const { warnings: _warnings, ...saved } = created.body
    expect(listed.body[0]).toEqual(saved)
  })

  it("applies type defaults: Google's issuer for webidp, github.com for codehost", async () => {
    const webidp = await h.api("POST", "/api/v1/admin/sso", { provider_key: "google", provider_type: "webidp", display_name: "Google", client_id: "g", client_secret: "s-google-1", allow_domains: ["Example.COM", "example.com"] })
    expect(webidp.status).toBe(201)
    expect(webidp.body).toMatchObject({ issuer_url: "https://accounts.google.com", allow_domains: ["example.com"], groups_claim: null, role_mappings: null })
    const codehost = await h.api("POST", "/api/v1/admin/sso", { provider_key: "github", provider_type: "codehost", display_name: "GitHub", client_id: "c", client_secret: "s-gh-1", required_organization: "acme", required_team: "chat-users" })
    expect(codehost.status).toBe(201)
    expect(codehost.body).toMatchObject({ issuer_url: null, web_base_url: "https://github.com", api_base_url: "https://api.github.com", required_organization: "acme", required_team: "chat-users" })
    for (const id of [webidp.body.id, codehost.body.id]) expect((await h.api("DELETE", `/api/v1/admin/sso/${id}`)).status).toBe(204)
  })

  it("refuses invalid input with a 400 naming the field", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [oidcBody({ provider_key: "Bad_Key" }), "provider_key"],
      [oidcBody({ provider_key: undefined }), "provider_key"],
      [oidcBody({ provider_type: "saml" }), "provider_type"],
      [oidcBody({ issuer_url: undefined }), "issuer_url"],
      [oidcBody({ issuer_url: "ftp://idp.example.com" }), "issuer_url"],
      [oidcBody({ issuer_url: "https://user:pw@idp.example.com" }), "issuer_url"],
      [oidcBody({ display_name: "" }), "display_name"],
      [oidcBody({ client_id: 42 }), "client_id"],
      [oidcBody({ client_secret: undefined }), "client_secret"],
      [oidcBody({ default_role: "superuser" }), "default_role"],
      [oidcBody({ is_active: "yes" }), "is_active"],
      [oidcBody({ role_mappings: { admins: "root" } }), "role_mappings.admins"],
      [oidcBody({ role_mappings: ["admins"] }), "role_mappings"],
      [oidcBody({ groups_claim: "has space" }), "groups_claim"],
      [oidcBody({ allow_domains: ["example.com"] }), "allow_domains"],
      [oidcBody({ required_organization: "acme" }), "required_organization"],
      [oidcBody({ provider_type: "webidp", groups_claim: "groups" }), "groups_claim"],
      [oidcBody({ provider_type: "webidp", role_mappings: { a: "member" } }), "role_mappings"],
      [oidcBody({ provider_type: "webidp", allow_domains: ["not a domain"] }), "allow_domains"],
      [oidcBody({ provider_type: "codehost", issuer_url: undefined, required_team: "t" }), "required_team"],
      [oidcBody({ provider_type: "codehost" }), "issuer_url"],
      [oidcBody({ provider_type: "codehost", issuer_url: undefined, allow_domains: ["example.com"] }), "allow_domains"],
      [oidcBody({ organisation: "acme" }), "organisation"]
    ]
    for (const [body, field] of cases) {
      const response = await h.api("POST", "/api/v1/admin/sso", JSON.parse(JSON.stringify({ ...body, provider_key: body.provider_key === "corp" ? "other" : body.provider_key })))
      expect(response.status, `${field}: ${JSON.stringify(body)}`).toBe(400)
      expect(response.body.error.code).toBe("BAD_REQUEST")
      expect(response.body.error.message.startsWith(`${field}:`), `${response.body.error.message} should name ${field}`).toBe(true)
    }
    const malformed = await h.api("POST", "/api/v1/admin/sso", "{not json")
    expect(malformed.status).toBe(400)
    const duplicate = await h.api("POST", "/api/v1/admin/sso", oidcBody())
    expect(duplicate.status).toBe(409)
    expect(duplicate.body.error.message).toMatch(/^provider_key:/)
    expect((await h.api("GET", "/api/v1/admin/sso")).body).toHaveLength(1)
  })

  it("updates fields, keeps the secret unless one is sent, and keeps provider_key immutable", async () => {
    const [current] = (await h.api("GET", "/api/v1/admin/sso")).body
    const renamed = await h.api("PUT", `/api/v1/admin/sso/${current.id}`, { display_name: "Corporate", auto_provision: true })
    expect(renamed.status).toBe(200)
    expect(renamed.body).toMatchObject({ display_name: "Corporate", auto_provision: true, client_secret_set: true, provider_key: "corp" })
    expect(renamed.body.update_at).toBeGreaterThanOrEqual(current.update_at)
    const roundTrip = await h.api("PUT", `/api/v1/admin/sso/${current.id}`, renamed.body)
    expect(roundTrip.status).toBe(200)
    const rekey = await h.api("PUT", `/api/v1/admin/sso/${current.id}`, { provider_key: "corp2" })
    expect(rekey.status).toBe(400)
    expect(rekey.body.error.message).toMatch(/^provider_key: cannot be changed/)
    const retype = await h.api("PUT", `/api/v1/admin/sso/${current.id}`, { provider_type: "codehost" })
    expect(retype.status).toBe(200)
    expect(retype.body).toMatchObject({ provider_type: "codehost", issuer_url: null, groups_claim: null, role_mappings: null, web_base_url: "https://github.com" })
    const back = await h.api("PUT", `/api/v1/admin/sso/${current.id}`, { provider_type: "oidc", issuer_url: op.issuer, client_secret: SECRETS[1], role_mappings: null })
    expect(back.status).toBe(200)
    expect(back.body).toMatchObject({ provider_type: "oidc", groups_claim: "groups", client_secret_set: true })
    expect(JSON.stringify(back.body)).not.toContain(SECRETS[1])
    expect((await h.api("PUT", "/api/v1/admin/sso/not-a-uuid", { display_name: "x" })).status).toBe(400)
    expect((await h.api("PUT", "/api/v1/admin/sso/00000000-0000-4000-8000-000000000000", { display_name: "x" })).status).toBe(404)
    expect((await h.api("DELETE", "/api/v1/admin/sso/00000000-0000-4000-8000-000000000000")).status).toBe(404)
  })
})

describe("provider test", () => {
  it("reports discovery and key set details for a reachable OIDC provider and records the result", async () => {
    const [current] = (await h.api("GET", "/api/v1/admin/sso")).body
    const result = await h.api("POST", `/api/v1/admin/sso/${current.id}/test`)
    expect(result.status).toBe(200)
    expect(result.body).toEqual({
      success: true,
      message: expect.any(String),
      details: {
        issuer: op.issuer,
        authorization_endpoint: `${op.issuer}/auth`,
        token_endpoint: `${op.issuer}/token`,
        userinfo_endpoint: `${op.issuer}/me`,
        jwks_keys_count: 1
      }
    })
    const after = (await h.api("GET", "/api/v1/admin/sso")).body[0]
    expect(after.last_test_success).toBe(true)
    expect(after.last_test_at).toBeGreaterThan(0)
  })

  it("reports 'discovery failed' with the provider's HTTP status, or the network failure", async () => {
    const wrongPath = await createProvider(h, { provider_key: "wrong-path", provider_type: "oidc", display_name: "Wrong", issuer_url: `${op.issuer}/nope`, client_id: "x", client_secret: "s-wrong-1", is_active: false })
    const result = await h.api("POST", `/api/v1/admin/sso/${wrongPath.id}/test`)
    expect(result.body).toEqual({
      success: false,
      message: "OIDC discovery failed: HTTP 404",
      details: { issuer_url: `${op.issuer}/nope`, discovery_url: `${op.issuer}/nope/.well-known/openid-configuration`, http_status: 404, reason: expect.any(String) }
    })
    const dead = await createProvider(h, { provider_key: "dead", provider_type: "oidc", display_name: "Dead", issuer_url: "http://127.0.0.1:9", client_id: "x", client_secret: "s-dead-1", is_active: false })
    const unreachable = await h.api("POST", `/api/v1/admin/sso/${dead.id}/test`)
    expect(unreachable.body.success).toBe(false)
    expect(unreachable.body.message).toMatch(/^OIDC discovery failed: /)
    expect(unreachable.body.details).toMatchObject({ issuer_url: "http://127.0.0.1:9", discovery_url: "http://127.0.0.1:9/.well-known/openid-configuration" })
    for (const id of [wrongPath.id, dead.id]) await h.api("DELETE", `/api/v1/admin/sso/${id}`)
  })

  it("checks a code-hosting provider's API and configuration", async () => {
    const github = await createProvider(h, { provider_key: "gh", provider_type: "codehost", display_name: "GitHub", client_id: gh.clientId, client_secret: gh.clientSecret, web_base_url: gh.webBaseUrl, api_base_url: gh.apiBaseUrl, is_active: false })
    const ok = await h.api("POST", `/api/v1/admin/sso/${github.id}/test`)
    expect(ok.body).toMatchObject({ success: true, details: { api_base_url: gh.apiBaseUrl, web_base_url: gh.webBaseUrl, http_status: 200 } })
    gh.down = true
    const down = await h.api("POST", `/api/v1/admin/sso/${github.id}/test`)
    gh.down = false
    expect(down.body).toMatchObject({ success: false, message: "Provider API answered HTTP 503" })
    await h.api("DELETE", `/api/v1/admin/sso/${github.id}`)
  })
})

describe("global settings and Require SSO", () => {
  it("refuses require_sso without SSO enabled and an active tested provider, then closes web password sign-in only", async () => {
    expect((await h.api("GET", "/api/v1/admin/sso/settings")).body).toEqual({ enable_sso: false, require_sso: false })
    expect((await h.api("PUT", "/api/v1/admin/sso/settings", { require_sso: true })).status).toBe(409)
    expect((await h.api("PUT", "/api/v1/admin/sso/settings", { enable: true })).status).toBe(400)
    expect((await h.api("PUT", "/api/v1/admin/sso/settings", { enable_sso: "yes" })).status).toBe(400)
    await enableSso(h)
    const [corp] = (await h.api("GET", "/api/v1/admin/sso")).body
    // Tested but inactive: still refused.
    const refused = await h.api("PUT", "/api/v1/admin/sso/settings", { require_sso: true })
    expect(refused.status).toBe(409)
    expect(refused.body.error.message).toMatch(/^require_sso:/)
    await h.api("PUT", `/api/v1/admin/sso/${corp.id}`, { is_active: true })
    const required = await h.api("PUT", "/api/v1/admin/sso/settings", { require_sso: true })
    expect(required.body).toEqual({ enable_sso: true, require_sso: true })

    // While required, the last tested provider can be neither deactivated, nor deleted, nor changed untested.
    expect((await h.api("PUT", `/api/v1/admin/sso/${corp.id}`, { is_active: false })).status).toBe(409)
    expect((await h.api("DELETE", `/api/v1/admin/sso/${corp.id}`)).status).toBe(409)
    expect((await h.api("PUT", `/api/v1/admin/sso/${corp.id}`, { client_secret: "another-secret-1" })).status).toBe(409)
    expect((await h.api("PUT", "/api/v1/admin/sso/settings", { enable_sso: false })).status).toBe(409)

    // A browser's password sign-in (it sends Origin and Sec-Fetch-*) is refused with 403 ...
    const web = await fetch(`${h.server.url}/api/v4/users/login`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-requested-with": "XMLHttpRequest", origin: SITE, "sec-fetch-site": "same-origin", "sec-fetch-mode": "cors", "sec-fetch-dest": "empty" },
      body: JSON.stringify({ login_id: "chief", password: PASSWORD })
    })
    expect(web.status).toBe(403)
    expect(await web.json()).toMatchObject({ id: "api.user.login.sso_required.app_error", status_code: 403 })
    // ... while integrations and the mobile app's native client still sign in with a password.
    const api = await client4(h.server.url).login("chief", PASSWORD)
    expect(api.username).toBe("chief")
    // The web client's sign-in page offers no password form while the client config says so.
    const anonymous = await (await fetch(`${h.server.url}/api/v4/config/client?format=old`)).json()
    expect(anonymous).toMatchObject({ EnableSignInWithEmail: "false", EnableSignInWithUsername: "false" })

    expect((await h.api("PUT", "/api/v1/admin/sso/settings", { require_sso: false })).body).toEqual({ enable_sso: true, require_sso: false })
    const again = await fetch(`${h.server.url}/api/v4/users/login`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: SITE, "sec-fetch-site": "same-origin" },
      body: JSON.stringify({ login_id: "chief", password: PASSWORD })
    })
    expect(again.status).toBe(200)
    const config = await (await fetch(`${h.server.url}/api/v4/config/client?format=old`)).json()
    expect(config).toMatchObject({ EnableSignInWithEmail: "true", EnableSignInWithUsername: "true" })
  })

  it("lists only active providers publicly, with absolute login URLs, and nothing while SSO is disabled", async () => {
    const list = await h.api("GET", "/api/v1/oauth2/providers", undefined, null)
    expect(list.body).toEqual([
      { id: expect.any(String), provider_key: "corp", provider_type: "oidc", display_name: "Corporate", login_url: `${SITE}/api/v1/oauth2/corp/login` }
    ])
    await enableSso(h, { enable_sso: false })
    expect((await h.api("GET", "/api/v1/oauth2/providers", undefined, null)).body).toEqual([])
    await enableSso(h, { enable_sso: true })
  })

  it("deletes a provider", async () => {
    const extra = await createProvider(h, { provider_key: "extra", provider_type: "oidc", display_name: "Extra", issuer_url: op.issuer, client_id: "x", client_secret: "s-extra-1" })
    expect((await h.api("DELETE", `/api/v1/admin/sso/${extra.id}`)).status).toBe(204)
    expect((await h.api("DELETE", `/api/v1/admin/sso/${extra.id}`)).status).toBe(404)
  })
})

describe("secrets", () => {
  it("never appear in a log line", async () => {
    // The capture works: the service's own request log lines are in it.
    expect(logged.some((line) => line.includes("/api/v1/admin/sso"))).toBe(true)
    for (const secret of SECRETS) expect(logged.filter((line) => line.includes(secret))).toEqual([])
    expect(JSON.stringify((await h.api("GET", "/api/v1/admin/sso")).body)).not.toMatch(/secret-[0-9a-f]{8}/)
  })
})

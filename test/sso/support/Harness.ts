import * as IdP from "../../../layers/IdP.ts"
import { client4 } from "../../support/Clients.ts"
import { startServer, type TestServer } from "../../support/TestServer.ts"
import type { CapabilityOverrides } from "../../../src/Server.ts"
import { Browser } from "./Browser.ts"

/**
 * The service as SSO tests see it: public at SITE (the registered redirect origin, mapped onto the loopback port by
 * the test browser), the IdP capability allowing http:// loopback providers, and a first user who is the admin.
 */
export const SITE = "http://chat.test"
export const PASSWORD = "correct-horse-battery"

export interface SsoHarness {
  readonly server: TestServer
  readonly adminToken: string
  readonly browser: () => Browser
  readonly api: (method: string, path: string, body?: unknown, token?: string | null) => Promise<{ status: number; body: any; headers: Headers }>
  readonly close: () => Promise<void>
}

export const startSsoServer = async (options: { readonly env?: Record<string, string>; readonly overrides?: CapabilityOverrides } = {}): Promise<SsoHarness> => {
  const server = await startServer({
    env: { SERVICE_SITE_URL: SITE, ...options.env },
    overrides: { idp: IdP.layer({ allowInsecureRequests: true, timeoutSeconds: 2, breakerMaxFailures: 3, breakerResetAfter: "30 seconds" }), ...options.overrides }
  })
  const admin = client4(server.url)
  await admin.createUser({ username: "chief", email: "chief@example.com", password: PASSWORD } as never, "", "")
  await admin.login("chief", PASSWORD)
  const adminToken = admin.getToken()
  const api: SsoHarness["api"] = async (method, path, body, token = adminToken) => {
    const headers: Record<string, string> = { accept: "application/json" }
    if (token !== null) headers.authorization = `Bearer ${token}`
    if (body !== undefined) headers["content-type"] = "application/json"
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
      redirect: "manual"
    })
    const text = await response.text()
    let parsed: unknown = text
    try {
      parsed = text === "" ? undefined : JSON.parse(text)
    } catch {
      parsed = text
    }
    return { status: response.status, body: parsed, headers: response.headers }
  }
  return {
    server,
    adminToken,
    browser: () => new Browser({ [SITE]: server.url }),
    api,
    close: () => server.close()
  }
}

/** Creates a provider through the admin API, marks it tested when asked, and fails the test on any error. */
export const createProvider = async (h: SsoHarness, body: Record<string, unknown>, test = false) => {
  const created = await h.api("POST", "/api/v1/admin/sso", { is_active: true, auto_provision: true, ...body })
  if (created.status !== 201) throw new Error(`create provider: ${created.status} ${JSON.stringify(created.body)}`)
  if (test) {
    const result = await h.api("POST", `/api/v1/admin/sso/${created.body.id}/test`)
    if (result.body?.success !== true) throw new Error(`test provider: ${JSON.stringify(result.body)}`)
  }
  return created.body as { id: string; provider_key: string }
}

export const enableSso = async (h: SsoHarness, settings: Record<string, boolean> = { enable_sso: true }) => {
  const result = await h.api("PUT", "/api/v1/admin/sso/settings", settings)
  if (result.status !== 200) throw new Error(`settings: ${result.status} ${JSON.stringify(result.body)}`)
}

export interface FlowEnd {
  readonly browser: Browser
  readonly url: URL
  readonly code: string | null
  readonly error: string | null
}

/** Runs a browser through login → provider → callback until it lands on /login. */
export const signIn = async (h: SsoHarness, providerKey: string, browser = h.browser(), redirectUri = "/channels/town-square"): Promise<FlowEnd> => {
  const start = `${SITE}/api/v1/oauth2/${providerKey}/login?redirect_uri=${encodeURIComponent(redirectUri)}`
  const end = await browser.follow(start, (u) => u.origin === SITE && u.pathname === "/login")
  return { browser, url: end.url, code: end.url.searchParams.get("code"), error: end.url.searchParams.get("error") }
}

/** Runs a browser to the provider's redirect back to the callback, without calling the callback. */
export const toCallback = async (h: SsoHarness, providerKey: string, browser = h.browser()) => {
  const start = `${SITE}/api/v1/oauth2/${providerKey}/login`
  const end = await browser.follow(start, (u) => u.origin === SITE && u.pathname.endsWith("/callback"))
  return { browser, url: end.url }
}

export const exchange = async (browser: Browser, code: string) => {
  const response = await browser.fetch(`${SITE}/api/v1/oauth2/exchange`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-requested-with": "XMLHttpRequest" },
    body: JSON.stringify({ code })
  })
  return { status: response.status, body: await response.json() as any, headers: response.headers }
}

/** GET /api/v4/users/me with the browser's session cookie. */
export const me = async (browser: Browser) => {
  const response = await browser.fetch(`${SITE}/api/v4/users/me`)
  return { status: response.status, body: await response.json() as any }
}

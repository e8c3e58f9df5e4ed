import { createHash, randomBytes, randomUUID } from "node:crypto"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { expectShape, Wire } from "../compat/Shapes.ts"
import { client4 } from "../support/Clients.ts"
import { Browser } from "./support/Browser.ts"
import { jwtParts, startFakeOidc, type FakeOidc } from "./support/FakeOidc.ts"
import { createProvider, enableSso, exchange, me, PASSWORD, signIn, SITE, type SsoHarness, startSsoServer, toCallback } from "./support/Harness.ts"
import { shiftedCache } from "./support/ShiftedCache.ts"

/**
 * Full browser-like flows against a real OpenID provider (oidc-provider) on loopback, for the generic OIDC kind and
 * the web-identity kind (issuer pointed at loopback), plus the official mobile app's SSO.
 */

const logged: Array<string> = []
const cache = shiftedCache()
let h: SsoHarness
let op: FakeOidc

beforeAll(async () => {
  for (const method of ["log", "info", "warn", "error", "debug"] as const) {
    vi.spyOn(console, method).mockImplementation((...args: Array<unknown>) => {
      logged.push(args.map((a) => (typeof a === "string" ? a : JSON.stringify(a) ?? String(a))).join(" "))
    })
  }
  h = await startSsoServer({ env: { SERVICE_LOG_LEVEL: "WARN" }, overrides: { cache: cache.layer } })
  op = await startFakeOidc({ redirectUris: ["corp", "google", "corp-dead"].map((k) => `${SITE}/api/v1/oauth2/${k}/callback`) })
  const account = (email: string, extra: Record<string, unknown> = {}) => ({ email, email_verified: true, ...extra })
  op.accounts.set("alice", account("alice@corp.example", { name: "Alice Liddell", preferred_username: "alice", groups: ["engineering", "chat-admins"] }))
  op.accounts.set("bob", account("bob@corp.example", { email_verified: false, preferred_username: "bob" }))
  op.accounts.set("carol", account("Carol@Corp.example", { preferred_username: "carol-sso", groups: ["chat-admins"] }))
  op.accounts.set("dave", account("dave@corp.example", { name: "Dave Bowman", groups: ["nothing-mapped"] }))
  op.accounts.set("gus", account("gus@corp.example", { preferred_username: "gus", groups: "visitors" }))
  op.accounts.set("truthy", account("truthy@corp.example", { email_verified: "true" }))
  op.accounts.set("gina", account("gina@example.com", { hd: "example.com", name: "Gina" }))
  op.accounts.set("mallory", account("mallory@evil.example", { hd: "evil.example" }))
  op.accounts.set("hank", account("hank@example.com"))
  op.accounts.set("ivan", account("ivan@example.com", { hd: "other.example" }))
  await createProvider(h, {
    provider_key: "corp",
    provider_type: "oidc",
    display_name: "Corp",
    issuer_url: op.issuer,
    client_id: op.clientId,
    client_secret: op.clientSecret,
    role_mappings: { "chat-admins": "org_admin", visitors: "guest", engineering: "member" }
  }, true)
  await createProvider(h, {
    provider_key: "google",
    provider_type: "webidp",
    display_name: "Google",
    issuer_url: op.issuer,
    client_id: op.clientId,
    client_secret: op.clientSecret,
    allow_domains: ["example.com"]
  }, true)
  await enableSso(h)
})
afterAll(async () => {
  await h?.close()
  await op?.close()
  vi.restoreAllMocks()
})

const securityEvents = (name: string) => logged.filter((line) => line.includes(`security event: ${name}`))

describe("oidc: new and returning users", () => {
  it("creates a user on first sign-in, maps the role, and delivers the session by one-time code and cookie", async () => {
    op.nextAccount = "alice"
    const flow = await signIn(h, "corp")
    expect(flow.error).toBeNull()
    expect(flow.url.pathname).toBe("/login")
    expect(flow.code).toMatch(/^[\w-]{43}$/)
    const redeemed = await exchange(flow.browser, flow.code!)
    expect(redeemed.status).toBe(200)
    expect(redeemed.body).toMatchObject({ token: expect.any(String), csrf: expect.any(String), redirect_uri: "/channels/town-square" })
    expect(redeemed.headers.get("cache-control")).toBe("no-store")
    expect(flow.browser.cookie("MMAUTHTOKEN")).toBe(redeemed.body.token)
    expect(flow.url.toString()).not.toContain(redeemed.body.token)

    const self = await me(flow.browser)
    expect(self.status).toBe(200)
    expect(self.body).toMatchObject({
      username: "alice",
      email: "alice@corp.example",
      email_verified: true,
      first_name: "Alice",
      last_name: "Liddell",
      auth_service: "openid",
      // chat-admins → org_admin outranks engineering → member.
      roles: "system_user_manager system_user"
    })
    const viaToken = await client4(h.server.url, redeemed.body.token).getMe()
    expect(viaToken.id).toBe(self.body.id)
  })

  it("signs a returning user into the same account", async () => {
    op.nextAccount = "alice"
    const first = await me((await signInAndExchange("corp")).browser)
    const second = await me((await signInAndExchange("corp")).browser)
    expect(second.body.id).toBe(first.body.id)
    expect(second.body.username).toBe("alice")
  })

  it("links an existing account by verified email without touching its password", async () => {
    const signup = client4(h.server.url)
    const carol = await signup.createUser({ username: "carol", email: "carol@corp.example", password: PASSWORD } as never, "", "")
    op.nextAccount = "carol"
    const { browser } = await signInAndExchange("corp")
    const linked = await me(browser)
    expect(linked.body.id).toBe(carol.id)
    expect(linked.body.username).toBe("carol")
    // Roles of existing accounts are never changed by a provider's groups.
    expect(linked.body.roles).toBe("system_user")
    const db = new pg.Client({ connectionString: h.server.databaseUrl })
    await db.connect()
    const { rows } = await db.query("SELECT last_login FROM users WHERE id = $1", [carol.id])
    await db.end()
    expect(Number(rows[0].last_login)).toBeGreaterThan(0)
    const withPassword = await client4(h.server.url).login("carol", PASSWORD)
    expect(withPassword.id).toBe(carol.id)
  })

  it("applies default_role when no group maps, and a guest mapping from a single-string claim", async () => {
    op.nextAccount = "dave"
    const dave = await me((await signInAndExchange("corp")).browser)
    expect(dave.body).toMatchObject({ username: "dave-bowman", roles: "system_user", first_name: "Dave" })
    op.nextAccount = "gus"
    const gus = await me((await signInAndExchange("corp")).browser)
    expect(gus.body).toMatchObject({ username: "gus", roles: "system_guest" })
  })
})

describe("oidc: refusals", () => {
  it("refuses an unverified email (and a truthy non-boolean email_verified) without creating a user", async () => {
    for (const account of ["bob", "truthy"]) {
      op.nextAccount = account
      const flow = await signIn(h, "corp")
      expect(flow.code).toBeNull()
      expect(flow.error).toBe("Email not verified")
    }
    await expect(client4(h.server.url, h.adminToken).getUserByEmail("bob@corp.example")).rejects.toMatchObject({ status_code: 404 })
  })

  it("reports access_denied from the provider", async () => {
    op.nextAccount = "alice"
    op.denyNext = true
    const flow = await signIn(h, "corp")
    expect(flow.error).toBe("Sign-in was denied at the identity provider")
  })

  it("refuses a forged ID token (tampered payload, original signature)", async () => {
    op.nextAccount = "dave"
    op.mutateIdToken = async (token) => {
      const [header, , signature] = token.split(".")
      const claims = { ...jwtParts(token).claims, groups: ["chat-admins"], email: "alice@corp.example" }
      return `${header}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.${signature}`
    }
    try {
      const flow = await signIn(h, "corp")
      expect(flow.error).toBe("The identity provider's response could not be verified")
    } finally {
      op.mutateIdToken = undefined
    }
  })

  it("refuses an expired ID token signed with the provider's own key, and one signed by a foreign key with the same kid", async () => {
    op.nextAccount = "dave"
    const now = Math.floor(Date.now() / 1000)
    const variants: Array<[string, NonNullable<FakeOidc["mutateIdToken"]>]> = [
      ["expired", (token, sign) => sign({ ...jwtParts(token).claims, iat: now - 7200, exp: now - 3600 })],
      ["foreign", (token, sign) => sign(jwtParts(token).claims, "foreign")]
    ]
    try {
      for (const [name, mutate] of variants) {
        op.mutateIdToken = mutate
        const flow = await signIn(h, "corp")
        expect(flow.error, name).toBe("The identity provider's response could not be verified")
      }
      // Control: the same claims re-signed with the provider's key pass, so the refusals above are the signature's.
      op.mutateIdToken = (token, sign) => sign(jwtParts(token).claims)
      const control = await signIn(h, "corp")
      expect(control.code).not.toBeNull()
    } finally {
      op.mutateIdToken = undefined
    }
  })
})

describe("webidp: domain restriction", () => {
  it("admits a verified email in an allowed domain with a matching hd claim", async () => {
    op.nextAccount = "gina"
    const gina = await me((await signInAndExchange("google")).browser)
    expect(gina.body).toMatchObject({ username: "gina", email: "gina@example.com", auth_service: "google", roles: "system_user" })
  })

  it("refuses other domains, a missing hd claim and a mismatched hd claim", async () => {
    for (const account of ["mallory", "hank", "ivan"]) {
      op.nextAccount = account
      const flow = await signIn(h, "google")
      expect(flow.error, account).toBe("Email domain not allowed")
    }
  })
})

describe("state and codes", () => {
  it("refuses a tampered state and logs the security event", async () => {
    op.nextAccount = "alice"
    const { browser, url } = await toCallback(h, "corp")
    const state = url.searchParams.get("state")!
    url.searchParams.set("state", `${state.slice(0, -1)}${state.endsWith("A") ? "B" : "A"}`)
    const before = securityEvents("Invalid OAuth state").length
    const end = await browser.follow(url, (u) => u.pathname === "/login")
    expect(end.url.searchParams.get("error")).toBe("Invalid or expired OAuth state")
    expect(securityEvents("Invalid OAuth state").length).toBe(before + 1)
  })

  it("refuses a replayed callback: the state is consumed once", async () => {
    op.nextAccount = "alice"
    const { browser, url } = await toCallback(h, "corp")
    const first = await browser.follow(url, (u) => u.pathname === "/login")
    expect(first.url.searchParams.get("code")).not.toBeNull()
    const replay = await browser.follow(url, (u) => u.pathname === "/login")
    expect(replay.url.searchParams.get("error")).toBe("Invalid or expired OAuth state")
  })

  it("refuses a state older than five minutes", async () => {
    op.nextAccount = "alice"
    const browser = h.browser()
    const login = await browser.fetch(`${SITE}/api/v1/oauth2/corp/login`)
    const authorize = login.headers.get("location")!
    cache.advance(5 * 60_000 + 1000)
    const end = await browser.follow(authorize, (u) => u.origin === SITE && u.pathname === "/login")
    expect(end.url.searchParams.get("error")).toBe("Invalid or expired OAuth state")
  })

  it("answers JSON clients with the documented status instead of a redirect", async () => {
    const response = await fetch(`${h.server.url}/api/v1/oauth2/corp/callback?code=x&state=made-up`, { headers: { accept: "application/json" } })
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ error: { code: "BAD_REQUEST", id: "api.sso.invalid_state", message: "Invalid or expired OAuth state", status: 400 } })
  })

  it("redeems an exchange code once; a replay is refused, logged, and revokes the session it created", async () => {
    op.nextAccount = "alice"
    const flow = await signIn(h, "corp")
    const first = await exchange(flow.browser, flow.code!)
    expect(first.status).toBe(200)
    const before = securityEvents("Exchange code reuse").length
    const attacker = new Browser({ [SITE]: h.server.url })
    const replay = await exchange(attacker, flow.code!)
    expect(replay.status).toBe(400)
    expect(replay.body.error).toMatchObject({ code: "BAD_REQUEST", message: "Invalid or expired exchange code" })
    expect(securityEvents("Exchange code reuse").length).toBe(before + 1)
    expect((await client4(h.server.url, first.body.token).getMe().catch((e) => e)).status_code).toBe(401)
    const madeUp = await exchange(attacker, "not-a-code")
    expect(madeUp.status).toBe(400)
    expect(securityEvents("Exchange code reuse").length).toBe(before + 1)
  })

  it("refuses redirect targets outside the service", async () => {
    for (const target of ["https://evil.example/", "//evil.example/x", "/\\evil.example", "javascript:alert(1)"]) {
      const flow = await signIn(h, "corp", h.browser(), target)
      // A NUL is refused earlier, by the query decoding, naming the same parameter.
      if (target.includes("\u0000")) expect(flow.error, target).toMatch(/redirect_uri contains a NUL/)
      else expect(flow.error, target).toBe("redirect_uri must be a path inside this service")
    }
    // A NUL character is refused where every query is decoded, before the flow looks at the target.
    expect((await signIn(h, "corp", h.browser(), "/ok\u0000")).error).toMatch(/^Invalid query parameter: redirect_uri contains a NUL character/)
  })

  it("answers an unknown provider on the login page", async () => {
    const flow = await signIn(h, "nobody")
    expect(flow.error).toBe("Unknown SSO provider")
  })
})

describe("provider down", () => {
  it("fails discovery with 'OIDC discovery failed' while other providers and password login keep working", async () => {
    await createProvider(h, { provider_key: "corp-dead", provider_type: "oidc", display_name: "Dead", issuer_url: "http://127.0.0.1:9", client_id: "x", client_secret: "s-dead-2" })
    const failures = []
    for (let i = 0; i < 4; i++) failures.push((await signIn(h, "corp-dead")).error)
    expect(failures.slice(0, 3)).toEqual(["OIDC discovery failed", "OIDC discovery failed", "OIDC discovery failed"])
    // Three failures opened this provider's breaker: the call is not even attempted.
    expect(failures[3]).toBe("The identity provider is unavailable; try again later")
    op.nextAccount = "alice"
    expect((await signIn(h, "corp")).code).not.toBeNull()
    expect((await client4(h.server.url).login("chief", PASSWORD)).username).toBe("chief")
  })
})

describe("official mobile app", () => {
  const verifier = () => randomBytes(64).toString("base64url")
  const challenge = (v: string) => createHash("sha256").update(v).digest("base64url")
  const start = (service: string, v: string, state: string, redirectTo = "mmauth://callback") =>
    `${SITE}/oauth/${service}/mobile_login?redirect_to=${encodeURIComponent(redirectTo)}&state=${state}&code_challenge=${challenge(v)}&code_challenge_method=S256`
  const codeExchange = (body: Record<string, string>) =>
    fetch(`${h.server.url}/api/v4/users/login/sso/code-exchange`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })

  it("finishes at mmauth://callback with a login_code that the app redeems with its PKCE verifier", async () => {
    op.nextAccount = "alice"
    const v = verifier()
    const state = randomUUID()
    const end = await h.browser().follow(start("openid", v, state), (u) => u.protocol === "mmauth:")
    expect(end.url.toString()).toMatch(/^mmauth:\/\/callback\?login_code=[\w-]+&srv=/)
    expect(end.url.searchParams.get("srv")).toBe(SITE)
    const response = await codeExchange({ login_code: end.url.searchParams.get("login_code")!, code_verifier: v, state })
    expect(response.status).toBe(200)
    expect(response.headers.get("cache-control")).toBe("no-store")
    const body = expectShape(await response.json(), Wire.SsoCodeExchangeResult, "code exchange")
    expect(Object.keys(body).sort()).toEqual(["csrf", "token"])
    expect((await client4(h.server.url, body.token).getMe()).username).toBe("alice")
  })

  it("burns the login_code on a wrong verifier or state, and logs a replay", async () => {
    op.nextAccount = "alice"
    const v = verifier()
    const state = randomUUID()
    const end = await h.browser().follow(start("openid", v, state), (u) => u.protocol === "mmauth:")
    const loginCode = end.url.searchParams.get("login_code")!
    const wrong = await codeExchange({ login_code: loginCode, code_verifier: verifier(), state })
    expect(wrong.status).toBe(400)
    expect(await wrong.json()).toMatchObject({ status_code: 400 })
    const before = securityEvents("Exchange code reuse").length
    expect((await codeExchange({ login_code: loginCode, code_verifier: v, state })).status).toBe(400)
    expect(securityEvents("Exchange code reuse").length).toBe(before + 1)

    const v2 = verifier()
    const end2 = await h.browser().follow(start("openid", v2, state), (u) => u.protocol === "mmauth:")
    expect((await codeExchange({ login_code: end2.url.searchParams.get("login_code")!, code_verifier: v2, state: randomUUID() })).status).toBe(400)
  })

  it("maps google onto the webidp provider and refuses bad schemes, plain PKCE and services without a provider", async () => {
    op.nextAccount = "gina"
    const v = verifier()
    const end = await h.browser().follow(start("google", v, "s1"), (u) => u.protocol === "mmauth:")
    expect(end.url.searchParams.get("login_code")).not.toBeNull()
    const bad = await fetch(`${h.server.url}${new URL(start("openid", v, "s", "https://evil.example/cb")).pathname}${new URL(start("openid", v, "s", "https://evil.example/cb")).search}`, { redirect: "manual" })
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({ id: "api.invalid_custom_url_scheme" })
    const plain = await fetch(`${h.server.url}/oauth/openid/mobile_login?redirect_to=mmauth://callback&state=s&code_challenge=${v}&code_challenge_method=plain`, { redirect: "manual" })
    expect(plain.status).toBe(400)
    const gitlab = await fetch(`${h.server.url}/oauth/gitlab/mobile_login?redirect_to=mmauth://callback&state=s&code_challenge=${challenge(v)}&code_challenge_method=S256`, { redirect: "manual" })
    expect(gitlab.status).toBe(404)
  })

  it("shows a failure page in the app's browser when the provider refuses", async () => {
    op.nextAccount = "bob"
    const end = await h.browser().follow(start("openid", verifier(), "s2"), (u) => u.protocol === "mmauth:")
    expect(end.response?.status).toBe(403)
    const page = await end.response!.text()
    expect(page).toContain("Email not verified")
    expect(page).toContain(`href="mmauth://callback"`)
  })
})

describe("web and desktop apps", () => {
  const webStart = (path: string, redirectTo: string) => `${SITE}${path}?redirect_to=${encodeURIComponent(redirectTo)}`
  const toLoginPage = (u: URL) => u.origin === SITE && u.pathname === "/login"

  it("signs in through /oauth/openid/login and /oauth/google/signup, ending on redirect_to with the session cookie", async () => {
    op.nextAccount = "alice"
    const browser = h.browser()
    const end = await browser.follow(webStart("/oauth/openid/login", "/myteam/channels/town-square"), toLoginPage)
    const code = end.url.searchParams.get("code")
    expect(end.url.searchParams.get("error")).toBeNull()
    const redeemed = await exchange(browser, code!)
    expect(redeemed.status).toBe(200)
    expect(redeemed.body.redirect_uri).toBe("/myteam/channels/town-square")
    expect(browser.cookie("MMAUTHTOKEN")).toBe(redeemed.body.token)
    expect((await me(browser)).body).toMatchObject({ username: "alice", auth_service: "openid" })

    op.nextAccount = "gina"
    const other = h.browser()
    const signup = await other.follow(webStart("/oauth/google/signup", "/"), toLoginPage)
    expect((await exchange(other, signup.url.searchParams.get("code")!)).status).toBe(200)
    expect((await me(other)).body).toMatchObject({ email: "gina@example.com" })
  })

  it("sends the browser back to /login with the reason for an unknown service, a kind without a provider or a foreign redirect", async () => {
    for (const [path, redirectTo] of [["/oauth/nope/login", "/"], ["/oauth/gitlab/login", "/"], ["/oauth/openid/login", "https://evil.example/"]]) {
      const end = await h.browser().follow(webStart(path, redirectTo), toLoginPage)
      expect(end.url.searchParams.get("code")).toBeNull()
      expect(end.url.searchParams.get("error")).not.toBeNull()
    }
    const json = await fetch(`${h.server.url}/oauth/nope/login`, { headers: { accept: "application/json" }, redirect: "manual" })
    expect(json.status).toBe(404)
    expect(await json.json()).toMatchObject({ id: "api.sso.unknown_service", status_code: 404 })
  })
})

describe("login page", () => {
  it("is the web client's page (which redeems ?code= itself), with no referrer and scripts from the origin only", async () => {
    const response = await fetch(`${h.server.url}/login?code=abc`)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8")
    expect(response.headers.get("referrer-policy")).toBe("no-referrer")
    expect(response.headers.get("content-security-policy")).toContain("script-src 'self'")
    expect(await response.text()).toContain(`<div id="app">`)
  })
})

async function signInAndExchange(providerKey: string) {
  const flow = await signIn(h, providerKey)
  if (flow.code === null) throw new Error(`sign-in failed: ${flow.error}`)
  const redeemed = await exchange(flow.browser, flow.code)
  if (redeemed.status !== 200) throw new Error(`exchange failed: ${JSON.stringify(redeemed.body)}`)
  return { browser: flow.browser, token: redeemed.body.token as string }
}

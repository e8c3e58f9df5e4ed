import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client4 } from "../support/Clients.ts"
import { startFakeGithub, type FakeGithub } from "./support/FakeGithub.ts"
import { createProvider, enableSso, exchange, me, PASSWORD, signIn, SITE, type SsoHarness, startSsoServer, toCallback } from "./support/Harness.ts"

/** Full browser-like flows against a fake GitHub (Enterprise layout) speaking GitHub's wire format. */

let h: SsoHarness
let gh: FakeGithub

const verified = (email: string) => [{ email, primary: true, verified: true }]

beforeAll(async () => {
  h = await startSsoServer()
  gh = await startFakeGithub({ callbackPrefix: `${SITE}/api/v1/oauth2/` })
  gh.accounts.set("octocat", { id: 583231, login: "octocat", name: "The Octocat", emails: verified("octocat@github.example") })
  gh.accounts.set("dana", { id: 1002, login: "dana", emails: verified("dana@corp.example") })
  gh.accounts.set("unverified", { id: 1003, login: "unverified", emails: [{ email: "u@corp.example", primary: true, verified: false }, { email: "u2@corp.example", primary: false, verified: true }] })
  gh.accounts.set("member", { id: 1004, login: "member", emails: verified("member@acme.example"), orgs: { acme: "active" }, teams: { "acme/chat": "active" } })
  gh.accounts.set("outsider", { id: 1005, login: "outsider", emails: verified("outsider@acme.example") })
  gh.accounts.set("pending", { id: 1006, login: "pending", emails: verified("pending@acme.example"), orgs: { acme: "pending" } })
  gh.accounts.set("teamless", { id: 1007, login: "teamless", emails: verified("teamless@acme.example"), orgs: { acme: "active" }, teams: { "acme/other": "active" } })
  const common = { provider_type: "codehost", client_id: gh.clientId, client_secret: gh.clientSecret, web_base_url: gh.webBaseUrl, api_base_url: gh.apiBaseUrl }
  await createProvider(h, { ...common, provider_key: "gh", display_name: "GitHub" }, true)
  await createProvider(h, { ...common, provider_key: "gh-acme", display_name: "GitHub (Acme)", required_organization: "acme", required_team: "chat" }, true)
  await enableSso(h)
})
afterAll(async () => {
  await h?.close()
  await gh?.close()
})

const signInAs = async (login: string, key = "gh") => {
  gh.nextLogin = login
  return signIn(h, key)
}

describe("codehost sign-in", () => {
  it("asks for read:user and user:email, adding read:org only with an organization restriction", async () => {
    const plain = await h.browser().fetch(`${SITE}/api/v1/oauth2/gh/login`)
    const restricted = await h.browser().fetch(`${SITE}/api/v1/oauth2/gh-acme/login`)
    const plainUrl = new URL(plain.headers.get("location")!)
    expect(plainUrl.origin + plainUrl.pathname).toBe(`${gh.webBaseUrl}/login/oauth/authorize`)
    expect(plainUrl.searchParams.get("scope")).toBe("read:user user:email")
    expect(plainUrl.searchParams.get("redirect_uri")).toBe(`${SITE}/api/v1/oauth2/gh/callback`)
    expect(plainUrl.searchParams.get("client_id")).toBe(gh.clientId)
    expect(new URL(restricted.headers.get("location")!).searchParams.get("scope")).toBe("read:user user:email read:org")
  })

  it("creates a user from the primary verified email and GitHub's numeric id", async () => {
    const flow = await signInAs("octocat")
    expect(flow.error).toBeNull()
    const redeemed = await exchange(flow.browser, flow.code!)
    expect(redeemed.status).toBe(200)
    const user = await me(flow.browser)
    expect(user.body).toMatchObject({ username: "octocat", email: "octocat@github.example", first_name: "The", last_name: "Octocat", auth_service: "gitlab", roles: "system_user" })
  })

  it("keeps the account when the GitHub login is renamed (identity keyed by id)", async () => {
    const first = await me((await exchangeFlow(await signInAs("octocat"))).browser)
    const account = gh.accounts.get("octocat")!
    gh.accounts.set("octocat-renamed", { ...account, login: "octocat-renamed" })
    const renamed = await me((await exchangeFlow(await signInAs("octocat-renamed"))).browser)
    expect(renamed.body.id).toBe(first.body.id)
    gh.accounts.delete("octocat-renamed")
  })

  it("links an existing account by email, and never links a second GitHub identity onto it", async () => {
    const dana = await client4(h.server.url).createUser({ username: "dana", email: "dana@corp.example", password: PASSWORD } as never, "", "")
    const linked = await me((await exchangeFlow(await signInAs("dana"))).browser)
    expect(linked.body.id).toBe(dana.id)
    gh.accounts.set("dana-second", { id: 2002, login: "dana-second", emails: verified("dana@corp.example") })
    const takeover = await signInAs("dana-second")
    expect(takeover.error).toBe("This account is already linked to another identity at this provider")
  })

  it("refuses a user whose primary email is unverified", async () => {
    expect((await signInAs("unverified")).error).toBe("No verified email found")
  })

  it("enforces organization (active membership) and team restrictions", async () => {
    expect((await signInAs("outsider", "gh-acme")).error).toBe("User is not a member of required GitHub organization")
    expect((await signInAs("pending", "gh-acme")).error).toBe("User is not a member of required GitHub organization")
    expect((await signInAs("teamless", "gh-acme")).error).toBe("User is not a member of required GitHub team")
    const ok = await signInAs("member", "gh-acme")
    expect(ok.code).not.toBeNull()
  })

  it("reports access_denied, a replayed callback and a code the provider does not know", async () => {
    gh.denyNext = true
    expect((await signInAs("octocat")).error).toBe("Sign-in was denied at the identity provider")

    gh.nextLogin = "octocat"
    const { browser, url } = await toCallback(h, "gh")
    expect((await browser.follow(url, (u) => u.pathname === "/login")).url.searchParams.get("code")).not.toBeNull()
    expect((await browser.follow(url, (u) => u.pathname === "/login")).url.searchParams.get("error")).toBe("Invalid or expired OAuth state")

    // GitHub answers a bad code with HTTP 200 and {"error": "bad_verification_code"}.
    const login = await h.browser().fetch(`${SITE}/api/v1/oauth2/gh/login`)
    const state = new URL(login.headers.get("location")!).searchParams.get("state")!
    const forged = await h.browser().follow(`${SITE}/api/v1/oauth2/gh/callback?code=made-up&state=${state}`, (u) => u.pathname === "/login")
    expect(forged.url.searchParams.get("error")).toBe("The identity provider's response could not be verified")
  })
})

describe("provider down", () => {
  it("opens this provider's breaker after three failures; the other provider and password login keep working", async () => {
    gh.down = true
    const errors: Array<string | null> = []
    const hits: Array<number> = []
    for (let i = 0; i < 4; i++) {
      const before = gh.hits
      errors.push((await signInAs("octocat")).error)
      hits.push(gh.hits - before)
    }
    expect(errors).toEqual(Array(4).fill("The identity provider is unavailable; try again later"))
    expect(hits.slice(0, 3).every((n) => n === 1)).toBe(true)
    // Open: the fourth sign-in did not reach the provider at all.
    expect(hits[3]).toBe(0)

    gh.down = false
    // gh-acme has its own breaker, closed: it works as soon as the provider is back, while gh stays open for now.
    expect((await signInAs("member", "gh-acme")).code).not.toBeNull()
    const before = gh.hits
    expect((await signInAs("octocat")).error).toBe("The identity provider is unavailable; try again later")
    expect(gh.hits).toBe(before)
    expect((await client4(h.server.url).login("chief", PASSWORD)).username).toBe("chief")
  })
})

async function exchangeFlow(flow: Awaited<ReturnType<typeof signIn>>) {
  if (flow.code === null) throw new Error(`sign-in failed: ${flow.error}`)
  const redeemed = await exchange(flow.browser, flow.code)
  if (redeemed.status !== 200) throw new Error(`exchange failed: ${JSON.stringify(redeemed.body)}`)
  return flow
}

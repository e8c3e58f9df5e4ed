import type { Browser, BrowserContext, Page } from "playwright-core"
import sharp from "sharp"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as IdP from "../../layers/IdP.ts"
import { startFakeOidc, type FakeOidc } from "../sso/support/FakeOidc.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { haveChromium, launch, withScreenshots } from "./support/Chromium.ts"

/**
 * Two people in two browser contexts against a fresh server, through the web client only: the first visitor signs up
 * and creates the team (and administers the server), the second joins by the invite link; posting with live
 * delivery, a thread reply, a reaction, an image upload, search, a DM, the system console creating and testing an
 * SSO provider against the loopback OIDC provider, reload keeping the session, and logout.
 */
const PASSWORD = "correct-horse-battery"
let server: TestServer
let op: FakeOidc
let browser: Browser
let closeBrowser: () => Promise<void>
let alice: Page
let bob: Page
const contexts: Array<BrowserContext> = []

const step = (name: string, body: () => Promise<void>) => withScreenshots(name, () => [alice, bob].filter(Boolean), body)

beforeAll(async () => {
  server = await startServer({ overrides: { idp: IdP.layer({ allowInsecureRequests: true, timeoutSeconds: 2, breakerMaxFailures: 3, breakerResetAfter: "30 seconds" }) } })
  op = await startFakeOidc({ redirectUris: [`${server.url}/api/v1/oauth2/corp/callback`] })
  ;({ browser, close: closeBrowser } = await launch())
  for (let i = 0; i < 2; i++) {
    const context = await browser.newContext({ baseURL: server.url, viewport: { width: 1280, height: 800 } })
    context.setDefaultTimeout(10_000)
    contexts.push(context)
  }
  alice = await contexts[0].newPage()
  bob = await contexts[1].newPage()
}, 120_000)

afterAll(async () => {
  await closeBrowser?.()
  await op?.close()
  await server?.close()
})

const signUp = async (page: Page, name: string) => {
  await page.getByLabel("Email").fill(`${name}@example.com`)
  await page.getByLabel("Username").fill(name)
  await page.getByLabel("Password").fill(PASSWORD)
  await page.getByRole("button", { name: "Create account" }).click()
}

const messages = (page: Page) => page.getByRole("log", { name: "Messages" })
const post = async (page: Page, box: string, text: string) => {
  const input = page.getByRole("textbox", { name: box })
  await input.fill(text)
  await input.press("Enter")
}

describe.skipIf(!haveChromium)("web client, two people", () => {
  it("signs up, creates a team, chats live, threads, reacts, uploads, searches, DMs, configures SSO and logs out", async () => {
    await step("first-run", async () => {
      // An empty server (config/client NoAccounts "true") sends its first visitor straight to sign-up.
      await alice.goto("/")
      await alice.waitForURL(/\/signup_user_complete$/)
      await signUp(alice, "alice")
      await alice.getByRole("heading", { name: "Create a team" }).waitFor()
      await alice.getByLabel("Team name").fill("Acme Corp")
      await alice.getByRole("button", { name: "Create team" }).click()
      await alice.waitForURL(/\/acme-corp\/channels\/town-square$/)
      await alice.getByRole("heading", { name: /Town Square/ }).waitFor()
      await post(alice, "Write to Town Square", "Hello **team**, welcome aboard")
      await messages(alice).getByText("welcome aboard").waitFor()
    })

    await step("invite", async () => {
      const inviteId = await alice.evaluate(async () => (await (await fetch("/api/v4/teams/name/acme-corp")).json()).invite_id as string)
      expect(inviteId).toMatch(/\w+/)
      await bob.goto(`/signup_user_complete?id=${inviteId}`)
      await signUp(bob, "bob")
      await bob.waitForURL(/\/acme-corp\/channels\/town-square$/, { timeout: 15_000 })
      await messages(bob).getByText("welcome aboard").waitFor()
    })

    await step("live", async () => {
      await post(bob, "Write to Town Square", "Hi Alice, glad to be here")
      await messages(alice).getByText("glad to be here").waitFor()
      // Bob reloads: the session survives and the history is there.
      await bob.reload()
      await messages(bob).getByText("glad to be here").waitFor()
    })

    await step("typing", async () => {
      await bob.getByRole("textbox", { name: "Write to Town Square" }).pressSequentially("typing something")
      await alice.getByText("bob is typing…").waitFor()
      await bob.getByRole("textbox", { name: "Write to Town Square" }).fill("")
    })

    await step("thread", async () => {
      const bobsPost = messages(alice).getByRole("article").filter({ hasText: "glad to be here" })
      await bobsPost.hover()
      await bobsPost.getByRole("button", { name: "Reply" }).click()
      const thread = alice.getByRole("complementary", { name: "Thread" })
      await post(alice, "Reply to thread", "Replying in a thread")
      await thread.getByText("Replying in a thread").waitFor()
      await bob.getByRole("button", { name: "1 reply" }).click()
      await bob.getByRole("complementary", { name: "Thread" }).getByText("Replying in a thread").waitFor()
      await bob.getByRole("button", { name: "Close thread" }).click()
      // Alice replied, so she follows the thread: it is listed in her Threads view, and opens in the side panel.
      await alice.getByRole("button", { name: "Close thread" }).click()
      await alice.getByRole("navigation", { name: "Channels" }).getByRole("link", { name: "Threads" }).click()
      await alice.waitForURL(/\/acme-corp\/threads$/)
      await alice.getByRole("heading", { name: "Threads" }).waitFor()
      await alice.getByRole("list", { name: "Followed threads" }).getByRole("button", { name: /^bob Hi Alice/ }).click()
      await alice.getByRole("complementary", { name: "Thread" }).getByText("Replying in a thread").waitFor()
      await alice.getByRole("button", { name: "Close thread" }).click()
      await alice.getByRole("navigation", { name: "Channels" }).getByRole("link", { name: "Town Square" }).click()
      await alice.getByRole("heading", { name: /Town Square/ }).waitFor()
    })

    await step("reaction", async () => {
      const alicesPost = messages(bob).getByRole("article").filter({ hasText: "welcome aboard" })
      await alicesPost.hover()
      await alicesPost.getByRole("button", { name: "Add reaction" }).click()
      await bob.getByRole("searchbox", { name: "Search emoji" }).fill("tada")
      await bob.getByRole("button", { name: "tada", exact: true }).click()
      await messages(alice).getByRole("button", { name: "tada reaction by bob" }).waitFor()
    })

    await step("upload", async () => {
      const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: "#3366ff" } }).png().toBuffer()
      await alice.getByRole("main").getByLabel("Files to attach").setInputFiles({ name: "blue.png", mimeType: "image/png", buffer: png })
      await alice.getByRole("list", { name: "Attachments" }).getByText("blue.png").waitFor()
      await post(alice, "Write to Town Square", "Here is a picture")
      const image = messages(bob).getByRole("button", { name: "Open image blue.png" })
      await image.waitFor()
      await image.click()
      await bob.getByRole("dialog", { name: "Image preview" }).getByRole("img", { name: "blue.png" }).waitFor()
      await bob.getByRole("button", { name: "Close preview" }).click()
    })

    await step("search", async () => {
      const box = bob.getByRole("searchbox", { name: "Search messages" })
      await box.fill("welcome")
      await box.press("Enter")
      const results = bob.getByRole("complementary", { name: /Search results/ })
      await results.getByText("welcome aboard").waitFor()
      await results.getByRole("button", { name: "Close panel" }).click()
    })

    await step("dm", async () => {
      await alice.getByRole("button", { name: "Write a direct message" }).click()
      const dialog = alice.getByRole("dialog", { name: "Direct message" })
      await dialog.getByLabel("Find people").fill("bob")
      await dialog.getByRole("button", { name: "Add bob" }).click()
      await dialog.getByRole("button", { name: "Go" }).click()
      await alice.waitForURL(/\/acme-corp\/messages\/@bob$/)
      await post(alice, "Write to bob", "A private word")
      await messages(alice).getByText("A private word").waitFor()
      const link = bob.getByRole("navigation", { name: "Channels" }).getByRole("link", { name: "alice, 1 mention" })
      await link.waitFor()
      // Mattermost's title: the mention count, then the channel and the team ("(1) Town Square - Acme Corp").
      await expect.poll(() => bob.title()).toMatch(/^\(1\) .+ - /)
      await link.click()
      await messages(bob).getByText("A private word").waitFor()
      await expect.poll(() => bob.title()).toMatch(/^(\* )?alice - /)
    })

    await step("admin-sso", async () => {
      await alice.getByRole("button", { name: /Account menu/ }).click()
      await alice.getByRole("menuitem", { name: "System console" }).click()
      await alice.getByRole("heading", { name: "Users", exact: true }).waitFor()
      await alice.getByRole("navigation", { name: "System console" }).getByRole("link", { name: "Single sign-on" }).click()
      await alice.getByRole("heading", { name: "Single sign-on" }).waitFor()
      await alice.getByLabel("Display name").fill("Corp SSO")
      await alice.getByLabel("Key").fill("corp")
      await alice.getByLabel("Issuer URL").fill(op.issuer)
      await alice.getByLabel("Client ID").fill(op.clientId)
      await alice.getByLabel("Client secret").fill(op.clientSecret)
      await alice.getByRole("button", { name: "Add provider" }).click()
      const row = alice.getByRole("row").filter({ hasText: "Corp SSO" })
      await row.waitFor()
      await row.getByRole("button", { name: "Test Corp SSO" }).click()
      await row.getByText("Test succeeded").waitFor({ timeout: 15_000 })
      await row.getByRole("button", { name: "Edit Corp SSO" }).click()
      const edit = alice.getByRole("form", { name: "Edit Corp SSO" })
      await edit.getByLabel("Display name").fill("Corporate SSO")
      await edit.getByRole("button", { name: "Save changes" }).click()
      await alice.getByRole("row").filter({ hasText: "Corporate SSO" }).waitFor()
      const enable = alice.getByRole("checkbox", { name: "Enable SSO" })
      if (!(await enable.isChecked())) await enable.check()
      await expect.poll(() => enable.isChecked()).toBe(true)
    })

    await step("logout", async () => {
      await alice.getByRole("link", { name: "Back to chat" }).click()
      await alice.getByRole("button", { name: /Account menu/ }).click()
      await alice.getByRole("menuitem", { name: "Log out" }).click()
      await alice.getByRole("heading", { name: "Sign in" }).waitFor()
      await alice.getByRole("link", { name: "Sign in with Corporate SSO" }).waitFor()
      // Signed out for real: the app's routes send back to the sign-in page.
      await alice.goto("/acme-corp/channels/town-square")
      await alice.waitForURL(/\/login\?redirect_to=/)
      await alice.getByLabel("Email or username").fill("alice")
      await alice.getByLabel("Password").fill(PASSWORD)
      await alice.getByRole("button", { name: "Sign in" }).click()
      await alice.waitForURL(/\/acme-corp\/channels\/town-square$/)
    })
  }, 180_000)
})

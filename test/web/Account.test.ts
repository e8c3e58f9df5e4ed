import { join } from "node:path"
import * as OTPAuth from "otpauth"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client4 } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { axeViolations } from "./support/Axe.ts"
import { haveChromium, launch, RESULTS_DIR, withScreenshots } from "./support/Chromium.ts"

/**
 * Security settings in the browser: two-factor authentication set up through the page (the test's own TOTP from the
 * key the page shows), then signing in with a code; the sessions list (this browser marked) with another session
 * signed out, the browser holding that session sent back to sign-in; personal access tokens created (shown once,
 * copied), used and revoked. axe on the Security dialog (desktop and phone width) and the code step of sign-in.
 */
const PASSWORD = "correct-horse-battery"
let server: TestServer
let browser: Browser
let closeBrowser: () => Promise<void>
let context: BrowserContext
let page: Page
let other: BrowserContext
let otherPage: Page
let danaId = ""
let secret = ""

beforeAll(async () => {
  server = await startServer()
  const api = client4(server.url)
  danaId = (await api.createUser({ username: "dana", email: "dana@example.com", password: PASSWORD } as never, "", "")).id
  await api.login("dana", PASSWORD)
  await api.createTeam({ name: "safe", display_name: "Safe", type: "O" } as never)
  if (!haveChromium) return
  ;({ browser, close: closeBrowser } = await launch())
  context = await browser.newContext({ baseURL: server.url, viewport: { width: 1280, height: 800 }, bypassCSP: true })
  context.setDefaultTimeout(10_000)
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url })
  page = await context.newPage()
  page.on("console", (m) => m.type() === "error" && console.log("browser console:", m.text()))
  // dana on a second "device": signed in by its own session cookie.
  other = await browser.newContext({ baseURL: server.url, viewport: { width: 1280, height: 800 } })
  other.setDefaultTimeout(10_000)
  const login = await other.request.post("/api/v4/users/login", { data: { login_id: "dana", password: PASSWORD }, headers: { "X-Requested-With": "XMLHttpRequest", "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0" } })
  expect(login.status()).toBe(200)
  otherPage = await other.newPage()
}, 60_000)

afterAll(async () => {
  await closeBrowser?.()
  await server?.close()
})

const step = (name: string, body: () => Promise<void>) => withScreenshots(name, () => [page, otherPage].filter(Boolean), body)
const totp = () => new OTPAuth.TOTP({ algorithm: "SHA1", digits: 6, period: 30, secret: OTPAuth.Secret.fromBase32(secret) })
const security = () => page.getByRole("dialog", { name: "Security" })
const openSecurity = async () => {
  await page.getByRole("button", { name: /Account menu/ }).click()
  await page.getByRole("menuitem", { name: "Security" }).click()
  await security().getByRole("heading", { name: "Active sessions" }).waitFor()
}
const signIn = async () => {
  await page.getByLabel("Email or username").fill("dana")
  await page.getByLabel("Password").fill(PASSWORD)
  await page.getByRole("button", { name: "Sign in" }).click()
}

describe.skipIf(!haveChromium)("web client: security settings", () => {
  it("sets up two-factor authentication from the page", async () => {
    await step("mfa-setup", async () => {
      await page.goto("/login")
      await signIn()
      await page.waitForURL(/\/safe\/channels\/town-square$/)
      await openSecurity()
      await security().getByRole("button", { name: "Set up two-factor authentication" }).click()
      await security().getByRole("img", { name: /QR code/ }).waitFor()
      secret = await security().getByLabel("Two-factor key").inputValue()
      expect(secret).toMatch(/^[A-Z2-7]{32}$/)
      await page.screenshot({ path: join(RESULTS_DIR, "security-mfa.png") })
      expect(await axeViolations(page)).toEqual([])
      // A wrong code is refused, and the form stays.
      await security().getByLabel("Code from your app").fill("000000")
      await security().getByRole("button", { name: "Turn on" }).click()
      await security().getByRole("alert").waitFor()
      await security().getByLabel("Code from your app").fill(totp().generate())
      await security().getByRole("button", { name: "Turn on" }).click()
      await security().getByRole("status").getByText(/Two-factor authentication is on/).waitFor()
      const check = await client4(server.url).checkUserMfa("dana")
      expect(check.mfa_required).toBe(true)
      await security().getByRole("button", { name: "Close" }).click()
      // Focus is back in the message box.
      await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Write to Town Square")
    })
  }, 30_000)

  it("lists sessions with this browser marked, and signs another one out, which sends that browser to sign-in", async () => {
    await step("sessions", async () => {
      await otherPage.goto("/safe/channels/town-square")
      await otherPage.getByRole("main").getByRole("heading", { level: 1 }).waitFor()
      await openSecurity()
      const sessions = security().getByRole("list", { name: "Active sessions" })
      await sessions.getByText("This browser").waitFor()
      // Three sessions: the API's from set-up, this browser's and the other device's (Firefox).
      await expect.poll(() => sessions.getByRole("listitem").count()).toBe(3)
      expect(await sessions.getByRole("listitem").filter({ hasText: "This browser" }).getByRole("button").count()).toBe(0)
      await sessions.getByRole("button", { name: /Sign out Firefox/ }).click()
      await security().getByRole("status").getByText(/Signed out: Firefox/).waitFor()
      await expect.poll(() => sessions.getByRole("listitem").count()).toBe(2)
      await otherPage.waitForURL(/\/login/, { timeout: 15_000 })
      await otherPage.getByRole("status").getByText(/You were signed out/).waitFor()
      await page.setViewportSize({ width: 390, height: 844 })
      await page.screenshot({ path: join(RESULTS_DIR, "security-narrow.png") })
      expect(await axeViolations(page)).toEqual([])
      await page.setViewportSize({ width: 1280, height: 800 })
    })
  }, 40_000)

  it("creates a personal access token shown once with Copy, which works until revoked", async () => {
    await step("tokens", async () => {
      await security().getByLabel("Token description").fill("deploy script")
      await security().getByRole("button", { name: "Create token" }).click()
      const shown = security().getByRole("group", { name: "New token" })
      const token = await shown.getByLabel("New token value").inputValue()
      expect(token).toMatch(/^[a-z0-9]{26}$/)
      await shown.getByRole("button", { name: "Copy" }).click()
      await security().getByRole("status").getByText("Token copied").waitFor()
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token)
      expect((await client4(server.url, token).getMe()).id).toBe(danaId)
      await page.screenshot({ path: join(RESULTS_DIR, "security-token.png") })
      expect(await axeViolations(page)).toEqual([])
      await shown.getByRole("button", { name: "Done" }).click()
      expect(await security().getByLabel("New token value").count()).toBe(0)
      const list = security().getByRole("list", { name: "Your tokens" })
      await list.getByText("deploy script").waitFor()
      await list.getByRole("button", { name: "Revoke deploy script" }).click()
      await security().getByRole("status").getByText("Token “deploy script” revoked").waitFor()
      await expect.poll(() => list.getByText("deploy script").count()).toBe(0)
      await expect(client4(server.url, token).getMe()).rejects.toMatchObject({ status_code: 401 })
      // Escape closes the dialog.
      await page.keyboard.press("Escape")
      await expect.poll(() => security().count()).toBe(0)
    })
  }, 30_000)

  it("signs in with a code from the authenticator after the password, and turns two-factor off", async () => {
    await step("mfa-sign-in", async () => {
      await page.getByRole("button", { name: /Account menu/ }).click()
      await page.getByRole("menuitem", { name: "Log out" }).click()
      await page.waitForURL(/\/login/)
      await signIn()
      await page.getByRole("heading", { name: "Enter your authentication code" }).waitFor()
      expect(await axeViolations(page)).toEqual([])
      await page.screenshot({ path: join(RESULTS_DIR, "sign-in-code.png") })
      await page.getByLabel("Authentication code").fill("123456")
      await page.getByRole("button", { name: "Verify" }).click()
      await page.getByRole("alert").getByText(/not right/).waitFor()
      // The set-up spent the current step's code: the next step's is within the server's window and not yet used.
      await page.getByLabel("Authentication code").fill(totp().generate({ timestamp: Date.now() + 30_000 }))
      await page.getByRole("button", { name: "Verify" }).click()
      await page.waitForURL(/\/safe\/channels\/town-square$/)

      await openSecurity()
      await security().getByRole("button", { name: "Turn off two-factor authentication" }).click()
      await security().getByRole("alertdialog", { name: "Turn off two-factor authentication" }).getByRole("button", { name: "Turn off" }).click()
      await security().getByRole("status").getByText("Two-factor authentication is off").waitFor()
      expect((await client4(server.url).checkUserMfa("dana")).mfa_required).toBe(false)
    })
  }, 40_000)
})

import { join } from "node:path"
import * as OTPAuth from "otpauth"
import type { BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { axeViolations } from "./support/Axe.ts"
import { haveChromium, RESULTS_DIR, withScreenshots } from "./support/Chromium.ts"
import { focused, messageBox, messages, PASSWORD, shot, signedInContext } from "./support/People.ts"
import { startWebTeam, type WebTeam } from "./support/WebTeam.ts"

/**
 * ServiceSettings.EnforceMultifactorAuthentication in the browser: a member without a second factor who signs in gets
 * only the set-up page (QR code, key, code field, Activate, Log out), activates with a code the test computes from the
 * key the page shows, and then the app loads and a message posts. A member already signed in when enforcement is
 * switched on gets the same page from the first call the server refuses, and can log out. axe and screenshots at
 * 1280 and 390 px.
 */
const REQUIRED = "Multi-factor authentication is required"
let team: WebTeam
let desktop: BrowserContext
let phone: BrowserContext
let page: Page
let phonePage: Page

beforeAll(async () => {
  team = await startWebTeam({ people: ["ada", "bob", "cyd"], browsers: [] })
  if (!team.browser) return
  desktop = await team.browser.newContext({ baseURL: team.server.url, viewport: { width: 1280, height: 800 }, bypassCSP: true })
  desktop.setDefaultTimeout(10_000)
  page = await desktop.newPage()
  // cyd is signed in (phone width) before the administrator turns enforcement on.
  phone = await signedInContext(team.browser, team.server.url, "cyd", { width: 390, height: 844 })
  phonePage = await phone.newPage()
  for (const [name, p] of [["bob", page], ["cyd", phonePage]] as const) {
    p.on("console", (m) => m.type() === "error" && !m.text().includes("403") && console.log(`browser console (${name}):`, m.text()))
  }
}, 60_000)

const step = (name: string, body: () => Promise<void>) => withScreenshots(name, () => [page, phonePage].filter(Boolean), body)

afterAll(async () => {
  await team?.close()
})

describe.skipIf(!haveChromium)("web client: multi-factor authentication required", () => {
  it("turns enforcement on: the API refuses members without a second factor", async () => {
    await phonePage.goto(`/${team.teamName}/channels/town-square`)
    await messageBox(phonePage).waitFor()
    await phonePage.waitForLoadState("networkidle")
    await team.apis.ada.patchConfig({ ServiceSettings: { EnableMultifactorAuthentication: true, EnforceMultifactorAuthentication: true } } as never)
    const refused = await team.apis.bob.getMyTeams().then(() => "ok", (e: { status_code?: number; server_error_id?: string }) => `${e.status_code} ${e.server_error_id}`)
    expect(refused).toBe("403 api.context.mfa_required.app_error")
  })

  it("shows the set-up page to a member already signed in once a call is refused, with Log out", async () => {
    await step("mfa-required-mid-session", async () => {
      const required = phonePage.getByRole("heading", { name: REQUIRED })
      // The post is the refused call, unless a call the client makes by itself (marking the channel viewed when the
      // window gets focus, a late load of the channel) was refused first: then the set-up page is already there, and
      // that is the behaviour under test too. (Under CI load that happened before the post could be typed.)
      await messageBox(phonePage).or(required).first().waitFor()
      if (await messageBox(phonePage).isVisible()) {
        await messageBox(phonePage).fill("refused by the server", { timeout: 3_000 })
          .then(() => messageBox(phonePage).press("Enter", { timeout: 3_000 }))
          .catch(() => undefined) // the box went away because the page changed to the set-up page: checked below
      }
      await required.waitFor()
      await expect.poll(() => new URL(phonePage.url()).pathname).toBe("/mfa/setup")
      await phonePage.getByRole("img", { name: /QR code/ }).waitFor()
      // The whole page: at phone width Log out is below the fold.
      await phonePage.screenshot({ path: join(RESULTS_DIR, "mfa-required-390.png"), fullPage: true })
      expect(await axeViolations(phonePage)).toEqual([])
      await phonePage.getByRole("button", { name: "Log out" }).click()
      await phonePage.getByRole("heading", { name: "Sign in" }).waitFor()
    })
  })

  it("signs in to the set-up page, activates with a code from the key, and then the app loads and posts", async () => {
    await step("mfa-required-activate", async () => {
      await page.goto("/login")
      await page.getByLabel("Email or username").fill("bob")
      await page.getByLabel("Password").fill(PASSWORD)
      await page.getByRole("button", { name: "Sign in" }).click()
      await page.getByRole("heading", { name: REQUIRED }).waitFor()
      await expect.poll(() => new URL(page.url()).pathname).toBe("/mfa/setup")
      await page.getByRole("img", { name: /QR code/ }).waitFor()
      const secret = await page.getByLabel("Two-factor key").inputValue()
      expect(secret).toMatch(/^[A-Z2-7]{32}$/)
      // The code field is where the keyboard is once the key is shown.
      await expect.poll(async () => (await focused(page))?.tag).toBe("input")
      expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).name)).toBe("code")
      await shot(page, "mfa-required-1280")
      expect(await axeViolations(page)).toEqual([])

      // A wrong code is refused and the page stays.
      await page.keyboard.type("000000")
      await page.keyboard.press("Enter")
      await page.getByRole("alert").waitFor()
      expect(await page.getByRole("heading", { name: REQUIRED }).isVisible()).toBe(true)

      const code = new OTPAuth.TOTP({ algorithm: "SHA1", digits: 6, period: 30, secret: OTPAuth.Secret.fromBase32(secret) }).generate()
      await page.getByLabel("Code from your app").fill(code)
      await page.getByRole("button", { name: "Activate" }).click()
      await page.waitForURL(new RegExp(`/${team.teamName}/channels/town-square$`))
      await messageBox(page).waitFor()
      expect((await team.apis.bob.getMe()).mfa_active).toBe(true)

      await messageBox(page).fill("set up and posting")
      await messageBox(page).press("Enter")
      await messages(page).getByText("set up and posting").waitFor()
      const town = await team.apis.bob.getChannelByName(team.teamId, "town-square")
      await expect.poll(async () => Object.values((await team.apis.bob.getPosts(town.id)).posts).map((p) => p.message)).toContain("set up and posting")
    })
  })
})

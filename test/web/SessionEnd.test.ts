import type { BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { axeViolations } from "./support/Axe.ts"
import { haveChromium } from "./support/Chromium.ts"
import { messageBox, PASSWORD, shot, signedInContext } from "./support/People.ts"
import { startWebTeam, type WebTeam } from "./support/WebTeam.ts"

/**
 * Issue 27, sessions: "Sign out all other sessions" in Security (after a confirmation) ends every session of the
 * account but this browser's; the other browser's socket closes and it lands on sign-in told that its session was
 * ended elsewhere. A password changed in one browser sends the other to sign-in told that the password changed.
 * ben has two browsers: `here` (acting) and `there` (watching).
 */
const WITHIN = { timeout: 10_000 }
let t: WebTeam
let here: Page

beforeAll(async () => {
  t = await startWebTeam({ people: ["ann", "ben"], browsers: ["ben"] })
  here = t.pages.ben
}, 60_000)

afterAll(async () => {
  await t?.close()
})

/** Another browser signed in as ben, on Town Square with its socket open; `closed` resolves when that socket closes. */
const elsewhere = async () => {
  const context: BrowserContext = await signedInContext(t.browser!, t.server.url, "ben")
  const page = await context.newPage()
  const closed = new Promise<void>((resolve) => page.on("websocket", (ws) => ws.on("close", () => resolve())))
  await page.goto("/crew/channels/town-square")
  await messageBox(page).waitFor()
  return { page, closed }
}

const openSecurity = async () => {
  await here.getByRole("button", { name: /^Account menu/ }).click()
  await here.getByRole("menuitem", { name: "Security" }).click()
  const dialog = here.getByRole("dialog", { name: "Security" })
  await dialog.getByRole("heading", { name: "Active sessions" }).waitFor()
  return dialog
}

describe.skipIf(!haveChromium)("web client: ending sessions", () => {
  it("signs out all other sessions, keeping this one; the other browser is told why", async () => {
    await t.step("sign-out-others", async () => {
      await here.goto("/crew/channels/town-square")
      await messageBox(here).waitFor()
      const there = await elsewhere()
      const security = await openSecurity()
      const sessions = security.getByRole("list", { name: "Active sessions" }).getByRole("listitem")
      // This browser, the other one, and the session of ben's API client from the setup.
      await expect.poll(() => sessions.count()).toBe(3)
      await security.getByRole("button", { name: "Sign out all other sessions" }).click()
      const confirm = security.getByRole("alertdialog", { name: "Sign out all other sessions" })
      await confirm.getByText("Sign out 2 other sessions? This browser stays signed in.").waitFor()
      await shot(here, "sign-out-others-confirm")
      expect(await axeViolations(here)).toEqual([])
      await confirm.getByRole("button", { name: "Sign them out" }).click()
      await security.getByRole("status").getByText("Signed out of 2 other sessions").waitFor(WITHIN)
      await expect.poll(() => sessions.count()).toBe(1)
      await sessions.getByText("This browser").waitFor()
      expect(await security.getByRole("button", { name: "Sign out all other sessions" }).count()).toBe(0)

      await there.closed
      await there.page.waitForURL(/\/login/, WITHIN)
      await there.page.getByRole("status").getByText("You were signed out: this session was ended from another session or device, or by an administrator. Sign in again.").waitFor(WITHIN)
      await shot(there.page, "session-revoked-login")
      expect(await axeViolations(there.page)).toEqual([])
      await there.page.setViewportSize({ width: 390, height: 844 })
      await shot(there.page, "session-revoked-login-narrow")
      await there.page.context().close()

      // This browser is still signed in.
      await here.keyboard.press("Escape")
      await here.reload()
      await messageBox(here).waitFor()
      expect(here.url()).toMatch(/town-square$/)
    })
  }, 60_000)

  it("tells the other browser that the password changed", async () => {
    await t.step("password-changed", async () => {
      const there = await elsewhere()
      const security = await openSecurity()
      await security.getByLabel("Current password").fill(PASSWORD)
      await security.getByLabel("New password").fill("another-long-passphrase")
      await security.getByRole("button", { name: "Change password" }).click()
      await security.getByRole("status").getByText(/Password changed/).waitFor(WITHIN)
      await there.closed
      await there.page.waitForURL(/\/login/, WITHIN)
      await there.page.getByRole("status").getByText("Your password was changed, so this session was signed out. Sign in with the new password.").waitFor(WITHIN)
      await shot(there.page, "session-password-login")
      // The new password signs in there again.
      await there.page.getByLabel("Email or username").fill("ben")
      await there.page.getByLabel("Password").fill("another-long-passphrase")
      await there.page.getByRole("button", { name: "Sign in" }).click()
      await messageBox(there.page).waitFor(WITHIN)
      await there.page.context().close()
    })
  }, 60_000)
})

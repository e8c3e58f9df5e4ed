import { mkdirSync } from "node:fs"
import { join } from "node:path"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { expect } from "vitest"
import { client4 } from "../../support/Clients.ts"
import { RESULTS_DIR } from "./Chromium.ts"

export const PASSWORD = "correct-horse-battery"

/** Creates the accounts (the first one is the system admin) and returns a logged-in Client4 for each. */
export const createPeople = async (url: string, names: ReadonlyArray<string>) => {
  const apis: Record<string, ReturnType<typeof client4>> = {}
  const ids: Record<string, string> = {}
  for (const name of names) {
    const api = client4(url)
    const user = await api.createUser({ username: name, email: `${name}@example.com`, password: PASSWORD } as never, "", "")
    await api.login(name, PASSWORD)
    apis[name] = api
    ids[name] = user.id
  }
  return { apis, ids }
}

/**
 * A browser context signed in as `name` through the API (the session cookie), CSP bypassed for axe's inline script,
 * at a desktop or phone viewport.
 */
export const signedInContext = async (browser: Browser, url: string, name: string, viewport = { width: 1280, height: 800 }): Promise<BrowserContext> => {
  const context = await browser.newContext({ baseURL: url, viewport, bypassCSP: true })
  context.setDefaultTimeout(10_000)
  const login = await context.request.post("/api/v4/users/login", { data: { login_id: name, password: PASSWORD }, headers: { "X-Requested-With": "XMLHttpRequest" } })
  expect(login.status()).toBe(200)
  return context
}

/** A screenshot kept in test-results/ for a person to look at. */
export const shot = async (page: Page, name: string) => {
  mkdirSync(RESULTS_DIR, { recursive: true })
  await page.screenshot({ path: join(RESULTS_DIR, `${name}.png`) })
}

export const messageBox = (page: Page) => page.locator("#message-box")
export const sidebar = (page: Page) => page.getByRole("navigation", { name: "Channels" })
export const messages = (page: Page) => page.getByRole("log", { name: "Messages" })

/** The element that has focus, described for assertions. */
export const focused = (page: Page) => page.evaluate(() => {
  const el = document.activeElement as HTMLElement | null
  return el ? { id: el.id, tag: el.tagName.toLowerCase(), name: el.getAttribute("aria-label") ?? el.textContent?.trim() ?? "" } : null
})

/** The open channel's menu (its name in the header). */
export const channelMenu = async (page: Page, channel: string) => {
  await page.getByRole("button", { name: `${channel} channel menu` }).click()
  return page.getByRole("menu", { name: `${channel} channel menu` })
}

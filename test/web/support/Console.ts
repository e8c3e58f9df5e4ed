import type { Page } from "playwright-core"
import { expect } from "vitest"
import { axeViolations } from "./Axe.ts"
import { shot } from "./People.ts"

/** The System Console's navigation, and a page's checks: axe-core clean, screenshots at 1280 and 390 px wide. */
export const consoleNav = (page: Page) => page.getByRole("navigation", { name: "System console" })

/** Opens a console page from the navigation (on a phone, through the Menu button). */
export const openConsolePage = async (page: Page, link: string) => {
  const nav = consoleNav(page)
  const menu = nav.getByRole("button", { name: "Menu" })
  if (await menu.isVisible()) {
    if ((await menu.getAttribute("aria-expanded")) !== "true") await menu.click()
  }
  await nav.getByRole("link", { name: link, exact: true }).click()
}

export const checkConsolePage = async (page: Page, name: string) => {
  expect(await axeViolations(page), `${name} at 1280 px`).toEqual([])
  await shot(page, `console-${name}-1280`)
  const size = page.viewportSize()
  await page.setViewportSize({ width: 390, height: 844 })
  try {
    expect(await axeViolations(page), `${name} at 390 px`).toEqual([])
    // Nothing wider than the phone's screen but the tables' own scrolling regions.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
    expect(overflow, `${name} scrolls sideways at 390 px`).toBeLessThanOrEqual(0)
    await page.evaluate(() => window.scrollTo(0, 0))
    await shot(page, `console-${name}-390`)
  } finally {
    await page.setViewportSize(size ?? { width: 1280, height: 800 })
  }
}

/** What a member meets at a console address: no console, only the refusal. */
export const expectRefused = async (page: Page, path: string) => {
  await page.goto(path)
  await page.getByRole("heading", { name: "Not allowed" }).waitFor()
  expect(await consoleNav(page).count()).toBe(0)
}

import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client4 } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { axeViolations } from "./support/Axe.ts"
import { haveChromium, launch, withScreenshots } from "./support/Chromium.ts"
import { channelMenu, createPeople, messageBox, messages, shot, sidebar, signedInContext } from "./support/People.ts"

/**
 * Issue 27, phone-sized windows (390 × 780): the sidebar is a drawer behind a menu button, the message box stays at
 * the bottom, and menus, the members list's menus and the profile popover are never clipped (they live in a layer
 * above the page, flipped and shifted near the edges). axe with the drawer shut and open, and on a dialog.
 */
const W = 390
const H = 780
let server: TestServer
let browser: Browser
let closeBrowser: () => Promise<void>
let page: Page
let apis: Record<string, ReturnType<typeof client4>>
let ids: Record<string, string>
let context: BrowserContext

beforeAll(async () => {
  server = await startServer()
  ;({ apis, ids } = await createPeople(server.url, ["ann", "bob"]))
  const team = await apis.ann.createTeam({ name: "pocket", display_name: "Pocket", type: "O" } as never)
  await apis.ann.addToTeam(team.id, ids.bob)
  const lounge = await apis.ann.createChannel({ team_id: team.id, name: "lounge", display_name: "Lounge", type: "O", purpose: "Sofas" } as never)
  await apis.ann.addToChannel(ids.bob, lounge.id)
  const town = await apis.ann.getChannelByName(team.id, "town-square")
  for (let i = 1; i <= 30; i++) await apis.bob.createPost({ channel_id: town.id, message: `line ${i}` } as never)
  if (!haveChromium) return
  ;({ browser, close: closeBrowser } = await launch())
  context = await signedInContext(browser, server.url, "ann", { width: W, height: H })
  page = await context.newPage()
  page.on("console", (m) => m.type() === "error" && console.log("browser console:", m.text()))
}, 60_000)

afterAll(async () => {
  await closeBrowser?.()
  await server?.close()
})

const step = (name: string, body: () => Promise<void>) => withScreenshots(name, () => (page ? [page] : []), body)
const inside = async (locator: ReturnType<Page["locator"]>) => {
  const box = (await locator.boundingBox())!
  return box.x >= 0 && box.y >= 0 && box.x + box.width <= W + 0.5 && box.y + box.height <= H + 0.5
}

describe.skipIf(!haveChromium)("phone-sized window", () => {
  it("keeps the channel and the message box on screen, the sidebar in a drawer", async () => {
    await step("drawer", async () => {
      await page.goto("/pocket/channels/town-square")
      await messages(page).getByText("line 30").waitFor()
      // The message box sits at the bottom of the screen.
      const box = (await messageBox(page).boundingBox())!
      expect(box.y + box.height).toBeGreaterThan(H - 80)
      expect(await sidebar(page).isVisible()).toBe(false)
      await shot(page, "phone-channel")
      expect(await axeViolations(page)).toEqual([])

      const open = page.getByRole("button", { name: "Channels and teams" })
      expect(await open.getAttribute("aria-expanded")).toBe("false")
      await open.click()
      await sidebar(page).getByRole("link", { name: "Lounge" }).waitFor()
      await expect.poll(() => inside(sidebar(page))).toBe(true)
      // Focus moves into the drawer, on the open channel.
      await expect.poll(() => sidebar(page).getByRole("link", { name: "Town Square" }).evaluate((el) => el === document.activeElement)).toBe(true)
      await shot(page, "phone-drawer")
      expect(await axeViolations(page)).toEqual([])
      // Escape shuts it, focus back on its button.
      await page.keyboard.press("Escape")
      await expect.poll(() => sidebar(page).isVisible()).toBe(false)
      expect(await open.evaluate((el) => el === document.activeElement)).toBe(true)
      await open.click()
      await sidebar(page).getByRole("link", { name: "Lounge" }).click()
      await page.waitForURL(/\/pocket\/channels\/lounge$/)
      await expect.poll(() => sidebar(page).isVisible()).toBe(false)
      await page.getByRole("heading", { name: /Lounge/ }).waitFor()
    })
  })

  it("shows menus, member menus and the profile popover whole", async () => {
    await step("unclipped", async () => {
      const menu = await channelMenu(page, "Lounge")
      await menu.getByRole("menuitem", { name: "Leave channel" }).waitFor()
      expect(await inside(menu)).toBe(true)
      await shot(page, "phone-channel-menu")
      await menu.getByRole("menuitem", { name: "Members" }).click()
      const dialog = page.getByRole("dialog", { name: "Members of Lounge" })
      await dialog.getByRole("button", { name: "Actions for bob" }).click()
      const actions = page.getByRole("menu", { name: "Actions for bob" })
      await actions.getByRole("menuitem", { name: "Remove from channel" }).waitFor()
      expect(await inside(actions)).toBe(true)
      await shot(page, "phone-members")
      expect(await axeViolations(page)).toEqual([])
      await page.keyboard.press("Escape")
      await page.keyboard.press("Escape")
      await expect.poll(() => dialog.count()).toBe(0)

      await page.goto("/pocket/channels/town-square")
      // The last post's author, at the bottom of the screen: the popover flips above it.
      await messages(page).getByText("line 30").waitFor()
      const author = messages(page).getByRole("button", { name: "bob" }).last()
      await author.click()
      const card = page.getByRole("dialog", { name: "Profile of bob" })
      await card.getByRole("button", { name: "Message" }).waitFor()
      expect(await inside(card)).toBe(true)
      await shot(page, "phone-profile")
      await page.keyboard.press("Escape")
      await expect.poll(() => card.count()).toBe(0)
    })
  })

  it("fits each dialog to the screen, with no serious or critical axe violation", async () => {
    await step("phone-dialogs", async () => {
      const check = async (name: string, file: string) => {
        const dialog = page.getByRole("dialog", { name })
        await dialog.getByRole("button", { name: "Close" }).waitFor()
        expect(await inside(dialog)).toBe(true)
        await shot(page, file)
        expect(await axeViolations(page)).toEqual([])
        await dialog.getByRole("button", { name: "Close" }).click()
        await expect.poll(() => dialog.count()).toBe(0)
      }
      const drawer = page.getByRole("button", { name: "Channels and teams" })
      await drawer.click()
      await sidebar(page).getByRole("button", { name: "Browse channels" }).click()
      await page.getByRole("dialog", { name: "Browse channels" }).getByRole("button", { name: "View Lounge" }).waitFor()
      await check("Browse channels", "phone-browse")
      await drawer.click()
      await sidebar(page).getByRole("button", { name: "Create a channel" }).click()
      await check("Create a channel", "phone-create-channel")
      await drawer.click()
      await page.getByRole("button", { name: "Pocket team menu" }).click()
      await page.getByRole("menuitem", { name: "Invite people" }).click()
      await check("Invite people to Pocket", "phone-invite")
      await drawer.click()
      await page.getByRole("button", { name: "Pocket team menu" }).click()
      await page.getByRole("menuitem", { name: "View members" }).click()
      await page.getByRole("dialog", { name: "Members of Pocket" }).getByText("@bob").waitFor()
      await check("Members of Pocket", "phone-team-members")
      await messageBox(page).focus()
      await page.keyboard.press("Control+k")
      await page.getByRole("dialog", { name: "Switch channels" }).getByRole("option", { name: "Lounge" }).waitFor()
      await check("Switch channels", "phone-switcher")
      await page.keyboard.press("Control+/")
      await check("Keyboard shortcuts", "phone-shortcuts")
      const menu = await channelMenu(page, "Town Square")
      await menu.getByRole("menuitem", { name: "Notification preferences" }).click()
      await check("Notification preferences for Town Square", "phone-notifications")
    })
  })
})

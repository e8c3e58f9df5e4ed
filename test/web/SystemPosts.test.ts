import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client4 } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { axeViolations } from "./support/Axe.ts"
import { haveChromium, launch, withScreenshots } from "./support/Chromium.ts"
import { createPeople, focused, messages, shot, signedInContext } from "./support/People.ts"

/**
 * System posts in the web client as Mattermost's web app shows them: muted, under "System", and consecutive joins,
 * leaves, adds and removals combined into one message of sentences ("@bob and @cat joined the channel.", Mattermost's
 * combined user activity), growing live as more come; any other post ends the run. ann has the browser; the others
 * act through the API.
 */
let server: TestServer
let browser: Browser
let closeBrowser: () => Promise<void>
let context: BrowserContext
let ann: Page
let apis: Record<string, ReturnType<typeof client4>>
let ids: Record<string, string>
let channelId = ""

beforeAll(async () => {
  server = await startServer()
  ;({ apis, ids } = await createPeople(server.url, ["ann", "bob", "cat", "dan", "eve"]))
  const teamId = (await apis.ann.createTeam({ name: "crew", display_name: "Crew", type: "O" } as never)).id
  await apis.ann.addUsersToTeamGracefully(teamId, [ids.bob, ids.cat, ids.dan, ids.eve])
  channelId = (await apis.ann.createChannel({ team_id: teamId, name: "plans", display_name: "Plans", type: "O" } as never)).id
  await apis.bob.addToChannel(ids.bob, channelId)
  await apis.cat.addToChannel(ids.cat, channelId)
  await apis.ann.addToChannel(ids.dan, channelId)
  if (!haveChromium) return
  ;({ browser, close: closeBrowser } = await launch())
  context = await signedInContext(browser, server.url, "ann")
  ann = await context.newPage()
  ann.on("console", (m) => m.type() === "error" && console.log("browser console:", m.text()))
}, 60_000)

afterAll(async () => {
  await closeBrowser?.()
  await server?.close()
})

const step = (name: string, body: () => Promise<void>) => withScreenshots(name, () => (ann ? [ann] : []), body)

const systemMessages = (page: Page) => messages(page).getByRole("article", { name: /^System at / })

describe.skipIf(!haveChromium)("system posts", () => {
  it("combines consecutive joins and adds into one muted System message, live, keyboard reachable, axe clean", async () => {
    await step("system-posts-combined", async () => {
      await ann.goto("/crew/channels/plans")
      const combined = systemMessages(ann).filter({ hasText: "joined the channel" })
      await expect.poll(() => combined.innerText(), { timeout: 15_000 }).toContain("@bob and @cat joined the channel.")
      await expect.poll(() => combined.innerText()).toContain("@dan added to the channel by you.")
      // One message for the three posts, under System, muted.
      expect(await systemMessages(ann).count()).toBe(1)
      const color = await combined.locator(".message").evaluate((el) => getComputedStyle(el).color)
      const body = await messages(ann).evaluate((el) => getComputedStyle(el).color)
      expect(color).not.toBe(body)

      // eve joins while ann reads: the same message grows.
      await apis.eve.addToChannel(ids.eve, channelId)
      await expect.poll(() => combined.innerText()).toContain("@bob, @cat and @eve joined the channel.")
      expect(await systemMessages(ann).count()).toBe(1)

      // The message takes the keyboard focus as any post, under its accessible name.
      await combined.focus()
      expect((await focused(ann))?.name).toMatch(/^System at /)
      expect(await axeViolations(ann)).toEqual([])
      await shot(ann, "system-posts-1280")
    })
  }, 90_000)

  it("a post in between ends the run: the leave and the removal after it are a second combined message", async () => {
    await step("system-posts-run-ends", async () => {
      await apis.bob.createPost({ channel_id: channelId, message: "morning all" } as never)
      await apis.bob.removeFromChannel(ids.bob, channelId)
      await apis.ann.removeFromChannel(ids.cat, channelId)
      const after = systemMessages(ann).filter({ hasText: "left the channel" })
      await expect.poll(() => after.innerText(), { timeout: 15_000 }).toContain("@bob left the channel.")
      await expect.poll(() => after.innerText()).toContain("@cat removed from the channel.")
      // The earlier combined message is untouched; the new run is a second one.
      expect(await systemMessages(ann).count()).toBe(2)
      expect(await messages(ann).getByRole("article").filter({ hasText: "morning all" }).count()).toBe(1)
      expect(await axeViolations(ann)).toEqual([])
    })
  }, 90_000)

  it("reads the same on a phone (390 px)", async () => {
    const phone = await signedInContext(browser, server.url, "ann", { width: 390, height: 780 })
    try {
      const page = await phone.newPage()
      await page.goto("/crew/channels/plans")
      await expect.poll(() => systemMessages(page).first().innerText(), { timeout: 15_000 }).toContain("joined the channel.")
      expect(await axeViolations(page)).toEqual([])
      await shot(page, "system-posts-390")
    } finally {
      await phone.close()
    }
  }, 90_000)
})

import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client4 } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { axeViolations } from "./support/Axe.ts"
import { haveChromium, launch, withScreenshots } from "./support/Chromium.ts"
import { createPeople, messages, shot, signedInContext } from "./support/People.ts"

/**
 * Issue 28, "Content" (search, names, themes): search results paged past the first page with the search's words in
 * <mark> and Jump; names per the Teammate Name Display setting and the person's name_format preference, live; and
 * Mattermost's themes (built-in and custom) in the "theme" preference the official apps read, live across clients.
 * lena has the browser; milo posts and changes things through the API.
 */
let server: TestServer
let browser: Browser
let closeBrowser: () => Promise<void>
let context: BrowserContext
let page: Page
let apis: Record<string, ReturnType<typeof client4>>
let ids: Record<string, string>
let teamId = ""
let archiveId = ""

beforeAll(async () => {
  server = await startServer()
  ;({ apis, ids } = await createPeople(server.url, ["lena", "milo"]))
  teamId = (await apis.lena.createTeam({ name: "look", display_name: "Look", type: "O" } as never)).id
  await apis.lena.addToTeam(teamId, ids.milo)
  archiveId = (await apis.lena.createChannel({ team_id: teamId, name: "archive", display_name: "Archive", type: "O" } as never)).id
  await apis.milo.addToChannel(ids.milo, archiveId)
  if (!haveChromium) return
  ;({ browser, close: closeBrowser } = await launch())
  context = await signedInContext(browser, server.url, "lena")
  page = await context.newPage()
  page.on("console", (m) => m.type() === "error" && console.log("browser console:", m.text()))
}, 60_000)

afterAll(async () => {
  await closeBrowser?.()
  await server?.close()
})

const step = (name: string, body: () => Promise<void>) => withScreenshots(name, () => (page ? [page] : []), body)

const search = async (terms: string) => {
  const box = page.getByRole("searchbox", { name: "Search messages" })
  await box.fill(terms)
  await box.press("Enter")
  return page.getByRole("complementary", { name: `Search results for “${terms}”` })
}

describe.skipIf(!haveChromium)("search results, display names and themes", () => {
  it("pages search results past the first page, marks the words searched, and jumps to a result", async () => {
    await step("search-paging", async () => {
      for (let i = 1; i <= 75; i++) await apis.milo.createPost({ channel_id: archiveId, message: `needle number ${i} in the hay` } as never)
      await apis.milo.createPost({ channel_id: archiveId, message: "only hay here" } as never)
      await apis.milo.createPost({ channel_id: archiveId, message: "milo says: the quick brown fox jumps over the lazy dog" } as never)
      await page.goto("/look/channels/town-square")

      const results = await search("needle")
      const items = results.getByRole("listitem")
      await expect.poll(() => items.count()).toBe(20)
      await results.getByRole("status").getByText("20 results").waitFor()
      // Every page follows the last: 20, 40, 60, then the last 15, and the button is gone.
      for (const shown of [40, 60, 75]) {
        await results.getByRole("button", { name: "Load more results" }).click()
        await expect.poll(() => items.count(), { timeout: 15_000 }).toBe(shown)
      }
      await results.getByRole("status").getByText("75 results, all shown").waitFor()
      expect(await results.getByRole("button", { name: "Load more results" }).count()).toBe(0)
      const texts = await results.locator(".message").allTextContents()
      const numbers = new Set(texts.map((t) => Number(t.match(/needle number (\d+)/)?.[1])))
      expect([...numbers].sort((a, b) => a - b)).toEqual(Array.from({ length: 75 }, (_, i) => i + 1))
      // The word searched is marked in every result, and nothing else is.
      const marks = await results.locator(".message mark").allTextContents()
      expect(marks.length).toBe(75)
      expect(new Set(marks.map((m) => m.toLowerCase()))).toEqual(new Set(["needle"]))
      expect(await axeViolations(page)).toEqual([])
      await shot(page, "look-search-1280")
      await page.setViewportSize({ width: 390, height: 780 })
      await shot(page, "look-search-390")
      await page.setViewportSize({ width: 1280, height: 800 })

      // A phrase, a prefix and a modifier: the phrase and the prefix's word are marked, the modifier's name is not.
      const phrase = await search("\"quick brown\" jump* from:milo")
      const hit = phrase.getByRole("article").filter({ hasText: "lazy dog" })
      await hit.waitFor()
      expect(await hit.locator("mark").allTextContents()).toEqual(["quick brown", "jumps"])

      // Jump opens the result's channel with the post in view.
      const needle = await search("needle")
      await needle.getByRole("listitem").first().waitFor()
      await needle.getByRole("listitem").filter({ hasText: "needle number 75 in" }).getByRole("button", { name: "Jump" }).click()
      await page.waitForURL(/\/look\/(channels\/archive|pl\/\w+)$/)
      const target = messages(page).getByRole("article").filter({ hasText: "needle number 75 in" })
      await expect.poll(() => target.isVisible()).toBe(true)
    })
  })
})

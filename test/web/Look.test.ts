import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client4 } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { axeViolations } from "./support/Axe.ts"
import { haveChromium, launch, withScreenshots } from "./support/Chromium.ts"
import { createPeople, messageBox, messages, shot, sidebar, signedInContext } from "./support/People.ts"

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

  it("shows names per the server's Teammate Name Display and the person's name_format preference, live", async () => {
    await step("names", async () => {
      await apis.milo.patchMe({ first_name: "Milo", last_name: "Marsh", nickname: "Mo" } as never)
      // lena's post between milo's earlier ones and this one, so that this one shows its author's name.
      await apis.lena.createPost({ channel_id: archiveId, message: "lena has no names set" } as never)
      await apis.milo.createPost({ channel_id: archiveId, message: "a word from milo" } as never)
      const dm = await apis.milo.createDirectChannel([ids.milo, ids.lena])
      await apis.milo.createPost({ channel_id: dm.id, message: "hello lena" } as never)
      // The administrator's default (TeamSettings.TeammateNameDisplay), validated as Mattermost does.
      await expect(apis.lena.patchConfig({ TeamSettings: { TeammateNameDisplay: "nickname" } } as never)).rejects.toMatchObject({ status_code: 400 })
      await apis.lena.patchConfig({ TeamSettings: { TeammateNameDisplay: "full_name" } } as never)
      expect((await apis.milo.getClientConfig() as unknown as Record<string, string>).TeammateNameDisplay).toBe("full_name")

      await page.goto("/look/channels/archive")
      const post = messages(page).getByRole("article").filter({ hasText: "a word from milo" })
      await post.getByRole("button", { name: "Milo Marsh", exact: true }).waitFor()
      await sidebar(page).getByRole("link", { name: /Milo Marsh/ }).waitFor()
      // No name set: the username stands in.
      await messages(page).getByRole("article").filter({ hasText: "lena has no names set" }).getByRole("button", { name: "lena", exact: true }).waitFor()

      // The person's own choice, in Settings > Display, applies at once and is stored as Mattermost's preference.
      await page.getByRole("button", { name: /Account menu/ }).click()
      await page.getByRole("menuitem", { name: "Settings" }).click()
      const settings = page.getByRole("dialog", { name: "Settings" })
      const format = settings.getByRole("combobox", { name: "Teammate name display" })
      expect(await format.inputValue()).toBe("full_name")
      await format.selectOption({ label: "Show username" })
      await settings.getByRole("button", { name: "Close" }).click()
      await post.getByRole("button", { name: "milo", exact: true }).waitFor()
      await sidebar(page).getByRole("link", { name: /^milo/ }).waitFor()
      await expect.poll(async () => (await apis.lena.getMyPreferences() as unknown as Array<{ category: string; name: string; value: string }>).find((p) => p.category === "display_settings" && p.name === "name_format")?.value).toBe("username")

      // Changed on another device: the open page follows.
      await apis.lena.savePreferences(ids.lena, [{ user_id: ids.lena, category: "display_settings", name: "name_format", value: "nickname_full_name" }])
      await post.getByRole("button", { name: "Mo", exact: true }).waitFor()
      await sidebar(page).getByRole("link", { name: /^Mo\b/ }).waitFor()
      // The mention autocomplete shows the username and the name.
      await messageBox(page).pressSequentially("hi @mil")
      await page.getByRole("option", { name: "@milo Mo" }).waitFor()
      await messageBox(page).fill("")
      expect(await axeViolations(page)).toEqual([])
      await shot(page, "look-names-1280")
    })
  })

  it("applies Mattermost's themes from the 'theme' preference, live from another client, and keeps axe clean in each", async () => {
    await step("themes", async () => {
      type Pref = { category: string; name: string; value: string }
      const sidebarBg = () => sidebar(page).evaluate((el) => getComputedStyle(el.closest(".sidebar") ?? el).backgroundColor)
      const storedTheme = async () => {
        const found = (await apis.lena.getMyPreferences() as unknown as Array<Pref>).find((p) => p.category === "theme" && p.name === "")
        return found ? JSON.parse(found.value) as Record<string, string> : null
      }
      await page.goto("/look/channels/archive")
      await messages(page).getByText("a word from milo").waitFor()
      const before = await sidebarBg()

      // Chosen in Settings > Display: applied at once, stored as the theme JSON the official apps read.
      await page.getByRole("button", { name: /Account menu/ }).click()
      await page.getByRole("menuitem", { name: "Settings" }).click()
      const settings = page.getByRole("dialog", { name: "Settings" })
      await settings.getByRole("radio", { name: "Onyx" }).check()
      await expect.poll(sidebarBg).toBe("rgb(18, 19, 23)")
      expect(before).not.toBe("rgb(18, 19, 23)")
      await expect.poll(async () => (await storedTheme())?.type).toBe("Onyx")
      expect(await storedTheme()).toMatchObject({ sidebarBg: "#121317", centerChannelBg: "#090a0b", linkColor: "#5d89ea", buttonBg: "#386fe5" })
      expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe("rgb(9, 10, 11)")
      expect(await axeViolations(page)).toEqual([])
      await settings.getByRole("radio", { name: "Onyx" }).scrollIntoViewIfNeeded()
      await shot(page, "look-theme-settings-1280")
      await page.setViewportSize({ width: 390, height: 780 })
      await shot(page, "look-theme-settings-390")
      await page.setViewportSize({ width: 1280, height: 800 })

      // A custom theme pasted as JSON (Mattermost's format): its colours apply, stored with type "custom".
      await settings.getByRole("radio", { name: "Custom" }).check()
      await settings.getByRole("textbox", { name: /Theme colors \(JSON/ }).fill(JSON.stringify({ sidebarBg: "#5a2d82", sidebarText: "#ffffff", centerChannelBg: "#fdfbf7", centerChannelColor: "#222222", linkColor: "#0b6e4f", buttonBg: "#0b6e4f", buttonColor: "#ffffff" }))
      await settings.getByRole("button", { name: "Apply pasted theme" }).click()
      await expect.poll(sidebarBg).toBe("rgb(90, 45, 130)")
      await expect.poll(async () => (await storedTheme())?.type).toBe("custom")
      expect(await axeViolations(page)).toEqual([])
      await settings.getByRole("button", { name: "Close" }).click()

      // Set through the API by another client: the open page follows, and every built-in theme passes axe.
      const colours: Record<string, string> = { Denim: "rgb(30, 50, 92)", Sapphire: "rgb(23, 74, 181)", Quartz: "rgb(244, 244, 246)", Indigo: "rgb(15, 26, 46)", Onyx: "rgb(18, 19, 23)" }
      const other = client4(server.url)
      await other.login("lena", "correct-horse-battery")
      for (const [type, rgb] of Object.entries(colours)) {
        await other.savePreferences(ids.lena, [{ user_id: ids.lena, category: "theme", name: "", value: JSON.stringify({ type }) }])
        await expect.poll(sidebarBg).toBe(rgb)
        expect(await axeViolations(page), type).toEqual([])
        if (type === "Quartz" || type === "Onyx") {
          await shot(page, `look-theme-${type.toLowerCase()}-1280`)
          await page.setViewportSize({ width: 390, height: 780 })
          await shot(page, `look-theme-${type.toLowerCase()}-390`)
          await page.setViewportSize({ width: 1280, height: 800 })
        }
      }
      // A theme for this team only wins over the one for every team; deleting it goes back.
      await other.savePreferences(ids.lena, [{ user_id: ids.lena, category: "theme", name: teamId, value: JSON.stringify(THEME_SAPPHIRE) }])
      await expect.poll(sidebarBg).toBe("rgb(23, 74, 181)")
      await other.deletePreferences(ids.lena, [{ user_id: ids.lena, category: "theme", name: teamId, value: "" }])
      await expect.poll(sidebarBg).toBe("rgb(18, 19, 23)")
      // No theme at all: the page's own colours again.
      await other.deletePreferences(ids.lena, [{ user_id: ids.lena, category: "theme", name: "", value: "" }])
      await expect.poll(sidebarBg).toBe(before)
    })
  })
})

const THEME_SAPPHIRE = { type: "Sapphire", sidebarBg: "#174ab5", sidebarText: "#ffffff", centerChannelBg: "#ffffff", centerChannelColor: "#3f4350" }

import sharp from "sharp"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client4 } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { axeViolations } from "./support/Axe.ts"
import { haveChromium, launch, withScreenshots } from "./support/Chromium.ts"
import { createPeople, messageBox, messages, shot, signedInContext } from "./support/People.ts"

/**
 * Issue 28, content: the full emoji set under Mattermost's names (loaded on first use, searched by name and keyword),
 * reactions with it stored as Mattermost names them, custom emoji from the server in the picker and in messages, the
 * skin tone and recently used emoji kept in the preferences the official apps read. ann has the browser; bob posts
 * and uploads through the API.
 */
let server: TestServer
let browser: Browser
let closeBrowser: () => Promise<void>
let context: BrowserContext
let ann: Page
let apis: Record<string, ReturnType<typeof client4>>
let ids: Record<string, string>
let teamId = ""
let townId = ""

beforeAll(async () => {
  server = await startServer()
  ;({ apis, ids } = await createPeople(server.url, ["ann", "bob"]))
  teamId = (await apis.ann.createTeam({ name: "crew", display_name: "Crew", type: "O" } as never)).id
  await apis.ann.addToTeam(teamId, ids.bob)
  townId = (await apis.ann.getChannelByName(teamId, "town-square")).id
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

const post = (page: Page, text: string) => messages(page).getByRole("article").filter({ hasText: text })

/** Opens the emoji picker of the post that says `text`. */
const openPicker = async (page: Page, text: string) => {
  const article = post(page, text)
  await article.hover()
  await article.getByRole("button", { name: "Add reaction" }).click()
  const picker = page.getByRole("dialog", { name: "Emoji picker" })
  await picker.getByRole("searchbox", { name: "Search emoji" }).waitFor()
  return picker
}

const reactionNames = async (postId: string) => ((await apis.ann.getReactionsForPost(postId)) ?? []).map((r) => `${r.user_id === ids.ann ? "ann" : "bob"}:${r.emoji_name}`)

const emojiPrefs = async () => {
  const prefs = (await apis.ann.getMyPreferences()) as unknown as Array<{ category: string; name: string; value: string }>
  return {
    tone: prefs.find((p) => p.category === "emoji" && p.name === "emoji_skintone")?.value,
    recent: JSON.parse(prefs.find((p) => p.category === "recent_emojis" && p.name === ids.ann)?.value ?? "[]") as Array<{ name: string; usageCount: number }>
  }
}

describe.skipIf(!haveChromium)("emoji", () => {
  it("loads the full set only when needed, finds taco by name and the thumbs by keyword, and reacts with it", async () => {
    await step("emoji-picker", async () => {
      const lunch = await apis.bob.createPost({ channel_id: townId, message: "lunch at noon?" } as never)
      const chunks: Array<string> = []
      ann.on("request", (r) => r.url().includes("/static/") && chunks.push(r.url()))
      await ann.goto("/crew/channels/town-square")
      await post(ann, "lunch at noon?").waitFor()
      const firstLoad = chunks.length

      const picker = await openPicker(ann, "lunch at noon?")
      // The emoji set came as chunks of its own, after the page had loaded.
      expect(chunks.length).toBeGreaterThan(firstLoad)
      await picker.getByRole("region", { name: "Food & Drink" }).getByRole("button", { name: "taco", exact: true }).waitFor()
      expect(await picker.getByRole("button", { name: "Smileys & Emotion" }).count()).toBe(1)
      await shot(ann, "emoji-picker-1280")
      expect(await axeViolations(ann)).toEqual([])

      const search = picker.getByRole("searchbox", { name: "Search emoji" })
      // "thumbs up" is in the Unicode name (THUMBS UP SIGN), not in a short name (+1, thumbsup).
      await search.fill("thumbs up")
      await picker.getByRole("region", { name: "Search results" }).getByRole("button", { name: "+1", exact: true }).waitFor()
      await search.fill("taco")
      const taco = picker.getByRole("region", { name: "Search results" }).getByRole("button", { name: "taco", exact: true })
      expect(await taco.textContent()).toBe("🌮")
      await taco.click()
      await picker.waitFor({ state: "detached" })

      const reaction = post(ann, "lunch at noon?").getByRole("button", { name: "taco reaction by ann" })
      await reaction.waitFor()
      expect(await reaction.textContent()).toContain("🌮")
      await expect.poll(() => reactionNames(lunch.id)).toEqual(["ann:taco"])
    })
  })

  it("renders :taco: in a message, also on a fresh page before the set is loaded", async () => {
    await step("emoji-text", async () => {
      await messageBox(ann).fill("time for :taco: and :+1:")
      await messageBox(ann).press("Enter")
      const sent = post(ann, "time for")
      await sent.getByRole("img", { name: "taco" }).waitFor()
      expect(await sent.getByRole("img", { name: "taco" }).textContent()).toBe("🌮")
      await apis.bob.createPost({ channel_id: townId, message: "the :burrito: is better than :no_such_emoji_here:" } as never)
      await ann.reload()
      const other = post(ann, "is better than")
      // burrito is not in the built-in table of the first load: it shows once the set has come.
      await other.getByRole("img", { name: "burrito" }).waitFor()
      expect(await other.getByRole("img", { name: "burrito" }).textContent()).toBe("🌯")
      await other.getByText(":no_such_emoji_here:").waitFor()
    })
  })

  it("offers a custom emoji uploaded through the API in the picker, in messages and in reactions", async () => {
    await step("emoji-custom", async () => {
      const image = await sharp({ create: { width: 64, height: 64, channels: 4, background: { r: 220, g: 40, b: 160, alpha: 1 } } }).png().toBuffer()
      // Made while ann's page is open: the emoji_added event brings it to her picker.
      const emoji = await apis.bob.createCustomEmoji({ creator_id: ids.bob, name: "party_parrot" } as never, new File([image as BlobPart], "parrot.png", { type: "image/png" }))
      await apis.bob.createPost({ channel_id: townId, message: "ship it :party_parrot:" } as never)
      const shipped = post(ann, "ship it")
      const inline = shipped.getByRole("img", { name: ":party_parrot:" })
      await inline.waitFor()
      expect(await inline.getAttribute("src")).toBe(`/api/v4/emoji/${emoji.id}/image`)
      await expect.poll(() => inline.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(64)

      const picker = await openPicker(ann, "ship it")
      await picker.getByRole("region", { name: "Custom" }).getByRole("button", { name: "party_parrot" }).waitFor()
      await picker.getByRole("searchbox", { name: "Search emoji" }).fill("parrot")
      await picker.getByRole("region", { name: "Search results" }).getByRole("button", { name: "party_parrot" }).click()
      const reaction = shipped.getByRole("button", { name: "party_parrot reaction by ann" })
      await reaction.waitFor()
      expect(await reaction.locator("img").getAttribute("src")).toBe(`/api/v4/emoji/${emoji.id}/image`)
      const shippedId = Object.values((await apis.ann.getPosts(townId, 0, 20)).posts).find((p) => p.message.startsWith("ship it"))!.id
      await expect.poll(() => reactionNames(shippedId)).toEqual(["ann:party_parrot"])
    })
  })

  it("applies the skin tone the person picks, saved as their preference", async () => {
    await step("emoji-tone", async () => {
      const picker = await openPicker(ann, "lunch at noon?")
      await picker.getByRole("button", { name: "Skin tone: Default skin tone" }).click()
      await picker.getByRole("group", { name: "Skin tones" }).getByRole("button", { name: "Medium skin tone" }).click()
      await picker.getByRole("button", { name: "Skin tone: Medium skin tone" }).waitFor()
      await expect.poll(async () => (await emojiPrefs()).tone).toBe("1F3FD")
      await picker.getByRole("searchbox", { name: "Search emoji" }).fill("+1")
      const thumbs = picker.getByRole("region", { name: "Search results" }).getByRole("button", { name: "+1_medium_skin_tone" })
      expect(await thumbs.textContent()).toBe("👍🏽")
      await thumbs.click()
      const reaction = post(ann, "lunch at noon?").getByRole("button", { name: "+1_medium_skin_tone reaction by ann" })
      await reaction.waitFor()
      expect(await reaction.textContent()).toContain("👍🏽")
      const lunch = (await apis.ann.getPosts(townId, 0, 20)).posts
      const id = Object.values(lunch).find((p) => p.message === "lunch at noon?")!.id
      await expect.poll(() => reactionNames(id)).toEqual(expect.arrayContaining(["ann:taco", "ann:+1_medium_skin_tone"]))
    })
  })

  it("shows the recently used emoji first, from the preference, on another page too", async () => {
    await step("emoji-recent", async () => {
      await expect.poll(async () => (await emojiPrefs()).recent.map((r) => r.name)).toEqual(["taco", "party_parrot", "+1_medium_skin_tone"])
      const other = await context.newPage()
      try {
        await other.goto("/crew/channels/town-square")
        const picker = await openPicker(other, "is better than")
        const recent = picker.getByRole("region", { name: "Recently used" })
        await recent.waitFor()
        expect(await recent.getByRole("button").evaluateAll((bs) => bs.map((b) => b.getAttribute("aria-label")))).toEqual(["+1_medium_skin_tone", "party_parrot", "taco"])
        // The first button of the grid is the most recent one; the arrow keys move from the search box through it.
        await picker.getByRole("searchbox", { name: "Search emoji" }).press("ArrowDown")
        await expect.poll(() => other.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("+1_medium_skin_tone")
        await other.keyboard.press("ArrowRight")
        await expect.poll(() => other.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("party_parrot")
        await other.keyboard.press("Enter")
        await picker.waitFor({ state: "detached" })
        await post(other, "is better than").getByRole("button", { name: "party_parrot reaction by ann" }).waitFor()
        // party_parrot used twice now: first.
        await expect.poll(async () => (await emojiPrefs()).recent.at(-1)).toEqual({ name: "party_parrot", usageCount: 2 })
        const again = await openPicker(other, "is better than")
        await expect.poll(() => again.getByRole("region", { name: "Recently used" }).getByRole("button").first().getAttribute("aria-label")).toBe("party_parrot")
        await again.press("Escape")
        await again.waitFor({ state: "detached" })
      } finally {
        await other.close()
      }
    })
  })

  it("fits the picker on a phone", async () => {
    await step("emoji-phone", async () => {
      await ann.setViewportSize({ width: 390, height: 844 })
      try {
        const picker = await openPicker(ann, "lunch at noon?")
        const box = (await picker.boundingBox())!
        expect(box.x).toBeGreaterThanOrEqual(0)
        expect(box.x + box.width).toBeLessThanOrEqual(390)
        await shot(ann, "emoji-picker-390")
        expect(await axeViolations(ann)).toEqual([])
        await ann.keyboard.press("Escape")
        await picker.waitFor({ state: "detached" })
      } finally {
        await ann.setViewportSize({ width: 1280, height: 800 })
      }
    })
  })
})

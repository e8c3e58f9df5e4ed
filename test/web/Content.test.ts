import sharp from "sharp"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client4 } from "../support/Clients.ts"
import { tinyPdf, wavTone } from "../support/Samples.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { axeViolations } from "./support/Axe.ts"
import { haveChromium, launch, withScreenshots } from "./support/Chromium.ts"
import { createPeople, messageBox, messages, shot, signedInContext } from "./support/People.ts"

/**
 * Issue 28, content: the full emoji set under Mattermost's names (loaded on first use, searched by name and keyword),
 * reactions with it stored as Mattermost names them, custom emoji from the server in the picker and in messages, the
 * skin tone and recently used emoji kept in the preferences the official apps read; and files: images inline at sizes
 * from the file info, the preview dialog (steps round, downloads, Escape), a PDF in an iframe of its inline preview, a
 * code file highlighted with line numbers and a long log read in one byte range, audio and video played from the
 * file's URL in ranges. ann has the browser; bob posts and uploads through the API.
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

/** Uploads files through the API as bob and posts them with a message; the infos in upload order. */
const share = async (message: string, files: ReadonlyArray<{ name: string; bytes: Buffer; type: string }>) => {
  const form = new FormData()
  form.append("channel_id", townId)
  for (const f of files) form.append("files", new Blob([f.bytes as BlobPart], { type: f.type }), f.name)
  const { file_infos } = await apis.bob.uploadFile(form)
  const byName = files.map((f) => file_infos.find((i) => i.name === f.name)!)
  await apis.bob.createPost({ channel_id: townId, message, file_ids: byName.map((i) => i.id) } as never)
  return byName
}

const png = (width: number, height: number, colour: string) => sharp({ create: { width, height, channels: 3, background: colour } }).png().toBuffer()

/** A short WebM recorded by the browser itself from a canvas (no video encoder on the test machine). */
const recordWebm = (page: Page) =>
  page.evaluate(async () => {
    const canvas = document.createElement("canvas")
    canvas.width = 64
    canvas.height = 48
    const g = canvas.getContext("2d")!
    const recorder = new MediaRecorder(canvas.captureStream(20), { mimeType: "video/webm" })
    const parts: Array<Blob> = []
    recorder.ondataavailable = (e) => parts.push(e.data)
    const stopped = new Promise((resolve) => (recorder.onstop = resolve))
    recorder.start()
    for (let frame = 0; frame < 12; frame++) {
      g.fillStyle = frame % 2 ? "#c03" : "#03c"
      g.fillRect(0, 0, 64, 48)
      await new Promise((resolve) => requestAnimationFrame(resolve))
    }
    recorder.stop()
    await stopped
    const bytes = new Uint8Array(await new Blob(parts, { type: "video/webm" }).arrayBuffer())
    let text = ""
    for (const b of bytes) text += String.fromCharCode(b)
    return btoa(text)
  })

const activeLabel = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? document.activeElement?.textContent ?? "")

describe.skipIf(!haveChromium)("file previews", () => {
  it("shows one image large and several as thumbnails, sized from the file info; the dialog steps, downloads and closes", async () => {
    await step("files-images", async () => {
      await ann.goto("/crew/channels/town-square")
      await messageBox(ann).waitFor()
      await share("one picture", [{ name: "wide.png", bytes: await png(1000, 500, "#2a6"), type: "image/png" }])
      const [first, second] = await share("two pictures", [
        { name: "left.png", bytes: await png(800, 400, "#36f"), type: "image/png" },
        { name: "right.png", bytes: await png(200, 400, "#f63"), type: "image/png" }
      ])
      const single = post(ann, "one picture").getByRole("img", { name: "wide.png" })
      await single.waitFor()
      expect(await single.evaluate((img: HTMLImageElement) => [img.getAttribute("width"), img.getAttribute("height"), img.getAttribute("src")])).toEqual(["480", "240", expect.stringMatching(/\/preview$/)])
      const left = post(ann, "two pictures").getByRole("img", { name: "left.png" })
      const right = post(ann, "two pictures").getByRole("img", { name: "right.png" })
      expect(await left.evaluate((img: HTMLImageElement) => [img.width, img.height, img.getAttribute("src")])).toEqual([120, 60, `/api/v4/files/${first.id}/thumbnail`])
      expect(await right.evaluate((img: HTMLImageElement) => [img.width, img.height])).toEqual([50, 100])
      await expect.poll(() => right.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true)
      await shot(ann, "files-images-1280")

      const opener = post(ann, "two pictures").getByRole("button", { name: "Open image left.png" })
      await opener.click()
      const dialog = ann.getByRole("dialog", { name: "Image preview: left.png" })
      await dialog.getByText("1 of 2").waitFor()
      await expect.poll(() => dialog.getByRole("img", { name: "left.png" }).evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(800)
      await dialog.getByRole("button", { name: "Next file" }).click()
      const next = ann.getByRole("dialog", { name: "Image preview: right.png" })
      await next.getByText("2 of 2").waitFor()
      const download = next.getByRole("link", { name: "Download right.png" })
      expect(await download.getAttribute("href")).toBe(`/api/v4/files/${second.id}?download=1`)
      expect((await context.request.get((await download.getAttribute("href"))!)).headers()["content-disposition"]).toMatch(/^attachment;/)
      await shot(ann, "files-image-dialog-1280")
      expect(await axeViolations(ann)).toEqual([])
      await ann.keyboard.press("ArrowLeft")
      await ann.getByRole("dialog", { name: "Image preview: left.png" }).waitFor()
      // Round from the first to the last.
      await ann.keyboard.press("ArrowLeft")
      await ann.getByRole("dialog", { name: "Image preview: right.png" }).waitFor()
      await ann.keyboard.press("Escape")
      await ann.getByRole("dialog", { name: /Image preview/ }).waitFor({ state: "detached" })
      await expect.poll(() => activeLabel(ann)).toBe("Open image left.png")
    })
  })

  it("opens a PDF in the browser's viewer and a code file with line numbers, highlighted; a long log in part", async () => {
    await step("files-documents", async () => {
      const code = "export const greet = (name: string) => {\n  // say hello\n  return `hello ${name}`\n}\n"
      const log = Array.from({ length: 12_000 }, (_, i) => `line ${i + 1} of the build log`).join("\n")
      const [pdf] = await share("documents", [
        { name: "report.pdf", bytes: tinyPdf("Quarterly report"), type: "application/pdf" },
        { name: "greet.ts", bytes: Buffer.from(code), type: "application/octet-stream" },
        { name: "build.log", bytes: Buffer.from(log), type: "text/plain" }
      ])
      const ranges: Array<string> = []
      ann.on("request", (r) => r.headers()["range"] && ranges.push(`${new URL(r.url()).pathname} ${r.headers()["range"]}`))
      await post(ann, "documents").getByRole("button", { name: "Preview report.pdf" }).click()
      const dialog = ann.getByRole("dialog", { name: "PDF preview: report.pdf" })
      const frame = dialog.locator("iframe")
      expect(await frame.getAttribute("title")).toBe("PDF report.pdf")
      expect(await frame.getAttribute("src")).toBe(`/api/v4/files/${pdf.id}/preview`)
      const served = await context.request.get(`/api/v4/files/${pdf.id}/preview`)
      expect(served.headers()["content-type"]).toBe("application/pdf")
      expect(served.headers()["content-disposition"]).toMatch(/^inline;/)
      expect(served.headers()["x-frame-options"]).toBe("SAMEORIGIN")
      await dialog.getByText("1 of 3").waitFor()

      await ann.keyboard.press("ArrowRight")
      const text = ann.getByRole("dialog", { name: "Text preview: greet.ts" })
      const contents = text.getByRole("region", { name: "Contents of greet.ts" })
      await contents.locator(".hljs-keyword").first().waitFor()
      expect(await contents.locator(".line-numbers").textContent()).toBe("1\n2\n3\n4")
      expect(await contents.locator("code").textContent()).toBe(code)
      expect(await contents.locator(".hljs-comment").textContent()).toBe("// say hello")
      await shot(ann, "files-text-dialog-1280")
      expect(await axeViolations(ann)).toEqual([])

      await text.getByRole("button", { name: "Next file" }).click()
      const long = ann.getByRole("region", { name: "Contents of build.log" })
      await long.waitFor()
      await ann.getByRole("note").getByText(/Showing the first 256 KB of 3\d\d KB/).waitFor()
      const shown = (await long.locator("code").textContent())!
      expect(shown.startsWith("line 1 of the build log\n")).toBe(true)
      expect(shown.endsWith(" of the build log")).toBe(true)
      expect(shown.length).toBeLessThanOrEqual(256 * 1024)
      expect(ranges.some((r) => r.endsWith(" bytes=0-262143"))).toBe(true)
      await ann.keyboard.press("Escape")
      await ann.getByRole("dialog").waitFor({ state: "detached" })
    })
  })

  it("plays audio and video inline from the file's URL, in byte ranges", async () => {
    await step("files-media", async () => {
      const webm = Buffer.from(await recordWebm(ann), "base64")
      await share("media", [
        { name: "tone.wav", bytes: wavTone(1), type: "audio/wav" },
        { name: "clip.webm", bytes: webm, type: "video/webm" }
      ])
      const ranged: Array<string> = []
      ann.on("response", (r) => r.status() === 206 && ranged.push(new URL(r.url()).pathname))
      const media = post(ann, "media")
      const audio = media.locator("audio")
      await audio.waitFor()
      expect(await audio.getAttribute("aria-label")).toBe("Audio tone.wav")
      await expect.poll(() => audio.evaluate((a: HTMLAudioElement) => a.readyState >= 1 && Math.round(a.duration * 10) / 10), { timeout: 15_000 }).toBe(1)
      const video = media.locator("video")
      expect(await video.getAttribute("aria-label")).toBe("Video clip.webm")
      await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.readyState >= 1 && [v.videoWidth, v.videoHeight]), { timeout: 15_000 }).toEqual([64, 48])
      const [tone, clip] = [await audio.getAttribute("src"), await video.getAttribute("src")]
      expect(tone).toMatch(/^\/api\/v4\/files\/\w+$/)
      await expect.poll(() => ranged.includes(tone!) && ranged.includes(clip!)).toBe(true)
      await shot(ann, "files-media-1280")
      expect(await axeViolations(ann)).toEqual([])
    })
  })

  it("fits files and the dialog on a phone", async () => {
    await step("files-phone", async () => {
      await ann.setViewportSize({ width: 390, height: 844 })
      try {
        await post(ann, "one picture").scrollIntoViewIfNeeded()
        const single = (await post(ann, "one picture").getByRole("img", { name: "wide.png" }).boundingBox())!
        expect(single.x + single.width).toBeLessThanOrEqual(390)
        await shot(ann, "files-images-390")
        await post(ann, "documents").getByRole("button", { name: "Preview greet.ts" }).click()
        const dialog = ann.getByRole("dialog", { name: "Text preview: greet.ts" })
        await dialog.getByRole("region", { name: "Contents of greet.ts" }).waitFor()
        const box = (await dialog.boundingBox())!
        expect(box.x).toBeGreaterThanOrEqual(0)
        expect(box.x + box.width).toBeLessThanOrEqual(390)
        await shot(ann, "files-text-dialog-390")
        expect(await axeViolations(ann)).toEqual([])
        await dialog.getByRole("button", { name: "Close preview" }).click()
        await dialog.waitFor({ state: "detached" })
      } finally {
        await ann.setViewportSize({ width: 1280, height: 800 })
      }
    })
  })
})

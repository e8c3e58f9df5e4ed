import type { Channel } from "@mattermost/types/channels"
import type { Post } from "@mattermost/types/posts"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import type { Browser, BrowserContext, Locator, Page } from "playwright-core"
import sharp from "sharp"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client4 } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { type Receiver, startReceiver } from "../webhooks/Receiver.ts"
import { axeViolations } from "./support/Axe.ts"
import { haveChromium, launch, withScreenshots } from "./support/Chromium.ts"
import { createPeople, messageBox, messages, shot, signedInContext } from "./support/People.ts"

/**
 * Integrations and rich content in the browser (issue 28): an incoming webhook's Slack-style attachment drawn as
 * Mattermost draws it (colour bar, pretext, author, linked title, markdown text, fields in columns, thumbnail and
 * image, footer and time), its button and menu wired to the post actions (a loopback integration answers with an
 * update and ephemeral text), the BOT tag and the webhook's override name and icon, ephemeral and system posts
 * apart from people's, and a fenced code block highlighted by the lazily loaded highlight.js.
 */

let server: TestServer
let receiver: Receiver
let assets: { origin: string; close: () => Promise<void>; hits: Map<string, number> }
let browser: Browser
let closeBrowser: () => Promise<void>
let context: BrowserContext
let page: Page
let people: Awaited<ReturnType<typeof createPeople>>
let teamName = ""
let channel: Channel

/** A loopback "internet": PNG pictures of a given size, and pages with OpenGraph tags. */
const startAssets = async () => {
  const hits = new Map<string, number>()
  const png = async (width: number, height: number) =>
    sharp({ create: { width, height, channels: 3, background: { r: 30, g: 120, b: 200 } } }).png().toBuffer()
  const pictures: Record<string, Buffer> = {
    "/icon.png": await png(64, 64),
    "/thumb.png": await png(120, 120),
    "/chart.png": await png(400, 200),
    "/cover.png": await png(640, 320)
  }
  const http: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]
    hits.set(path, (hits.get(path) ?? 0) + 1)
    const picture = pictures[path]
    if (picture !== undefined) return void res.writeHead(200, { "content-type": "image/png" }).end(picture)
    if (path.startsWith("/article")) {
      return void res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(`<!doctype html><html><head>
<meta property="og:title" content="Loopback launches rich previews">
<meta property="og:description" content="Cards with a title, a description and a picture, from the page's OpenGraph tags.">
<meta property="og:site_name" content="Loopback Times">
<meta property="og:image" content="/cover.png">
<meta property="og:image:width" content="640"><meta property="og:image:height" content="320">
</head><body>hello</body></html>`)
    }
    res.writeHead(404).end()
  })
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve))
  const origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`
  return { origin, hits, close: () => new Promise<void>((resolve) => { http.closeAllConnections(); http.close(() => resolve()) }) }
}

beforeAll(async () => {
  receiver = await startReceiver()
  assets = await startAssets()
  server = await startServer({ env: { SERVICE_ALLOW_INTERNAL_CONNECTIONS: "127.0.0.1" } })
  people = await createPeople(server.url, ["rhea", "sol"])
  const admin = people.apis.rhea
  await admin.patchConfig({
    ServiceSettings: { EnablePostUsernameOverride: true, EnablePostIconOverride: true, EnableBotAccountCreation: true, EnableIncomingWebhooks: true }
  } as never)
  const team = await admin.createTeam({ name: "integrations", display_name: "Integrations", type: "O" } as never)
  teamName = team.name
  await admin.addToTeam(team.id, people.ids.sol)
  channel = await admin.createChannel({ team_id: team.id, name: "builds", display_name: "Builds", type: "O" } as Channel)
  await admin.addToChannel(people.ids.sol, channel.id)
  if (!haveChromium) return
  ;({ browser, close: closeBrowser } = await launch())
  context = await signedInContext(browser, server.url, "rhea")
  context.setDefaultTimeout(15_000)
  page = await context.newPage()
  page.on("console", (m) => m.type() === "error" && console.log("browser console:", m.text()))
}, 60_000)

afterAll(async () => {
  await closeBrowser?.()
  await server?.close()
  await receiver?.close()
  await assets?.close()
})

const step = (name: string, body: () => Promise<void>) => withScreenshots(name, () => (page ? [page] : []), body)
const postWith = (text: string): Locator => messages(page).getByRole("article").filter({ hasText: text })

const sendHook = async (hookId: string, payload: unknown) => {
  const response = await fetch(`${server.url}/hooks/${hookId}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(payload) })
  expect(response.status).toBe(200)
}

describe.skipIf(!haveChromium)("integrations and system posts in the web client", () => {
  it("draws an incoming webhook's attachment as Mattermost does, under the hook's override name and icon with a BOT tag", async () => {
    await step("rich-attachment", async () => {
      const hook = await people.apis.rhea.createIncomingWebhook({ channel_id: channel.id, display_name: "CI" })
      await page.goto(`/${teamName}/channels/builds`)
      await messages(page).waitFor()
      await sendHook(hook.id, {
        username: "ci-bot",
        icon_url: `${assets.origin}/icon.png`,
        text: "Nightly finished",
        attachments: [{
          fallback: "Build 42 failed",
          color: "danger",
          pretext: "Nightly **build** report",
          author_name: "Jenkins",
          author_link: "https://ci.example.com/",
          author_icon: `${assets.origin}/icon.png`,
          title: "Build #42 failed",
          title_link: "https://ci.example.com/job/42",
          text: "Step *unit tests* failed on `main`",
          fields: [
            { title: "Branch", value: "main", short: true },
            { title: "Duration", value: "3m 12s", short: true },
            { title: "Failing test", value: "**PostList** keeps its anchor", short: false }
          ],
          thumb_url: `${assets.origin}/thumb.png`,
          image_url: `${assets.origin}/chart.png`,
          footer: "Jenkins CI",
          footer_icon: `${assets.origin}/icon.png`,
          ts: 1_700_000_000,
          actions: [
            { name: "Retry", style: "primary", integration: { url: receiver.url("/retry", () => ({ json: {
              update: { message: "Nightly finished", props: { attachments: [{ color: "good", title: "Build #42 retried", text: "Retry queued by the integration" }] } },
              ephemeral_text: "You asked for a retry."
            } })), context: { build: 42 } } },
            { name: "Pick a runner", type: "select", options: [{ text: "Linux", value: "linux" }, { text: "macOS", value: "mac" }],
              integration: { url: receiver.url("/runner", (r) => ({ json: { ephemeral_text: `Runner set to ${JSON.parse(r.body).context.selected_option}.` } })) } }
          ]
        }]
      })
      const post = postWith("Build #42 failed")
      await post.waitFor()
      // Author line: the override name, the BOT tag, the override icon through the image proxy.
      await post.getByRole("button", { name: "ci-bot" }).waitFor()
      await post.getByText("BOT", { exact: true }).waitFor()
      expect(await post.locator(".avatar img").first().getAttribute("src")).toBe(`/api/v4/image?url=${encodeURIComponent(`${assets.origin}/icon.png`)}`)
      // Pretext and text are markdown; the title and the author link out.
      expect(await post.locator(".attachment-pretext strong").textContent()).toBe("build")
      expect(await post.locator(".attachment-text em").textContent()).toBe("unit tests")
      expect(await post.getByRole("link", { name: "Build #42 failed" }).getAttribute("href")).toBe("https://ci.example.com/job/42")
      expect(await post.getByRole("link", { name: "Jenkins" }).getAttribute("href")).toBe("https://ci.example.com/")
      // "danger" is Mattermost's red bar.
      expect(await post.locator(".attachment-box").evaluate((el) => getComputedStyle(el).borderLeftColor)).toBe("rgb(228, 3, 3)")
      // Short fields side by side, the long one below across both columns.
      const branch = await post.getByText("Branch", { exact: true }).boundingBox()
      const duration = await post.getByText("Duration", { exact: true }).boundingBox()
      const failing = await post.getByText("Failing test", { exact: true }).boundingBox()
      expect(Math.abs(branch!.y - duration!.y)).toBeLessThan(2)
      expect(duration!.x).toBeGreaterThan(branch!.x + 100)
      expect(failing!.y).toBeGreaterThan(branch!.y + 10)
      expect(Math.abs(failing!.x - branch!.x)).toBeLessThan(2)
      expect(await post.locator(".field-value strong").textContent()).toBe("PostList")
      // Image and thumbnail, footer with its icon and the time.
      await post.getByRole("img", { name: "Image: Build #42 failed" }).waitFor()
      // Loaded through the server's image proxy from the loopback host (the client's CSP allows images from itself only).
      await page.waitForFunction((el) => (el as HTMLImageElement).complete && (el as HTMLImageElement).naturalWidth === 400,
        await post.getByRole("img", { name: "Image: Build #42 failed" }).elementHandle())
      expect(await post.locator(".attachment-thumb").getAttribute("src")).toContain(encodeURIComponent(`${assets.origin}/thumb.png`))
      await post.getByText("Jenkins CI").waitFor()
      expect(await post.locator(".attachment-footer time").getAttribute("datetime")).toBe(new Date(1_700_000_000_000).toISOString())
      await shot(page, "rich-attachment-1280")
      expect(await axeViolations(page)).toEqual([])
    })
  })

  it("a menu choice and a button call the integration; its update replaces the post and its ephemeral text shows to me alone", async () => {
    await step("rich-actions", async () => {
      const post = postWith("Build #42 failed")
      await post.getByRole("combobox", { name: "Pick a runner" }).selectOption({ label: "macOS" })
      const chosen = postWith("Runner set to mac.")
      await chosen.waitFor()
      expect(JSON.parse(receiver.at("/runner")[0].body)).toMatchObject({ context: { selected_option: "mac" }, user_id: people.ids.rhea })
      await chosen.getByText("(Only visible to you)").waitFor()
      // The integration's answer keeps its webhook marks: it shows as the hook, with the BOT tag.
      await chosen.getByText("BOT", { exact: true }).waitFor()

      await post.getByRole("button", { name: "Retry" }).click()
      await postWith("Build #42 retried").waitFor()
      const retried = postWith("Build #42 retried")
      await retried.getByText("Retry queued by the integration").waitFor()
      expect(await retried.locator(".attachment-box").evaluate((el) => getComputedStyle(el).borderLeftColor)).toBe("rgb(0, 193, 0)")
      expect(await retried.getByRole("button", { name: "Retry" }).count()).toBe(0)
      expect(JSON.parse(receiver.at("/retry")[0].body)).toMatchObject({ context: { build: 42 }, post_id: expect.any(String) })
      const ephemeral = postWith("You asked for a retry.")
      await ephemeral.getByText("(Only visible to you)").waitFor()
      // sol never sees it: it is not stored.
      const list = await people.apis.sol.getPosts(channel.id, 0, 20)
      expect(Object.values(list.posts).some((p) => p.message.includes("You asked for a retry."))).toBe(false)
      // Dismissing removes it from this page.
      await ephemeral.getByRole("button", { name: "Dismiss" }).click()
      await postWith("You asked for a retry.").waitFor({ state: "detached" })
    })
  })

  it("a bot's post has the BOT tag; a slash command's ephemeral reply shows as System, apart from my own posts", async () => {
    await step("rich-system", async () => {
      const admin = people.apis.rhea
      const bot = await admin.createBot({ username: "deploybot", display_name: "Deploy" })
      await admin.addToTeam(channel.team_id, bot.user_id)
      await admin.addToChannel(bot.user_id, channel.id)
      const token = await admin.createUserAccessToken(bot.user_id, "deploys")
      await client4(server.url, token.token!).createPost({ channel_id: channel.id, message: "deployed v3 to staging" } as Post)
      const botPost = postWith("deployed v3 to staging")
      await botPost.getByRole("button", { name: "deploybot" }).waitFor()
      await botPost.getByText("BOT", { exact: true }).waitFor()

      await messageBox(page).fill("back in five")
      await messageBox(page).press("Enter")
      await postWith("back in five").waitFor()
      await messageBox(page).fill("/away")
      await messageBox(page).press("Enter")
      const away = postWith("You are now away")
      await away.waitFor()
      // Never grouped under my own post: its own author line says System, with the note and the dismiss button.
      await away.getByText("System", { exact: true }).waitFor()
      await away.getByText("(Only visible to you)").waitFor()
      expect(await away.getAttribute("class")).toMatch(/\bephemeral\b/)
      expect(await away.getAttribute("class")).not.toMatch(/\bcompact\b/)
      expect(await away.getByRole("button", { name: "rhea" }).count()).toBe(0)
      await shot(page, "rich-system-1280")
      expect(await axeViolations(page)).toEqual([])
    })
  })

  it("highlights a fenced code block with highlight.js, loaded only once a code block is shown", async () => {
    await step("rich-code", async () => {
      const chunks = () => page.evaluate(() => performance.getEntriesByType("resource").filter((e) => e.name.includes("/static/chunk-")).map((e) => e.name))
      const before = await chunks()
      await people.apis.sol.createPost({ channel_id: channel.id, message: "```ts\nconst answer: number = 42 // the answer\nexport function ask(): string { return \"why\" }\n```" } as Post)
      const code = postWith("const answer").locator("pre code")
      await code.locator(".hljs-keyword").first().waitFor()
      expect(await code.getAttribute("data-language")).toBe("ts")
      expect(await code.locator(".hljs-keyword").allTextContents()).toEqual(expect.arrayContaining(["const", "export", "function", "return"]))
      await code.locator(".hljs-comment").getByText("// the answer").waitFor()
      await code.locator(".hljs-string").getByText("\"why\"").waitFor()
      // Without a language the grammar is guessed.
      await people.apis.sol.createPost({ channel_id: channel.id, message: "```\ndef greet(name):\n    return f\"hello {name}\"\n\nclass Greeter:\n    pass\n```" } as Post)
      const guessed = postWith("def greet").locator("pre code")
      await guessed.locator(".hljs-keyword").first().waitFor()
      expect(await guessed.getAttribute("data-language")).toBe("python")
      // highlight.js came as a chunk of its own, fetched for the first code block.
      expect((await chunks()).filter((c) => !before.includes(c)).length).toBeGreaterThan(0)
      await shot(page, "rich-code-1280")
      expect(await axeViolations(page)).toEqual([])
    })
  })

  it("shows a link's OpenGraph preview under the post, image through the proxy, and lets the author remove it", async () => {
    await step("rich-preview", async () => {
      await messageBox(page).fill(`Read this: ${assets.origin}/article-1`)
      await messageBox(page).press("Enter")
      const post = postWith("Read this:")
      const card = post.getByRole("region", { name: "Link preview: Loopback launches rich previews" })
      await card.waitFor({ timeout: 25_000 }) // made by a background job after the post is written
      await card.getByText("Loopback Times").waitFor()
      expect(await card.getByRole("link", { name: "Loopback launches rich previews" }).getAttribute("href")).toBe(`${assets.origin}/article-1`)
      await card.getByText("Cards with a title, a description and a picture").waitFor()
      // The page's picture, at its stored size, loaded through the image proxy (the page's CSP allows no other origin).
      const image = card.locator("img.link-preview-image")
      expect(await image.getAttribute("src")).toBe(`/api/v4/image?url=${encodeURIComponent(`${assets.origin}/cover.png`)}`)
      expect([await image.getAttribute("width"), await image.getAttribute("height")]).toEqual(["640", "320"])
      await page.waitForFunction((el) => (el as HTMLImageElement).complete && (el as HTMLImageElement).naturalWidth === 640, await image.elementHandle())
      await shot(page, "rich-preview-1280")
      expect(await axeViolations(page)).toEqual([])
      // Only the author is offered the removal; once removed nobody gets the preview.
      const id = await post.getAttribute("data-post-id")
      const solPage = await (await signedInContext(browser, server.url, "sol")).newPage()
      try {
        await solPage.goto(`/${teamName}/channels/builds`)
        const seen = messages(solPage).getByRole("article").filter({ hasText: "Read this:" })
        await seen.getByRole("region", { name: /^Link preview/ }).waitFor()
        expect(await seen.getByRole("button", { name: "Remove link preview" }).count()).toBe(0)
        await card.getByRole("button", { name: "Remove link preview" }).click()
        await card.waitFor({ state: "detached" })
        // The other reader's page follows the edit live.
        await seen.getByRole("region", { name: /^Link preview/ }).waitFor({ state: "detached" })
      } finally {
        await solPage.context().close()
      }
      const stored = await people.apis.sol.getPost(id!)
      expect(stored.props.remove_link_preview).toBe("true")
      expect(stored.metadata.embeds ?? []).toEqual([])
      // A link to a picture shows the picture itself, at the size the server measured.
      await messageBox(page).fill(`The chart: ${assets.origin}/chart.png`)
      await messageBox(page).press("Enter")
      const picture = postWith("The chart:").getByRole("region", { name: "Image preview" }).getByRole("img", { name: "Image from 127.0.0.1" })
      await picture.waitFor({ timeout: 25_000 })
      expect([await picture.getAttribute("width"), await picture.getAttribute("height")]).toEqual(["400", "200"])
      await page.waitForFunction((el) => (el as HTMLImageElement).complete && (el as HTMLImageElement).naturalWidth === 400, await picture.elementHandle())
    })
  })

  it("fits a phone screen", async () => {
    await step("rich-phone", async () => {
      const phone = await signedInContext(browser, server.url, "rhea", { width: 390, height: 844 })
      const small = await phone.newPage()
      try {
        await small.goto(`/${teamName}/channels/builds`)
        const post = messages(small).getByRole("article").filter({ hasText: "Build #42 retried" })
        await post.scrollIntoViewIfNeeded()
        const box = await post.locator(".attachment-box").boundingBox()
        expect(box!.x + box!.width).toBeLessThanOrEqual(390)
        await people.apis.sol.createPost({ channel_id: channel.id, message: `Also: ${assets.origin}/article-2` } as Post)
        const card = messages(small).getByRole("article").filter({ hasText: "Also:" }).getByRole("region", { name: /^Link preview/ })
        await card.waitFor()
        await card.scrollIntoViewIfNeeded()
        const cardBox = await card.boundingBox()
        expect(cardBox!.x + cardBox!.width).toBeLessThanOrEqual(390)
        await shot(small, "rich-phone-390")
        expect(await axeViolations(small)).toEqual([])
      } finally {
        await phone.close()
      }
    })
  })
})

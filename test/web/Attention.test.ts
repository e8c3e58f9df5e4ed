import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client4 } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { axeViolations } from "./support/Axe.ts"
import { haveChromium, launch, withScreenshots } from "./support/Chromium.ts"
import { channelMenu, createPeople, messages, shot, sidebar, signedInContext } from "./support/People.ts"

/**
 * Issue 28, attention: posts that mention the reader highlighted (@username, @channel unless ignored, mention keys,
 * the first name), desktop notifications through the browser's Notification API by Mattermost's rules (levels, mute,
 * Do Not Disturb, the channel on screen, one's own posts) with their sound and a click that opens the post, the
 * unread and mention marks in the tab title and favicon, the channel's notification preferences, and the Threads
 * entry marked for unread replies. ann reads in Chromium; bob writes through the API.
 *
 * "No notification" is proven without waiting for nothing: a post that must notify is sent after the one that must
 * not, and once it is recorded the earlier one (delivered before it on the same socket) is known to be absent.
 */
let server: TestServer
let browser: Browser
let closeBrowser: () => Promise<void>
let ann: Page
let apis: Record<string, ReturnType<typeof client4>>
let ids: Record<string, string>
let teamId = ""
const channelIds: Record<string, string> = {}
const contexts: Array<BrowserContext> = []
const WITHIN = { timeout: 10_000 }

beforeAll(async () => {
  server = await startServer()
  ;({ apis, ids } = await createPeople(server.url, ["ann", "bob"]))
  const team = await apis.ann.createTeam({ name: "attn", display_name: "Attention", type: "O" } as never)
  teamId = team.id
  await apis.ann.addToTeam(teamId, ids.bob)
  channelIds["town-square"] = (await apis.ann.getChannelByName(teamId, "town-square")).id
  for (const [name, display] of [["other", "Other"], ["quiet", "Quiet"], ["loud", "Loud"]]) {
    channelIds[name] = (await apis.ann.createChannel({ team_id: teamId, name, display_name: display, type: "O" } as never)).id
    await apis.ann.addToChannel(ids.bob, channelIds[name])
  }
  const dm = await apis.bob.createDirectChannel([ids.bob, ids.ann])
  channelIds.dm = dm.id
  await apis.bob.createPost({ channel_id: dm.id, message: "hello ann" } as never)
  // ann's mention keys: "deploy", and her first name (case-sensitive) — and her sound.
  const me = await apis.ann.getMe()
  await apis.ann.patchMe({
    first_name: "Annabel",
    notify_props: { ...me.notify_props, mention_keys: "deploy", first_name: "true", desktop: "mention", desktop_sound: "true", desktop_notification_sound: "Ripple" }
  } as never)
  for (const id of Object.values(channelIds)) await apis.ann.viewMyChannel(id)
  if (!haveChromium) return
  ;({ browser, close: closeBrowser } = await launch())
  const context = await signedInContext(browser, server.url, "ann")
  await context.grantPermissions(["notifications"])
  // Every Notification made (the real one, wrapped) and every tone started is recorded for the test to read.
  await context.addInitScript(() => {
    const w = window as any
    w.__notes = []
    w.__tones = []
    const Real = w.Notification
    w.Notification = class extends Real {
      constructor(title: string, options?: { body?: string; tag?: string; silent?: boolean }) {
        super(title, options)
        w.__notes.push({ title, body: options?.body ?? "", silent: options?.silent === true })
        w.__noteObjects = [...(w.__noteObjects ?? []), this]
      }
    }
    const start = OscillatorNode.prototype.start
    OscillatorNode.prototype.start = function(this: OscillatorNode, ...args: Array<number>) {
      w.__tones.push(this.frequency.value)
      return start.apply(this, args as never)
    }
  })
  contexts.push(context)
  ann = await context.newPage()
  ann.on("console", (m) => m.type() === "error" && console.log("browser console:", m.text()))
}, 90_000)

afterAll(async () => {
  await closeBrowser?.()
  await server?.close()
})

const step = (name: string, body: () => Promise<void>) => withScreenshots(name, () => [ann, ...contexts.slice(1).flatMap((c) => c.pages())].filter(Boolean), body)
const bobSays = (channel: string, message: string, rootId = "") => apis.bob.createPost({ channel_id: channelIds[channel], message, root_id: rootId } as never)
const notes = () => ann.evaluate(() => (window as any).__notes as Array<{ title: string; body: string; silent: boolean }>)
const article = (text: string) => messages(ann).getByRole("article").filter({ hasText: text })
const waitNote = (note: { title: string; body: string }) => expect.poll(async () => (await notes()).map(({ title, body }) => ({ title, body })), WITHIN).toContainEqual(note)
const bodies = async () => (await notes()).map((n) => n.body)

/** The favicon's pixel at the badge's place (the top-right dot), read back through a canvas. */
const badgePixel = () => ann.evaluate(async () => {
  const link = document.querySelector<HTMLLinkElement>('link[rel="icon"]')!
  const img = new Image()
  img.src = link.href
  await img.decode()
  const canvas = document.createElement("canvas")
  canvas.width = canvas.height = 64
  const g = canvas.getContext("2d")!
  g.drawImage(img, 0, 0, 64, 64)
  const [r, gr, b] = g.getImageData(48, 16, 1, 1).data
  return { r, g: gr, b }
})

describe.skipIf(!haveChromium)("web client: attention", () => {
  it("asks for the notification permission from a click on the banner", async () => {
    await step("banner", async () => {
      // A context whose permission was never asked: the banner shows; the click asks the browser, which grants it.
      const context = await signedInContext(browser, server.url, "ann")
      contexts.push(context)
      const page = await context.newPage()
      await page.goto("/attn/channels/town-square")
      const banner = page.getByRole("region", { name: "Desktop notifications" })
      await banner.getByRole("button", { name: "Enable desktop notifications" }).waitFor()
      await shot(page, "attention-banner")
      expect(await axeViolations(page)).toEqual([])
      await page.setViewportSize({ width: 390, height: 780 })
      await shot(page, "attention-banner-narrow")
      expect(await axeViolations(page)).toEqual([])
      await context.grantPermissions(["notifications"])
      await banner.getByRole("button", { name: "Enable desktop notifications" }).click()
      await expect.poll(() => banner.count(), WITHIN).toBe(0)
      expect(await page.evaluate(() => Notification.permission)).toBe("granted")
      await page.close()
    })
  }, 60_000)

  it("highlights posts that mention ann: @ann, @channel, her mention key and first name, not code", async () => {
    await step("highlight", async () => {
      await ann.goto("/attn/channels/town-square")
      await messages(ann).waitFor()
      // No banner once the permission is granted.
      expect(await ann.getByRole("region", { name: "Desktop notifications" }).count()).toBe(0)
      await bobSays("town-square", "hey @ann, look at this")
      await bobSays("town-square", "the deploy is done")
      await bobSays("town-square", "Annabel, lunch?")
      await bobSays("town-square", "annabel in lower case is someone else")
      await bobSays("town-square", "@channel standup in five")
      await bobSays("town-square", "`@ann` inside code is not a mention")
      await bobSays("town-square", "nothing for anyone @annie")
      await article("nothing for anyone").waitFor(WITHIN)
      for (const [text, mark] of [["hey @ann", "@ann"], ["the deploy is done", "deploy"], ["Annabel, lunch?", "Annabel"], ["@channel standup", "@channel"]]) {
        const post = article(text)
        await expect.poll(() => post.getAttribute("class")).toContain("mentioned")
        // Not colour alone: the post says so to a screen reader.
        await post.getByText("Mentions you").waitFor()
        expect(await post.locator(".mention--highlight").allTextContents()).toEqual([mark])
      }
      for (const text of ["annabel in lower case", "inside code", "nothing for anyone"]) {
        expect(await article(text).getAttribute("class")).not.toContain("mentioned")
        expect(await article(text).getByText("Mentions you").count()).toBe(0)
      }
      await shot(ann, "attention-mentions")
      expect(await axeViolations(ann)).toEqual([])
      await ann.setViewportSize({ width: 390, height: 780 })
      await shot(ann, "attention-mentions-narrow")
      expect(await axeViolations(ann)).toEqual([])
      await ann.setViewportSize({ width: 1280, height: 800 })

      // Ignoring channel mentions in this channel (saved on another device): @channel is no longer ann's, live.
      await apis.ann.updateChannelNotifyProps({ channel_id: channelIds["town-square"], user_id: ids.ann, ignore_channel_mentions: "on" } as never)
      await expect.poll(() => article("@channel standup").getAttribute("class"), WITHIN).not.toContain("mentioned")
      expect(await article("hey @ann").getAttribute("class")).toContain("mentioned")
      await apis.ann.updateChannelNotifyProps({ channel_id: channelIds["town-square"], user_id: ids.ann, ignore_channel_mentions: "default" } as never)
      await expect.poll(() => article("@channel standup").getAttribute("class"), WITHIN).toContain("mentioned")
    })
  }, 60_000)

  it("marks mentions and unread messages in the tab title and favicon, live", async () => {
    await step("title", async () => {
      await ann.goto("/attn/channels/town-square")
      await messages(ann).waitFor()
      await expect.poll(() => ann.title(), WITHIN).toBe("Town Square - Attention")
      expect(await ann.evaluate(() => document.querySelector<HTMLLinkElement>('link[rel="icon"]')!.getAttribute("href"))).toBe("/favicon.svg")

      await bobSays("other", "just chatting")
      await expect.poll(() => ann.title(), WITHIN).toBe("* Town Square - Attention")
      await expect.poll(async () => { const p = await badgePixel(); return p.b > 60 && p.r < 80 }, WITHIN).toBe(true)

      await bobSays("other", "@ann one for you")
      await bobSays("quiet", "@ann and another")
      await expect.poll(() => ann.title(), WITHIN).toBe("(2) Town Square - Attention")
      await expect.poll(async () => { const p = await badgePixel(); return p.r > 180 && p.g < 110 && p.b < 110 }, WITHIN).toBe(true)

      // Reading the channels clears the marks.
      await sidebar(ann).getByRole("link", { name: /^Other/ }).click()
      await expect.poll(() => ann.title(), WITHIN).toBe("(1) Other - Attention")
      await sidebar(ann).getByRole("link", { name: /^Quiet/ }).click()
      await expect.poll(() => ann.title(), WITHIN).toBe("Quiet - Attention")
      await expect.poll(() => ann.evaluate(() => document.querySelector<HTMLLinkElement>('link[rel="icon"]')!.getAttribute("href")), WITHIN).toBe("/favicon.svg")
    })
  }, 60_000)

  it("raises desktop notifications by Mattermost's rules, with the sound, and a click opens the post", async () => {
    await step("notifications", async () => {
      await ann.goto("/attn/channels/town-square")
      await messages(ann).waitFor()
      expect(await ann.evaluate(() => document.hasFocus())).toBe(true)
      const tonesBefore = (await ann.evaluate(() => (window as any).__tones as Array<number>)).length

      // desktop "mention": an unmentioned post elsewhere raises nothing; a mention and a DM do.
      await bobSays("other", "unmentioned chatter")
      await bobSays("other", "@ann can you review?")
      await waitNote({ title: "bob in Other", body: "@ann can you review?" })
      await apis.bob.createPost({ channel_id: channelIds.dm, message: "a direct word" } as never)
      await waitNote({ title: "bob", body: "a direct word" })
      expect(await bodies()).not.toContain("unmentioned chatter")
      const recorded = await notes()
      expect(recorded.every((n) => n.silent)).toBe(true)
      // The sound is ann's choice (Ripple starts at 1046.5 Hz), played by the page.
      await expect.poll(() => ann.evaluate(() => (window as any).__tones as Array<number>)).toContain(1046.5)
      expect((await ann.evaluate(() => (window as any).__tones as Array<number>)).length).toBeGreaterThan(tonesBefore)

      // The channel on screen with the window focused: no notification, even for a mention.
      await bobSays("town-square", "@ann while you watch")
      await article("while you watch").waitFor(WITHIN)
      await bobSays("other", "@ann sentinel one")
      await waitNote({ title: "bob in Other", body: "@ann sentinel one" })
      expect(await bodies()).not.toContain("@ann while you watch")

      // Muted channel: nothing, even for a mention.
      await apis.ann.updateChannelNotifyProps({ channel_id: channelIds.quiet, user_id: ids.ann, mark_unread: "mention" } as never)
      // Muted channels are dimmed in the sidebar, as in Mattermost.
      await expect.poll(() => sidebar(ann).getByRole("link", { name: /^Quiet/ }).getAttribute("class"), WITHIN).toContain("muted")
      await bobSays("quiet", "@ann muted mention")
      await bobSays("other", "@ann sentinel two")
      await waitNote({ title: "bob in Other", body: "@ann sentinel two" })
      expect(await bodies()).not.toContain("@ann muted mention")

      // The channel's own level wins: "all" in Loud notifies without a mention; "none" in Other stops mentions.
      await apis.ann.updateChannelNotifyProps({ channel_id: channelIds.loud, user_id: ids.ann, desktop: "all" } as never)
      await apis.ann.updateChannelNotifyProps({ channel_id: channelIds.other, user_id: ids.ann, desktop: "none" } as never)
      await bobSays("other", "@ann silenced here")
      await bobSays("loud", "anything at all")
      await waitNote({ title: "bob in Loud", body: "anything at all" })
      expect(await bodies()).not.toContain("@ann silenced here")

      // Do Not Disturb holds everything back; one's own posts never notify.
      await apis.ann.updateStatus({ user_id: ids.ann, status: "dnd" } as never)
      await ann.getByRole("button", { name: /Account menu, ann, dnd/ }).waitFor(WITHIN)
      await apis.bob.createPost({ channel_id: channelIds.dm, message: "are you busy?" } as never)
      await apis.ann.createPost({ channel_id: channelIds.loud, message: "my own words" } as never)
      await apis.ann.updateStatus({ user_id: ids.ann, status: "online" } as never)
      await ann.getByRole("button", { name: /Account menu, ann, online/ }).waitFor(WITHIN)
      await bobSays("loud", "sentinel three")
      await waitNote({ title: "bob in Loud", body: "sentinel three" })
      expect(await bodies()).not.toContain("are you busy?")
      expect(await bodies()).not.toContain("my own words")

      // A click on the mention's notification opens its channel with the post on screen.
      await ann.evaluate(() => {
        const all = (window as any).__noteObjects as Array<Notification>
        const note = all.find((n) => n.body === "@ann can you review?")!
        note.onclick!(new Event("click"))
      })
      await ann.waitForURL(/\/attn\/channels\/other$/, WITHIN)
      await expect.poll(() => article("@ann can you review?").isVisible(), WITHIN).toBe(true)
    })
  }, 90_000)

  it("saves the channel's notification preferences from the channel menu", async () => {
    await step("channel-preferences", async () => {
      await ann.goto("/attn/channels/loud")
      await messages(ann).waitFor()
      const menu = await channelMenu(ann, "Loud")
      await menu.getByRole("menuitem", { name: "Notification preferences" }).click()
      const prefs = ann.getByRole("dialog", { name: "Notification preferences for Loud" })
      await prefs.getByRole("group", { name: "Mute or ignore" }).getByRole("checkbox", { name: /Ignore mentions for @channel/ }).check()
      await prefs.getByRole("group", { name: "Desktop notifications" }).getByRole("radio", { name: "Only for mentions", exact: true }).check()
      await prefs.getByRole("group", { name: "Desktop notifications" }).getByRole("checkbox", { name: /Notify me about replies/ }).uncheck()
      await prefs.getByRole("combobox", { name: "Notification sound" }).selectOption("Hello")
      await prefs.getByRole("group", { name: "Mobile push notifications" }).getByRole("radio", { name: "Never" }).check()
      await prefs.getByRole("checkbox", { name: "Follow all new threads in this channel" }).check()
      await shot(ann, "attention-channel-preferences")
      expect(await axeViolations(ann)).toEqual([])
      await ann.setViewportSize({ width: 390, height: 780 })
      await shot(ann, "attention-channel-preferences-narrow")
      expect(await axeViolations(ann)).toEqual([])
      await ann.setViewportSize({ width: 1280, height: 800 })
      await prefs.getByRole("button", { name: "Save" }).click()
      await expect.poll(() => prefs.count()).toBe(0)
      const props = (await apis.ann.getChannelMember(channelIds.loud, ids.ann)).notify_props as Record<string, string>
      expect(props).toMatchObject({
        ignore_channel_mentions: "on", desktop: "mention", desktop_threads: "mention", desktop_sound: "on",
        desktop_notification_sound: "Hello", push: "none", channel_auto_follow_threads: "on", mark_unread: "all"
      })
      // And the dialog opens again with what was saved.
      await (await channelMenu(ann, "Loud")).getByRole("menuitem", { name: "Notification preferences" }).click()
      expect(await prefs.getByRole("checkbox", { name: /Ignore mentions for @channel/ }).isChecked()).toBe(true)
      expect(await prefs.getByRole("combobox", { name: "Notification sound" }).inputValue()).toBe("Hello")
      await prefs.getByRole("button", { name: "Cancel" }).click()
    })
  }, 60_000)

  it("marks the Threads entry for unread replies and mentions in followed threads, live", async () => {
    await step("threads", async () => {
      await ann.goto("/attn/channels/town-square")
      await messages(ann).waitFor()
      const threads = sidebar(ann).getByRole("link", { name: /^Threads/ })
      await expect.poll(() => threads.getAttribute("aria-label"), WITHIN).toBe("Threads")
      const root = await apis.ann.createPost({ channel_id: channelIds["town-square"], message: "a question for the thread" } as never)
      await bobSays("town-square", "an answer", root.id)
      await expect.poll(() => threads.getAttribute("aria-label"), WITHIN).toBe("Threads, unread")
      expect(await threads.getAttribute("class")).toContain("unread")
      await bobSays("town-square", "@ann a pointed answer", root.id)
      await expect.poll(() => threads.getAttribute("aria-label"), WITHIN).toBe("Threads, 1 mention")
      // A mention in a reply notifies even while its channel is on screen (the thread is not open).
      await waitNote({ title: "bob in Town Square", body: "@ann a pointed answer" })
      await shot(ann, "attention-threads")
      expect(await axeViolations(ann)).toEqual([])
      // One's own reply marks the thread read (never unread), here and on the server.
      await apis.ann.createPost({ channel_id: channelIds["town-square"], message: "thanks", root_id: root.id } as never)
      await expect.poll(() => threads.getAttribute("aria-label"), WITHIN).toBe("Threads")
      const totals = await apis.ann.getUserThreads(ids.ann, teamId, { totalsOnly: true } as never)
      expect(totals.total_unread_threads).toBe(0)
      // Another reply of bob's marks it again; reading the thread clears it.
      await bobSays("town-square", "one more", root.id)
      await expect.poll(() => threads.getAttribute("aria-label"), WITHIN).toBe("Threads, unread")
      await threads.click()
      await expect.poll(() => ann.title(), WITHIN).toMatch(/^(\(\d+\) |\* )?Threads - Attention$/)
      await ann.getByRole("list", { name: "Followed threads" }).getByRole("button", { name: /a question for the thread/ }).click()
      await expect.poll(() => threads.getAttribute("aria-label"), WITHIN).toBe("Threads")

      // A click on a reply's notification opens its channel with the thread in the side panel.
      await ann.getByRole("button", { name: "Close thread" }).click()
      await ann.evaluate(() => {
        const note = ((window as any).__noteObjects as Array<Notification>).find((n) => n.body === "@ann a pointed answer")!
        note.onclick!(new Event("click"))
      })
      await ann.waitForURL(/\/attn\/channels\/town-square$/, WITHIN)
      await ann.getByRole("complementary", { name: "Thread" }).getByText("@ann a pointed answer").waitFor(WITHIN)
    })
  }, 60_000)
})

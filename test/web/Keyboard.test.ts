import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client4 } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { axeViolations } from "./support/Axe.ts"
import { haveChromium, launch, withScreenshots } from "./support/Chromium.ts"
import { createPeople, focused, messageBox, messages, PASSWORD, shot, sidebar, signedInContext } from "./support/People.ts"

/**
 * Issue 27, keyboard first: focus in the message box after sign-in, a channel switch, sending, editing and closing a
 * dialog; the skip link; Ctrl+K's switcher (fuzzy, recent first, unread marked); Alt+Up/Down and Alt+Shift+Up/Down;
 * Up to edit and Shift+Up to reply; Escape marking the channel read; "/" listing the server's commands; Ctrl+/ the
 * shortcuts; no keyboard trap and a visible focus ring. ann uses the keyboard; bob posts through the API.
 */
let server: TestServer
let browser: Browser
let closeBrowser: () => Promise<void>
let ann: Page
let apis: Record<string, ReturnType<typeof client4>>
let ids: Record<string, string>
let teamId = ""
const channelIds: Record<string, string> = {}
let context: BrowserContext

beforeAll(async () => {
  server = await startServer()
  ;({ apis, ids } = await createPeople(server.url, ["ann", "bob"]))
  teamId = (await apis.ann.createTeam({ name: "keys", display_name: "Keys", type: "O" } as never)).id
  await apis.ann.addToTeam(teamId, ids.bob)
  for (const name of ["alpha", "beta", "gamma"]) {
    const c = await apis.ann.createChannel({ team_id: teamId, name, display_name: name[0].toUpperCase() + name.slice(1), type: "O" } as never)
    channelIds[name] = c.id
    await apis.ann.addToChannel(ids.bob, c.id)
  }
  if (!haveChromium) return
  ;({ browser, close: closeBrowser } = await launch())
  context = await browser.newContext({ baseURL: server.url, viewport: { width: 1280, height: 800 }, bypassCSP: true })
  context.setDefaultTimeout(10_000)
  // The tab can be made to look hidden (posts then stay unread while the channel is open).
  await context.addInitScript(() => {
    Object.defineProperty(document, "hidden", { configurable: true, get: () => (window as any).__hidden === true })
  })
  ann = await context.newPage()
  ann.on("console", (m) => m.type() === "error" && console.log("browser console:", m.text()))
}, 60_000)

afterAll(async () => {
  await closeBrowser?.()
  await server?.close()
})

const step = (name: string, body: () => Promise<void>) => withScreenshots(name, () => (ann ? [ann] : []), body)
const boxFocused = () => messageBox(ann).evaluate((el) => el === document.activeElement)
/** Sequential focus starts again from the top of the page, as after a page load with nothing focused. */
const fromTop = () => ann.evaluate(() => {
  document.body.tabIndex = -1
  document.body.focus()
  document.body.removeAttribute("tabindex")
})
const current = () => sidebar(ann).locator('a[aria-current="page"]').getAttribute("aria-label")

describe.skipIf(!haveChromium)("keyboard and focus", () => {
  it("puts focus in the message box after sign-in, and the first Tab offers the skip link", async () => {
    await step("sign-in-focus", async () => {
      await ann.goto("/login")
      await ann.getByLabel("Email or username").fill("ann")
      await ann.getByLabel("Password").fill(PASSWORD)
      await ann.getByRole("button", { name: "Sign in" }).click()
      await ann.waitForURL(/\/keys\/channels\/town-square$/)
      await expect.poll(boxFocused).toBe(true)
      await ann.reload()
      await messageBox(ann).waitFor()
      await fromTop()
      await ann.keyboard.press("Tab")
      expect((await focused(ann))?.name).toBe("Skip to message box")
      // Visible focus: the focused link is drawn on screen with an outline.
      const ring = await ann.evaluate(() => { const s = getComputedStyle(document.activeElement!); return [s.outlineStyle, s.top] })
      expect(ring[0]).not.toBe("none")
      await shot(ann, "skip-link")
      await ann.keyboard.press("Enter")
      await expect.poll(boxFocused).toBe(true)
    })
  })

  it("has no keyboard trap: Tab goes through the page and comes back round, each stop with a visible focus", async () => {
    await step("tab-cycle", async () => {
      await fromTop()
      const seen: Array<string> = []
      for (let i = 0; i < 80; i++) {
        await ann.keyboard.press("Tab")
        const f = await ann.evaluate(() => {
          const el = document.activeElement as HTMLElement
          const s = getComputedStyle(el)
          return { key: `${el.tagName}:${el.getAttribute("aria-label") ?? el.textContent?.trim().slice(0, 30)}`, visible: s.outlineStyle !== "none" || s.boxShadow !== "none" || el.tagName === "BODY" }
        })
        expect(f.visible, `focus ring on ${f.key}`).toBe(true)
        if (seen.length > 0 && f.key === seen[0]) break
        seen.push(f.key)
      }
      // Round the page and back to the skip link, through the sidebar and the message box.
      expect(seen[0]).toBe("A:Skip to message box")
      expect(seen.some((k) => k.startsWith("TEXTAREA"))).toBe(true)
      expect(seen.some((k) => k.startsWith("A:Alpha"))).toBe(true)
      expect(seen.length).toBeLessThan(80)
    })
  })

  it("switches channels with Ctrl+K (fuzzy, recent first, unread marked), focus in the message box", async () => {
    await step("switcher", async () => {
      await ann.goto("/keys/channels/gamma")
      await messageBox(ann).waitFor()
      await ann.goto("/keys/channels/town-square")
      await messageBox(ann).waitFor()
      await apis.bob.createPost({ channel_id: channelIds.beta, message: "news in beta" } as never)
      await sidebar(ann).getByRole("link", { name: "Beta, unread" }).waitFor()
      await ann.keyboard.press("Control+k")
      const dialog = ann.getByRole("dialog", { name: "Switch channels" })
      const list = dialog.getByRole("listbox", { name: "Channels and people" })
      // Recent first: gamma was opened last before this channel.
      await expect.poll(() => list.getByRole("option").first().getAttribute("aria-label")).toBe("Gamma")
      await list.getByRole("option", { name: "Beta, unread" }).waitFor()
      await shot(ann, "switcher")
      expect(await axeViolations(ann)).toEqual([])
      await ann.keyboard.type("bta")
      await expect.poll(() => list.getByRole("option").first().getAttribute("aria-selected")).toBe("true")
      expect(await list.getByRole("option").first().getAttribute("aria-label")).toBe("Beta, unread")
      await ann.keyboard.press("Enter")
      await ann.waitForURL(/\/keys\/channels\/beta$/)
      await expect.poll(boxFocused).toBe(true)
      // A person: opens the direct message.
      await ann.keyboard.press("Control+k")
      await ann.keyboard.type("bob")
      await list.getByRole("option", { name: /^bob/ }).waitFor()
      await ann.keyboard.press("Enter")
      await ann.waitForURL(/\/keys\/messages\/@bob$/)
      await expect.poll(boxFocused).toBe(true)
    })
  })

  it("moves between channels and unread channels with Alt+Up/Down and Alt+Shift+Up/Down", async () => {
    await step("alt-arrows", async () => {
      await ann.goto("/keys/channels/alpha")
      await expect.poll(boxFocused).toBe(true)
      await ann.keyboard.press("Alt+ArrowDown")
      await ann.waitForURL(/\/keys\/channels\/beta$/)
      await ann.keyboard.press("Alt+ArrowUp")
      await ann.waitForURL(/\/keys\/channels\/alpha$/)
      await expect.poll(boxFocused).toBe(true)
      await apis.bob.createPost({ channel_id: channelIds.gamma, message: "gamma news" } as never)
      await sidebar(ann).getByRole("link", { name: "Gamma, unread" }).waitFor()
      await ann.keyboard.press("Alt+Shift+ArrowDown")
      await ann.waitForURL(/\/keys\/channels\/gamma$/)
      // The sidebar marks the channel a render after the address changes.
      await expect.poll(current).toMatch(/^Gamma/)
    })
  })

  it("edits the last message with Up and replies to it with Shift+Up; focus comes back after each", async () => {
    await step("up-keys", async () => {
      await messageBox(ann).fill("first draft")
      await messageBox(ann).press("Enter")
      await messages(ann).getByText("first draft").waitFor()
      await expect.poll(boxFocused).toBe(true)
      await ann.keyboard.press("ArrowUp")
      const edit = ann.getByRole("textbox", { name: "Edit message" })
      await expect.poll(() => edit.evaluate((el) => el === document.activeElement)).toBe(true)
      await edit.fill("final draft")
      await edit.press("Enter")
      await messages(ann).getByText("final draft").waitFor()
      await expect.poll(boxFocused).toBe(true)
      await ann.keyboard.press("Shift+ArrowUp")
      const reply = ann.getByRole("complementary", { name: "Thread" }).getByRole("textbox", { name: "Reply to thread" })
      await expect.poll(() => reply.evaluate((el) => el === document.activeElement)).toBe(true)
      await ann.keyboard.type("a reply")
      await ann.keyboard.press("Enter")
      await ann.getByRole("complementary", { name: "Thread" }).getByText("a reply").waitFor()
      // Escape in the thread closes it, and the message box has focus again.
      await ann.keyboard.press("Escape")
      await expect.poll(() => ann.getByRole("complementary", { name: "Thread" }).count()).toBe(0)
      await expect.poll(boxFocused).toBe(true)
    })
  })

  it("marks the channel read with Escape", async () => {
    await step("escape-read", async () => {
      await ann.evaluate(() => ((window as any).__hidden = true))
      await apis.bob.createPost({ channel_id: channelIds.gamma, message: "while away" } as never)
      await messages(ann).getByText("while away").waitFor()
      const unreadBefore = async () => {
        const [channel, member] = await Promise.all([apis.ann.getChannel(channelIds.gamma), apis.ann.getChannelMember(channelIds.gamma, ids.ann)])
        return channel.total_msg_count - member.msg_count
      }
      await expect.poll(unreadBefore).toBeGreaterThan(0)
      await ann.evaluate(() => ((window as any).__hidden = false))
      await messageBox(ann).focus()
      await ann.keyboard.press("Escape")
      await expect.poll(unreadBefore).toBe(0)
    })
  })

  it("lists the server's slash commands with their hints when typing /", async () => {
    await step("slash", async () => {
      await messageBox(ann).focus()
      await ann.keyboard.type("/")
      const list = ann.getByRole("listbox", { name: "Suggestions" })
      await list.getByRole("option", { name: /^\/away/ }).waitFor()
      await ann.keyboard.type("ec")
      await list.getByRole("option", { name: /^\/echo .*message/i }).waitFor()
      await shot(ann, "slash-commands")
      expect(await axeViolations(ann)).toEqual([])
      await ann.keyboard.press("Tab")
      expect(await messageBox(ann).inputValue()).toBe("/echo ")
      await messageBox(ann).fill("")
    })
  })

  it("lists the shortcuts with Ctrl+/, and focus returns to the message box when it closes", async () => {
    await step("shortcuts", async () => {
      await ann.keyboard.press("Control+/")
      const dialog = ann.getByRole("dialog", { name: "Keyboard shortcuts" })
      await dialog.getByText("Find a channel or person").waitFor()
      await shot(ann, "shortcuts")
      expect(await axeViolations(ann)).toEqual([])
      await ann.keyboard.press("Escape")
      await expect.poll(() => dialog.count()).toBe(0)
      await expect.poll(boxFocused).toBe(true)
      // A menu: arrows move, Escape closes it and gives focus back to its button.
      const button = ann.getByRole("button", { name: "Gamma channel menu" })
      await button.focus()
      await ann.keyboard.press("Enter")
      const menu = ann.getByRole("menu", { name: "Gamma channel menu" })
      await expect.poll(() => menu.getByRole("menuitem", { name: "View info" }).evaluate((el) => el === document.activeElement)).toBe(true)
      await ann.keyboard.press("ArrowDown")
      await expect.poll(() => menu.getByRole("menuitem", { name: "Members" }).evaluate((el) => el === document.activeElement)).toBe(true)
      await ann.keyboard.press("Escape")
      await expect.poll(() => menu.count()).toBe(0)
      expect(await button.evaluate((el) => el === document.activeElement)).toBe(true)
    })
  })
})

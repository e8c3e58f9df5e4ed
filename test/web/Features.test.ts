import { join } from "node:path"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client4 } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { axeViolations } from "./support/Axe.ts"
import { haveChromium, launch, RESULTS_DIR, withScreenshots } from "./support/Chromium.ts"

/**
 * One signed-in person exercising the message tools (Up-arrow edit, delete, pin, save, autocomplete, drafts), and
 * axe-core on the main views (sign-in, channel, thread, console) at desktop and phone widths: no serious or critical
 * violation. Screenshots of the main views are kept in test-results/ for a person to look at.
 */
const PASSWORD = "correct-horse-battery"
let server: TestServer
let browser: Browser
let closeBrowser: () => Promise<void>
let context: BrowserContext
let page: Page
let carol: ReturnType<typeof client4>
let teamId = ""

beforeAll(async () => {
  server = await startServer()
  const admin = client4(server.url)
  carol = admin
  await admin.createUser({ username: "carol", email: "carol@example.com", password: PASSWORD } as never, "", "")
  await admin.login("carol", PASSWORD)
  const team = await admin.createTeam({ name: "tools", display_name: "Tools", type: "O" } as never)
  teamId = team.id
  const other = client4(server.url)
  const dave = await other.createUser({ username: "dave", email: "dave@example.com", password: PASSWORD } as never, "", "")
  await admin.addToTeam(team.id, dave.id)
  if (!haveChromium) return
  ;({ browser, close: closeBrowser } = await launch())
  // axe is injected as an inline script, which the client's CSP (rightly) forbids: the test browser bypasses CSP.
  context = await browser.newContext({ baseURL: server.url, viewport: { width: 1280, height: 800 }, bypassCSP: true })
  context.setDefaultTimeout(10_000)
  page = await context.newPage()
  page.on("console", (m) => m.type() === "error" && console.log("browser console:", m.text()))
}, 60_000)

afterAll(async () => {
  await closeBrowser?.()
  await server?.close()
})

const step = (name: string, body: () => Promise<void>) => withScreenshots(name, () => (page ? [page] : []), body)

const axe = () => axeViolations(page)

const box = () => page.getByRole("main").getByRole("textbox", { name: "Write to Town Square" })
const messages = () => page.getByRole("log", { name: "Messages" })

describe.skipIf(!haveChromium)("web client tools and accessibility", () => {
  it("passes axe on sign-in, and signs in", async () => {
    await step("sign-in", async () => {
      await page.goto("/login")
      await page.getByRole("heading", { name: "Sign in" }).waitFor()
      await page.screenshot({ path: join(RESULTS_DIR, "sign-in.png") })
      expect(await axe()).toEqual([])
      await page.getByLabel("Email or username").fill("carol@example.com")
      await page.getByLabel("Password").fill(PASSWORD)
      await page.getByRole("button", { name: "Sign in" }).click()
      await page.waitForURL(/\/tools\/channels\/town-square$/)
    })
  })

  it("edits the last message with Up, deletes, pins and saves", async () => {
    await step("tools", async () => {
      await box().fill("first version")
      await box().press("Enter")
      await messages().getByText("first version").waitFor()
      await box().press("ArrowUp")
      const edit = page.getByRole("textbox", { name: "Edit message" })
      await edit.fill("second version")
      await edit.press("Enter")
      await messages().getByText("second version").waitFor()
      await messages().getByText("(edited)").waitFor()

      // Shift+Enter breaks the line instead of sending.
      await box().fill("line one")
      await box().press("Shift+Enter")
      await box().pressSequentially("line two")
      expect(await box().inputValue()).toBe("line one\nline two")
      await box().press("Enter")
      await messages().getByText("line two").waitFor()

      const post = messages().getByRole("article").filter({ hasText: "line two" })
      await post.hover()
      await post.getByRole("button", { name: "More actions" }).click()
      await page.getByRole("menuitem", { name: "Delete" }).click()
      await post.getByRole("alertdialog", { name: "Delete message" }).getByRole("button", { name: "Delete" }).click()
      await messages().getByText("(message deleted)").waitFor()
      expect(await messages().getByText("line two").count()).toBe(0)

      const kept = messages().getByRole("article").filter({ hasText: "second version" })
      await kept.hover()
      await kept.getByRole("button", { name: "More actions" }).click()
      await page.getByRole("menuitem", { name: "Pin to channel" }).click()
      await kept.getByText("Pinned").waitFor()
      await kept.hover()
      await kept.getByRole("button", { name: "More actions" }).click()
      await page.getByRole("menuitem", { name: "Save" }).click()
      await kept.getByText("Saved", { exact: true }).waitFor()
      await page.getByRole("button", { name: "Saved messages" }).click()
      await page.getByRole("complementary", { name: "Saved messages" }).getByText("second version").waitFor()
      await page.getByRole("button", { name: "Pinned messages" }).click()
      await page.getByRole("complementary", { name: "Pinned messages" }).getByText("second version").waitFor()
      await page.getByRole("button", { name: "Close panel" }).click()
    })
  })

  it("autocompletes @people and keeps drafts per channel", async () => {
    await step("composer", async () => {
      await box().pressSequentially("ping @da")
      await page.getByRole("option", { name: /@dave/ }).click()
      expect(await box().inputValue()).toBe("ping @dave ")
      await page.getByRole("navigation", { name: "Channels" }).getByRole("link", { name: "Off-Topic" }).click()
      await page.getByRole("heading", { name: /Off-Topic/ }).waitFor()
      await page.getByRole("navigation", { name: "Channels" }).getByRole("link", { name: "Town Square" }).click()
      await page.getByRole("heading", { name: /Town Square/ }).waitFor()
      expect(await box().inputValue()).toBe("ping @dave ")
      await box().press("Enter")
      await messages().locator(".mention", { hasText: "@dave" }).waitFor()
    })
  })

  it("keeps the suggestions of the newest input when an older lookup answers late", async () => {
    await step("late-suggestions", async () => {
      const lookups = "**/api/v4/teams/*/channels/autocomplete*"
      let release = () => {}
      const held = new Promise<void>((resolve) => (release = resolve))
      await page.route(lookups, async (route) => {
        await held
        await route.continue()
      })
      await box().pressSequentially("see ~of")
      await box().pressSequentially(" :tad")
      await page.getByRole("option", { name: /:tada:/ }).waitFor()
      const answered = page.waitForResponse((r) => r.url().includes("/channels/autocomplete"))
      console.log("RELEASE"); release()
      await (await answered).finished()
      await page.unroute(lookups)
      // Let the page handle the late answer (its JSON, then a render) before looking.
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))))
      await box().press("Tab")
      expect(await box().inputValue()).toBe("see ~of :tada: ")
      await box().fill("")
    })
  })

  it("runs slash commands: a built-in's post and an answer shown to the user alone", async () => {
    await step("slash-commands", async () => {
      await box().fill("/shrug deploys on Friday")
      await box().press("Enter")
      await messages().getByText("deploys on Friday ¯\\_(ツ)_/¯").waitFor()
      await box().fill("/echo")
      await box().press("Enter")
      // /echo without text answers only its caller (an ephemeral message).
      await messages().getByText("A message must be provided with the /echo command.").waitFor()
      // The box empties when the command's answer comes back, which may be after its ephemeral message (sent over the
      // socket) has shown.
      await expect.poll(() => box().inputValue()).toBe("")
    })
  })

  it("sets and clears a custom status", async () => {
    await step("custom-status", async () => {
      await page.getByRole("button", { name: /Account menu/ }).click()
      await page.getByRole("menuitem", { name: "Set a custom status" }).click()
      const dialog = page.getByRole("dialog", { name: "Custom status" })
      await dialog.getByLabel("Status text").fill("In a meeting")
      await dialog.getByRole("button", { name: "Save status" }).click()
      await page.getByRole("button", { name: /Account menu/ }).click()
      await page.getByRole("menuitem", { name: /Custom status: .*In a meeting/ }).click()
      await dialog.getByLabel("Status text").fill("")
      await dialog.getByRole("button", { name: "Save status" }).click()
      await page.getByRole("button", { name: /Account menu/ }).click()
      await page.getByRole("menuitem", { name: "Set a custom status" }).waitFor()
      await page.keyboard.press("Escape")
      await page.getByRole("button", { name: /Account menu/ }).click()
    })
  })

  it("paints a 60-post channel within 100 ms of its data, and scrolls back through older history", async () => {
    await step("history", async () => {
      const channel = await carol.createChannel({ team_id: teamId, name: "history", display_name: "History", type: "O" } as never)
      // Plain lines and markdown mixed, as a real channel has them.
      for (let i = 1; i <= 80; i++) {
        const message = i % 4 === 0 ? `history **message** ${i} with \`code\`, a [link](https://example.com/${i}) and :tada:` : `history message ${i}`
        await carol.createPost({ channel_id: channel.id, message } as never)
      }
      // The best of up to five switches: other processes on a shared 2-core CI machine should not decide the result.
      const paints: Array<number> = []
      for (let i = 0; i < 5 && !paints.some((p) => p < 100); i++) {
        // Switching from another channel, as a person does; the history channel's posts are not cached yet.
        await page.goto("/tools/channels/town-square")
        await messages().getByText("second version").waitFor()
        await page.evaluate(() => performance.clearMeasures())
        await page.getByRole("navigation", { name: "Channels" }).getByRole("link", { name: "History" }).click()
        await messages().getByText("history message 79").waitFor()
        await expect.poll(() => page.evaluate(() => performance.getEntriesByName("channel-paint").length)).toBeGreaterThan(0)
        paints.push(await page.evaluate(() => performance.getEntriesByName("channel-paint")[0].duration))
      }
      expect(Math.min(...paints), `paint times (ms): ${paints.join(", ")}`).toBeLessThan(100)
      expect(await messages().getByText("history message 20", { exact: true }).count()).toBe(0)
      // Scrolling to the top loads the older page.
      await messages().evaluate((el) => (el.scrollTop = 0))
      await messages().getByText("history message 1", { exact: true }).waitFor()
      await messages().getByText("This is the start of the channel.").waitFor()
    })
  })

  it("resyncs after the connection drops: posts made meanwhile appear", async () => {
    await step("resync", async () => {
      // The page's socket goes through a route the test can cut (network emulation leaves open sockets alone).
      const routes: Array<import("playwright-core").WebSocketRoute> = []
      // The reconnection is held until the post has been made, so the post can only arrive by the resync.
      let release = () => {}
      const outage = new Promise<void>((resolve) => (release = resolve))
      await page.routeWebSocket(/\/api\/v4\/websocket/, async (ws) => {
        routes.push(ws)
        if (routes.length > 1) await outage
        ws.connectToServer()
      })
      await page.reload()
      await messages().getByText("history message 79").waitFor()
      await expect.poll(() => routes.length).toBe(1)
      await routes[0].close({ code: 1006 })
      const channel = await carol.getChannelByName(teamId, "history")
      await carol.createPost({ channel_id: channel.id, message: "posted during the outage" } as never)
      await expect.poll(() => routes.length, { timeout: 20_000 }).toBe(2)
      release()
      await messages().getByText("posted during the outage").waitFor({ timeout: 20_000 })
      expect(routes.length).toBe(2)
      await page.unrouteAll()
    })
  }, 40_000)

  it("keeps a message sent while the channel's first page is still loading", async () => {
    // A page of its own, freshly loaded (signed in by the context's cookie): what earlier steps left open on the main
    // page (a reconnecting socket, a cached channel) must not decide this one.
    const fresh = await context.newPage()
    try {
      await withScreenshots("early-send", () => [fresh], async () => {
        const slow = await carol.createChannel({ team_id: teamId, name: "slow", display_name: "Slow", type: "O" } as never)
        await carol.createPost({ channel_id: slow.id, message: "already here" } as never)
        await fresh.goto("/tools/channels/town-square")
        await fresh.getByRole("main").getByRole("textbox", { name: "Write to Town Square" }).waitFor()
        // The channel's first page is read by the server at once but held on its way back until the message has been
        // sent and answered, as on a slow network: the page predates the message, which must still be shown.
        let release = () => {}
        const held = new Promise<void>((resolve) => (release = resolve))
        await fresh.route(new RegExp(`/api/v4/channels/${slow.id}/posts\\?`), async (route) => {
          const response = await route.fetch()
          await held
          await route.fulfill({ response })
        })
        await fresh.getByRole("navigation", { name: "Channels" }).getByRole("link", { name: "Slow" }).click()
        const box = fresh.getByRole("main").getByRole("textbox", { name: "Write to Slow" })
        await box.fill("sent before the page came")
        const answered = fresh.waitForResponse((r) => r.url().endsWith("/api/v4/posts") && r.request().method() === "POST")
        await box.press("Enter")
        expect((await answered).status()).toBe(201)
        release()
        const log = fresh.getByRole("log", { name: "Messages" })
        await log.getByText("already here").waitFor()
        await log.getByText("sent before the page came").waitFor()
      })
    } finally {
      await fresh.close()
    }
  })

  it("shows a 24-hour clock when chosen", async () => {
    await step("clock", async () => {
      await page.getByRole("button", { name: /Account menu/ }).click()
      await page.getByRole("menuitem", { name: "Settings" }).click()
      await page.getByRole("dialog", { name: "Settings" }).getByRole("checkbox", { name: "24-hour clock" }).check()
      await page.getByRole("dialog", { name: "Settings" }).getByRole("button", { name: "Close" }).click()
      await messages().getByRole("article", { name: /at \d\d:\d\d$/ }).first().waitFor()
    })
  })

  it("sends a test notification from Settings: a direct message from system-bot arrives", async () => {
    await step("test-notification", async () => {
      await page.getByRole("button", { name: /Account menu/ }).click()
      await page.getByRole("menuitem", { name: "Settings" }).click()
      const settings = page.getByRole("dialog", { name: "Settings" })
      await settings.getByRole("button", { name: "Send a test notification" }).click()
      await settings.getByRole("status").getByText(/Test notification sent/).waitFor()
      await settings.getByRole("button", { name: "Close" }).click()
      // The system bot's direct message reaches the page over its socket; the sidebar lists the new conversation.
      await page.getByRole("navigation", { name: "Channels" }).getByRole("link", { name: /system-bot/ }).click()
      await messages().getByText(/This is a test notification/).waitFor()
    })
  })

  it("passes axe on the channel, a thread and the console, and at phone width", async () => {
    await step("axe-views", async () => {
      await page.goto("/tools/channels/town-square")
      await messages().getByText("second version").waitFor()
      await page.screenshot({ path: join(RESULTS_DIR, "channel.png") })
      expect(await axe()).toEqual([])
      const post = messages().getByRole("article").filter({ hasText: "second version" })
      await post.hover()
      await post.getByRole("button", { name: "Reply" }).click()
      await page.getByRole("complementary", { name: "Thread" }).waitFor()
      await page.screenshot({ path: join(RESULTS_DIR, "thread.png") })
      expect(await axe()).toEqual([])
      await page.getByRole("button", { name: "Close thread" }).click()

      await page.goto("/admin_console/users")
      await page.getByRole("heading", { name: "Users" }).waitFor()
      await page.getByRole("cell", { name: "dave", exact: true }).waitFor()
      await page.screenshot({ path: join(RESULTS_DIR, "console-users.png") })
      expect(await axe()).toEqual([])
      await page.goto("/admin_console/health")
      await page.getByRole("heading", { name: "Health", exact: true }).waitFor()
      expect(await axe()).toEqual([])

      await page.setViewportSize({ width: 390, height: 780 })
      await page.goto("/tools/channels/town-square")
      await messages().getByText("second version").waitFor()
      await box().waitFor()
      expect(await box().isVisible()).toBe(true)
      await page.screenshot({ path: join(RESULTS_DIR, "channel-narrow.png") })
      expect(await axe()).toEqual([])
    })
  })
})

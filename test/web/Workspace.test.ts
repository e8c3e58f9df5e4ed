import type { Browser, BrowserContext, Page } from "playwright-core"
import sharp from "sharp"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client4 } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { axeViolations } from "./support/Axe.ts"
import { haveChromium, launch, withScreenshots } from "./support/Chromium.ts"

/**
 * The parts of issue 14 the two-person walk-through (Client.e2e.test.ts) and the tools test (Features.test.ts) do not
 * reach: channels (create public and private, browse and join, favourites, group messages), message links (@mention
 * to profile, ~channel), ~ and : autocomplete by keyboard, attaching by drag-and-drop and paste with upload progress,
 * a channel switch from cache, search "Jump" into older history, status, desktop notifications, settings, the
 * console's user, push and SSO actions, team switching and the Threads view (axe on a channel, Threads and push). One server and one browser; erin (the first account, system admin) and
 * frank each have a browser context; gina exists only through the API.
 */
const PASSWORD = "correct-horse-battery"
let server: TestServer
let browser: Browser
let closeBrowser: () => Promise<void>
let erin: Page
let frank: Page
let erinApi: ReturnType<typeof client4>
let frankApi: ReturnType<typeof client4>
let teamId = ""
const contexts: Array<BrowserContext> = []

beforeAll(async () => {
  server = await startServer()
  erinApi = client4(server.url)
  await erinApi.createUser({ username: "erin", email: "erin@example.com", password: PASSWORD } as never, "", "")
  await erinApi.login("erin", PASSWORD)
  const team = await erinApi.createTeam({ name: "works", display_name: "Works", type: "O" } as never)
  teamId = team.id
  for (const name of ["frank", "gina"]) {
    const c = client4(server.url)
    const u = await c.createUser({ username: name, email: `${name}@example.com`, password: PASSWORD } as never, "", "")
    await erinApi.addToTeam(team.id, u.id)
  }
  frankApi = client4(server.url)
  await frankApi.login("frank", PASSWORD)
  if (!haveChromium) return
  ;({ browser, close: closeBrowser } = await launch())
  for (const name of ["erin", "frank"]) {
    // axe is injected as an inline script, which the client's CSP (rightly) forbids: the test browser bypasses CSP.
    const context = await browser.newContext({ baseURL: server.url, viewport: { width: 1280, height: 800 }, bypassCSP: true })
    context.setDefaultTimeout(10_000)
    // Desktop notifications: the browser's Notification is recorded, and the tab can be made to look hidden.
    await context.grantPermissions(["notifications"])
    await context.addInitScript(() => {
      const w = window as any
      w.__notes = []
      w.Notification = class {
        static permission = "granted"
        static requestPermission = async () => "granted"
        constructor(title: string, options?: { body?: string }) {
          w.__notes.push({ title, body: options?.body ?? "" })
        }
      }
      Object.defineProperty(document, "hidden", { configurable: true, get: () => w.__hidden === true })
    })
    const login = await context.request.post("/api/v4/users/login", { data: { login_id: name, password: PASSWORD }, headers: { "X-Requested-With": "XMLHttpRequest" } })
    expect(login.status()).toBe(200)
    contexts.push(context)
  }
  erin = await contexts[0].newPage()
  frank = await contexts[1].newPage()
  for (const p of [erin, frank]) { p.on("pageerror", (e) => console.log("PAGEERROR", e.stack)); p.on("console", (m) => m.type() === "error" && console.log("CONSOLE", m.text())) }
}, 60_000)

afterAll(async () => {
  await closeBrowser?.()
  await server?.close()
})

const step = (name: string, body: () => Promise<void>) => withScreenshots(name, () => [erin, frank].filter(Boolean), body)
const axe = axeViolations
const messages = (page: Page) => page.getByRole("log", { name: "Messages" })
const sidebar = (page: Page) => page.getByRole("navigation", { name: "Channels" })
const box = (page: Page, name: string) => page.getByRole("main").getByRole("textbox", { name: `Write to ${name}` })
const post = async (page: Page, channel: string, text: string) => {
  await box(page, channel).fill(text)
  await box(page, channel).press("Enter")
}

describe.skipIf(!haveChromium)("web client: channels, links, attachments, console actions", () => {
  it("creates public and private channels, browses and joins, keeps favourites, and opens a group message", async () => {
    await step("channels", async () => {
      await erin.goto("/login")
      await erin.waitForURL(/\/works\/channels\/town-square$/)
      await erin.getByRole("button", { name: "Create a channel" }).click()
      let dialog = erin.getByRole("dialog", { name: "Create a channel" })
      await dialog.getByLabel("Name").fill("Design")
      await dialog.getByRole("button", { name: "Create channel" }).click()
      await erin.waitForURL(/\/works\/channels\/design$/)
      await erin.getByRole("button", { name: "Create a channel" }).click()
      dialog = erin.getByRole("dialog", { name: "Create a channel" })
      await dialog.getByLabel("Name").fill("Secret plans")
      await dialog.getByRole("radio", { name: /^Private/ }).check()
      await dialog.getByRole("button", { name: "Create channel" }).click()
      await erin.waitForURL(/\/works\/channels\/secret-plans$/)
      await erin.getByRole("heading", { name: /^Private channel Secret plans/ }).waitFor()

      // Frank sees the public channel in the directory, not the private one, and joins it.
      await frank.goto("/works/channels/town-square")
      await sidebar(frank).getByRole("button", { name: "Browse channels" }).click()
      const browse = frank.getByRole("dialog", { name: "Browse channels" })
      await browse.getByRole("button", { name: "Join Design" }).click()
      await frank.waitForURL(/\/works\/channels\/design$/)
      expect(await browse.getByRole("button", { name: "Join Secret plans" }).count()).toBe(0)
      await sidebar(frank).getByRole("link", { name: "Design" }).waitFor()

      // Favourites: the channel moves to the Favorites category, and back.
      await erin.getByRole("link", { name: "Design" }).click()
      await erin.getByRole("button", { name: "Favourite" }).click()
      await sidebar(erin).getByRole("region", { name: "Favorites" }).getByRole("link", { name: "Design" }).waitFor()
      expect(await erin.getByRole("button", { name: "Favourite" }).getAttribute("aria-pressed")).toBe("true")

      // A group message with frank and gina.
      await erin.getByRole("button", { name: "Write a direct message" }).click()
      const dm = erin.getByRole("dialog", { name: "Direct message" })
      for (const name of ["frank", "gina"]) {
        await dm.getByLabel("Find people").fill(name)
        await dm.getByRole("button", { name: `Add ${name}` }).click()
      }
      await dm.getByRole("button", { name: "Go" }).click()
      await erin.waitForURL(/\/works\/messages\/[^@/]+$/)
      const gmBox = erin.getByRole("main").getByRole("textbox", { name: /^Write to .*frank/ })
      await gmBox.fill("Hello both of you")
      await gmBox.press("Enter")
      const gmLink = sidebar(frank).getByRole("link", { name: /gina/ })
      await gmLink.click()
      await messages(frank).getByText("Hello both of you").waitFor()
    })
  })

  it("renders markdown, opens profiles from @mentions and channels from ~links, and autocompletes by keyboard", async () => {
    await step("links", async () => {
      await erin.goto("/works/channels/design")
      await post(erin, "Design", "See ~town-square, ask @frank :tada: and read [the docs](https://example.com/docs) or `npm ci`")
      // Frank, in the group message, sees the mention counted on the channel.
      await sidebar(frank).getByRole("link", { name: "Design, 1 mention" }).waitFor()
      const message = messages(erin).getByRole("article").filter({ hasText: "read the docs" })
      await message.getByRole("img", { name: "tada" }).waitFor()
      expect(await message.getByRole("link", { name: "the docs" }).getAttribute("target")).toBe("_blank")
      expect(await message.locator("code", { hasText: "npm ci" }).count()).toBe(1)
      expect(await axe(erin)).toEqual([])

      // Reacting with the keyboard alone: focus the post, Tab to its actions, search the picker, Enter.
      await message.focus()
      const react = message.getByRole("button", { name: "Add reaction" })
      for (let i = 0; i < 8 && !(await react.evaluate((el) => el === document.activeElement).catch(() => false)); i++) await erin.keyboard.press("Tab")
      await erin.keyboard.press("Enter")
      // The picker is a lazily loaded chunk: type once its search box has the focus, as a person would once it shows.
      const emojiSearch = erin.getByRole("dialog", { name: "Emoji picker" }).getByRole("searchbox", { name: "Search emoji" })
      await expect.poll(() => emojiSearch.evaluate((el) => el === document.activeElement).catch(() => false)).toBe(true)
      await erin.keyboard.type("rocket")
      await erin.keyboard.press("Enter")
      await message.getByRole("button", { name: "rocket reaction by erin" }).waitFor()
      // Up in the empty message box edits the last message, with the caret ready at its end.
      await box(erin, "Design").press("ArrowUp")
      await erin.keyboard.type(" now")
      await erin.keyboard.press("Enter")
      await message.getByText("npm ci now").waitFor()
      await message.getByText("(edited)").waitFor()

      await message.getByRole("link", { name: "@frank" }).click()
      const profile = erin.getByRole("dialog", { name: "Profile of frank" })
      await profile.getByRole("button", { name: "Message" }).click()
      await erin.waitForURL(/\/works\/messages\/@frank$/)
      await erin.goBack()
      await messages(erin).getByRole("link", { name: "~town-square" }).click()
      await erin.waitForURL(/\/works\/channels\/town-square$/)

      // ~ and : suggestions, chosen with the keyboard.
      await box(erin, "Town Square").pressSequentially("go to ~des")
      await erin.getByRole("option", { name: /~design/ }).waitFor()
      await box(erin, "Town Square").press("Enter")
      await box(erin, "Town Square").pressSequentially(":tad")
      await erin.getByRole("option", { name: /:tada:/ }).waitFor()
      await box(erin, "Town Square").press("Tab")
      expect(await box(erin, "Town Square").inputValue()).toBe("go to ~design :tada: ")
      await box(erin, "Town Square").fill("")
    })
  })

  it("attaches by drag-and-drop and paste with upload progress, and switches channels from cache", async () => {
    await step("attach", async () => {
      // Uploads are held until the progress bar has been seen.
      const held: Array<() => Promise<void>> = []
      await erin.route("**/api/v4/files", (route) => void held.push(() => route.continue()))
      const composer = erin.getByRole("main").locator(".composer")
      await composer.evaluate((el) => {
        const dt = new DataTransfer()
        dt.items.add(new File(["dropped text"], "dropped.txt", { type: "text/plain" }))
        el.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }))
      })
      await box(erin, "Town Square").evaluate((el) => {
        const dt = new DataTransfer()
        dt.items.add(new File(["pasted text"], "pasted.txt", { type: "text/plain" }))
        el.dispatchEvent(new ClipboardEvent("paste", { clipboardData: dt, bubbles: true, cancelable: true }))
      })
      const attachments = erin.getByRole("list", { name: "Attachments" })
      await attachments.getByRole("progressbar", { name: "Uploading dropped.txt" }).waitFor()
      await attachments.getByRole("progressbar", { name: "Uploading pasted.txt" }).waitFor()
      await expect.poll(() => held.length).toBe(2)
      for (const release of held) await release()
      await expect.poll(() => attachments.getByRole("progressbar").evaluateAll((bars) => bars.map((b) => (b as HTMLProgressElement).value))).toEqual([1, 1])
      await erin.unroute("**/api/v4/files")
      await post(erin, "Town Square", "Two files")
      const sent = messages(erin).getByRole("article").filter({ hasText: "Two files" })
      await sent.getByRole("link", { name: /dropped\.txt/ }).waitFor()
      await sent.getByRole("link", { name: /pasted\.txt/ }).waitFor()

      // Back to a channel seen before: its posts show at once, with the network for posts held back.
      await sidebar(erin).getByRole("link", { name: "Design" }).click()
      await messages(erin).getByText("read the docs").waitFor()
      let held2 = 0
      await erin.route("**/api/v4/channels/*/posts*", () => void held2++)
      await sidebar(erin).getByRole("link", { name: "Town Square" }).click()
      await messages(erin).getByText("Two files").waitFor({ timeout: 1_000 })
      // The refresh was asked for and is still held: what shows came from the cache.
      await expect.poll(() => held2).toBeGreaterThan(0)
      await erin.unroute("**/api/v4/channels/*/posts*")
    })
  })

  it("jumps from a search result into older history, sets a status, and notifies of a DM while the tab is hidden", async () => {
    await step("jump", async () => {
      const archive = await erinApi.createChannel({ team_id: teamId, name: "archive", display_name: "Archive", type: "O" } as never)
      await erinApi.createPost({ channel_id: archive.id, message: "the needle in the haystack" } as never)
      for (let i = 1; i <= 70; i++) await erinApi.createPost({ channel_id: archive.id, message: `hay ${i}` } as never)
      await erin.goto("/works/channels/town-square")
      const search = erin.getByRole("searchbox", { name: "Search messages" })
      await search.fill("needle")
      await search.press("Enter")
      const results = erin.getByRole("complementary", { name: /Search results/ })
      await results.getByText("the needle in the haystack").waitFor({ timeout: 20_000 })
      await results.getByRole("button", { name: "Jump" }).click()
      await erin.waitForURL(/\/works\/channels\/archive$/)
      const needle = messages(erin).getByRole("article").filter({ hasText: "the needle in the haystack" })
      await needle.waitFor()
      await expect.poll(() => needle.evaluate((el) => el === document.activeElement)).toBe(true)
      await expect.poll(() => needle.isVisible()).toBe(true)
      // Date separator and grouping: one author's run of posts shows the name once.
      await messages(erin).getByRole("separator", { name: "Today" }).first().waitFor()
      expect(await needle.getByRole("button", { name: "erin" }).count()).toBe(1)
      expect(await messages(erin).getByRole("article").filter({ hasText: "hay 70" }).getByRole("button", { name: "erin" }).count()).toBe(0)
    })

    await step("status", async () => {
      await erin.getByRole("button", { name: /Account menu/ }).click()
      await erin.getByRole("menuitemradio", { name: "Do not disturb" }).click()
      await erin.getByRole("button", { name: "Account menu, erin, dnd" }).waitFor()
      await expect.poll(async () => (await frankApi.getStatus((await erinApi.getMe()).id)).status).toBe("dnd")
      await erin.getByRole("button", { name: /Account menu/ }).click()
      await erin.getByRole("menuitemradio", { name: "Online" }).click()
      await erin.getByRole("button", { name: "Account menu, erin, online" }).waitFor()
    })

    await step("notification", async () => {
      await erin.evaluate(() => ((window as any).__hidden = true))
      const me = await erinApi.getMe()
      const frankMe = await frankApi.getMe()
      const dm = await frankApi.createDirectChannel([frankMe.id, me.id])
      await frankApi.createPost({ channel_id: dm.id, message: "Are you there?" } as never)
      await expect.poll(() => erin.evaluate(() => (window as any).__notes)).toContainEqual({ title: "frank", body: "Are you there?" })
      await erin.evaluate(() => ((window as any).__hidden = false))
    })
  })

  it("saves profile names and a new password in Settings", async () => {
    await step("settings", async () => {
      await erin.getByRole("button", { name: /Account menu/ }).click()
      await erin.getByRole("menuitem", { name: "Settings" }).click()
      const settings = erin.getByRole("dialog", { name: "Settings" })
      await settings.getByLabel("First name").fill("Erin")
      await settings.getByLabel("Nickname", { exact: true }).fill("E")
      await settings.getByRole("combobox", { name: "Mobile push notifications for" }).selectOption("all")
      await expect.poll(async () => ((await erinApi.getMe()).notify_props as { push?: string }).push).toBe("all")
      await settings.getByRole("button", { name: "Save profile" }).click()
      await settings.getByRole("status").getByText("Profile saved").waitFor()
      expect((await erinApi.getMe()).first_name).toBe("Erin")
      const png = await sharp({ create: { width: 32, height: 32, channels: 3, background: "#cc3366" } }).png().toBuffer()
      await settings.getByLabel("Profile picture").setInputFiles({ name: "me.png", mimeType: "image/png", buffer: png })
      await settings.getByRole("status").getByText("Picture updated").waitFor()
      expect((await erinApi.getMe()).last_picture_update).toBeGreaterThan(0)

      // Collapsed reply threads off: replies show in the channel too.
      const root = await erinApi.createPost({ channel_id: (await erinApi.getChannelByName(teamId, "archive")).id, message: "root for replies" } as never)
      await erinApi.createPost({ channel_id: root.channel_id, root_id: root.id, message: "an inline reply" } as never)
      await settings.getByRole("checkbox", { name: /Collapsed reply threads/ }).uncheck()
      await messages(erin).getByText("an inline reply").waitFor()
      await settings.getByRole("checkbox", { name: /Collapsed reply threads/ }).check()
      await expect.poll(() => messages(erin).getByText("an inline reply").count()).toBe(0)

      await settings.getByRole("button", { name: "Close" }).click()

      // The password is in Security (loaded on demand).
      await erin.getByRole("button", { name: /Account menu/ }).click()
      await erin.getByRole("menuitem", { name: "Security" }).click()
      const security = erin.getByRole("dialog", { name: "Security" })
      await security.getByLabel("Current password").fill(PASSWORD)
      await security.getByLabel("New password").fill(`${PASSWORD}-2`)
      await security.getByRole("button", { name: "Change password" }).click()
      await security.getByRole("status").getByText(/Password changed/).waitFor()
      await client4(server.url).login("erin", `${PASSWORD}-2`)
      await security.getByRole("button", { name: "Close" }).click()

      // The theme follows the system's light or dark setting.
      const background = () => erin.evaluate(() => getComputedStyle(document.body).backgroundColor)
      await erin.emulateMedia({ colorScheme: "light" })
      const light = await background()
      await erin.emulateMedia({ colorScheme: "dark" })
      expect(await background()).not.toBe(light)
      await erin.emulateMedia({ colorScheme: "light" })
    })
  })

  it("administers users, push and SSO providers from the console", async () => {
    await step("console-users", async () => {
      await erin.goto("/admin_console/users")
      await erin.waitForURL(/\/admin_console\/user_management\/users$/)
      await erin.getByLabel("Search users").fill("frank")
      const row = erin.getByRole("row").filter({ hasText: "frank@example.com" })
      // Deactivation asks first; reactivation does not.
      await row.getByRole("button", { name: "Deactivate frank" }).click()
      await erin.getByRole("alertdialog", { name: "Deactivate frank" }).getByRole("button", { name: "Deactivate" }).click()
      await row.getByRole("cell", { name: "Deactivated" }).waitFor()
      await row.getByRole("button", { name: "Reactivate frank" }).click()
      await row.getByRole("cell", { name: "Active", exact: true }).waitFor()
      // Deactivation ended frank's sessions.
      await frankApi.login("frank", PASSWORD)
      await row.getByRole("link", { name: "frank" }).click()
      await erin.getByRole("heading", { name: "frank", exact: true }).waitFor()
      await erin.getByRole("button", { name: "Make system admin" }).click()
      await erin.getByRole("status").getByText("frank is now a system admin").waitFor()
      expect((await frankApi.getMe()).roles).toContain("system_admin")
      await erin.getByRole("button", { name: "Remove system admin role" }).click()
      await erin.getByRole("alertdialog", { name: "Remove the system admin role of frank" }).getByRole("button", { name: "Remove system admin" }).click()
      await erin.getByRole("status").getByText("frank is no longer a system admin").waitFor()
      await erin.getByRole("button", { name: "Revoke all sessions" }).click()
      await erin.getByRole("alertdialog", { name: "Revoke all sessions of frank" }).getByRole("button", { name: "Revoke sessions" }).click()
      await erin.getByRole("status").getByText("Sessions of frank revoked").waitFor()
      // Every session is gone: frank's browser and his API client are signed out.
      expect((await frank.request.get("/api/v4/users/me", { headers: { "X-Requested-With": "XMLHttpRequest" } })).status()).toBe(401)
      await expect(frankApi.getMe()).rejects.toMatchObject({ status_code: 401 })
    })

    await step("console-push", async () => {
      await erin.getByRole("navigation", { name: "System console" }).getByRole("link", { name: "Push notifications" }).click()
      await erin.getByLabel(/Push proxy URL/).fill("https://push.example.com")
      await erin.getByLabel("Firebase access token").fill("token-value")
      await erin.getByRole("button", { name: "Save push configuration" }).click()
      await erin.getByRole("status").getByText("Push configuration saved").waitFor()
      await erin.getByLabel("Firebase access token").and(erin.getByPlaceholder("Set (leave empty to keep)")).waitFor()
      expect(await erin.getByLabel(/Push proxy URL/).inputValue()).toBe("https://push.example.com")
      await erin.getByText("Sending through: proxy").waitFor()
      expect(await axe(erin)).toEqual([])
    })

    await step("console-teams-health", async () => {
      await erin.getByRole("navigation", { name: "System console" }).getByRole("link", { name: "Teams", exact: true }).click()
      await erin.getByRole("row").filter({ hasText: "Works" }).getByRole("link", { name: "Works" }).click()
      await erin.getByText(/\/signup_user_complete\/\?id=\w+/).waitFor()
      await erin.getByRole("navigation", { name: "System console" }).getByRole("link", { name: "Health", exact: true }).click()
      await erin.getByRole("region", { name: "Dependencies" }).getByRole("row").filter({ hasText: "Database" }).getByText("Working").waitFor()
    })

    await step("console-sso", async () => {
      await erin.getByRole("navigation", { name: "System console" }).getByRole("link", { name: "Single sign-on" }).click()
      await erin.getByLabel("Display name").fill("Staff IdP")
      await erin.getByLabel("Key").fill("staff")
      await erin.getByLabel("Issuer URL").fill("https://idp.example.com")
      await erin.getByLabel("Client ID").fill("client")
      await erin.getByLabel("Client secret").fill("secret")
      await erin.getByRole("button", { name: "Add provider" }).click()
      const row = erin.getByRole("row").filter({ hasText: "Staff IdP" })
      await row.getByRole("cell", { name: "Yes", exact: true }).waitFor()
      await erin.getByRole("status").getByText(/switched off globally/).waitFor()
      await row.getByRole("button", { name: "Deactivate Staff IdP" }).click()
      await row.getByRole("cell", { name: "No", exact: true }).waitFor()
      await row.getByRole("button", { name: "Activate Staff IdP" }).click()
      await row.getByRole("cell", { name: "Yes", exact: true }).waitFor()
      await row.getByRole("button", { name: "Delete Staff IdP" }).click()
      await row.getByRole("alertdialog", { name: "Delete Staff IdP" }).getByRole("button", { name: "Delete provider" }).click()
      await expect.poll(() => erin.getByRole("row").filter({ hasText: "Staff IdP" }).count()).toBe(0)
    })
  })

  it("creates a second team and switches between teams", async () => {
    await step("teams", async () => {
      await erin.goto("/works/channels/town-square")
      // The account menu closes with Escape, focus back on its button.
      const account = erin.getByRole("button", { name: /Account menu/ })
      await account.click()
      await erin.getByRole("menuitem", { name: "Settings" }).waitFor()
      await erin.keyboard.press("Escape")
      await expect.poll(() => erin.getByRole("menuitem", { name: "Settings" }).count()).toBe(0)
      await expect.poll(() => account.evaluate((el) => el === document.activeElement)).toBe(true)

      const switcher = erin.getByRole("navigation", { name: "Teams" })
      await switcher.getByRole("button", { name: "Join or create a team" }).click()
      await erin.getByRole("dialog", { name: "Join another team" }).getByRole("link", { name: "Create a team" }).click()
      await erin.getByLabel("Team name").fill("Second Shift")
      await erin.getByRole("button", { name: "Create team" }).click()
      await erin.waitForURL(/\/second-shift\/channels\/town-square$/)
      await sidebar(erin).getByRole("link", { name: "Town Square" }).waitFor()
      expect(await sidebar(erin).getByRole("link", { name: "Design" }).count()).toBe(0)
      await switcher.getByRole("link", { name: /^Works/ }).click()
      await erin.waitForURL(/\/works\/channels\/town-square$/)
      await sidebar(erin).getByRole("link", { name: "Design" }).waitFor()

      // The Threads view lists the threads erin follows (she replied in one), and passes axe.
      await sidebar(erin).getByRole("link", { name: "Threads" }).click()
      await erin.getByRole("list", { name: "Followed threads" }).getByRole("button", { name: /^erin root for replies/ }).waitFor()
      expect(await axe(erin)).toEqual([])
    })
  })

  it("offers no 'forgot password' link while the server cannot send email", async () => {
    await step("forgot", async () => {
      const page = await browser.newPage({ baseURL: server.url })
      await page.goto("/login")
      await page.getByRole("heading", { name: "Sign in" }).waitFor()
      expect(await page.getByRole("link", { name: "Forgot your password?" }).count()).toBe(0)
      await page.close()
    })
  })
})

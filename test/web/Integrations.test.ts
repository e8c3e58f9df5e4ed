import type { Page } from "playwright-core"
import sharp from "sharp"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { haveChromium } from "./support/Chromium.ts"
import { checkConsolePage } from "./support/Console.ts"
import { startWebTeam, type WebTeam } from "./support/WebTeam.ts"

/**
 * Issue 29, the team's integrations pages (/{team}/integrations/...), in the browser. ann (system admin) reaches them
 * from the team menu: an incoming webhook added (title, description, channel, locked), its URL copied and posting,
 * edited, deleted after a confirmation; a slash command (trigger, URL, method, autocomplete) with its token shown and
 * regenerated, edited, deleted; an outgoing webhook (triggers, callbacks, content type) likewise; a bot account
 * added with an icon and the System Admin role, a token made for it (shown once, signing in as the bot), disabled and enabled. Every change is read back
 * through the API. cyd, a team admin, gets the team's webhooks and commands but not the bots; bob, a member, has no
 * Integrations entry and is told he lacks access at the address (his API call is refused).
 */
let web: WebTeam
let ann: Page
let bob: Page
let planning = ""
let townSquare = ""

beforeAll(async () => {
  web = await startWebTeam({ people: ["ann", "bob", "cyd"], browsers: ["ann", "bob", "cyd"] })
  await web.apis.ann.updateTeamMemberSchemeRoles(web.teamId, web.ids.cyd, true, true)
  planning = (await web.apis.ann.createChannel({ team_id: web.teamId, name: "planning", display_name: "Planning", type: "O" } as never)).id
  townSquare = (await web.apis.ann.getChannelByName(web.teamId, "town-square")).id
  if (!haveChromium) return
  ann = web.pages.ann
  bob = web.pages.bob
  await web.contexts.ann.grantPermissions(["clipboard-read", "clipboard-write"])
}, 60_000)

afterAll(async () => {
  await web?.close()
})

const teamMenu = async (page: Page) => {
  await page.getByRole("button", { name: "Crew team menu" }).click()
  return page.getByRole("menu", { name: "Crew team menu" })
}
const status = (text: string | RegExp) => ann.getByRole("status").getByText(text).first().waitFor()
/** A 256 px square of one colour (the size the server stores pictures at), so what the server serves can be compared pixel for pixel. */
const icon = await sharp({ create: { width: 256, height: 256, channels: 3, background: { r: 0x20, g: 0x90, b: 0xd0 } } }).png().toBuffer()
const hooksOf = () => web.apis.ann.getIncomingWebhooks(web.teamId) as Promise<Array<any>>

describe.skipIf(!haveChromium)("Integrations pages", () => {
  it("offers a member without the permissions nothing, and says so at the address", async () => {
    await web.step("member", async () => {
      await bob.goto("/crew/channels/town-square")
      const menu = await teamMenu(bob)
      await menu.getByRole("menuitem", { name: "View members" }).waitFor()
      expect(await menu.getByRole("menuitem", { name: "Integrations" }).count()).toBe(0)
      await bob.keyboard.press("Escape")
      await bob.goto("/crew/integrations/incoming_webhooks")
      await bob.getByRole("heading", { name: "Not allowed" }).waitFor()
      await bob.getByText("You do not have permission to manage integrations in Crew").waitFor()
      expect(await bob.getByRole("navigation", { name: "Integrations" }).count()).toBe(0)
      const refused = await bob.request.post("/api/v4/hooks/incoming", { data: { channel_id: townSquare }, headers: { "X-Requested-With": "XMLHttpRequest" } })
      expect(refused.status()).toBe(403)
    })
  })

  it("offers a team admin the team's webhooks and commands, not the bots (a system admin's)", async () => {
    await web.step("team admin", async () => {
      const cyd = web.pages.cyd
      await cyd.goto("/crew/channels/town-square")
      await (await teamMenu(cyd)).getByRole("menuitem", { name: "Integrations" }).click()
      await cyd.waitForURL(/\/crew\/integrations\/incoming_webhooks$/)
      const nav = cyd.getByRole("navigation", { name: "Integrations" })
      await nav.getByRole("link", { name: "Incoming webhooks" }).waitFor()
      for (const name of ["Outgoing webhooks", "Slash commands"]) expect(await nav.getByRole("link", { name }).count(), name).toBe(1)
      expect(await nav.getByRole("link", { name: "Bot accounts" }).count()).toBe(0)
      await cyd.goto("/crew/integrations/bots")
      await cyd.waitForURL(/\/crew\/integrations\/incoming_webhooks$/)
    })
  })

  it("incoming webhooks: add, copy the URL that posts, edit, delete", async () => {
    let url = ""
    await web.step("add", async () => {
      await ann.goto("/crew/channels/town-square")
      await (await teamMenu(ann)).getByRole("menuitem", { name: "Integrations" }).click()
      await ann.waitForURL(/\/crew\/integrations\/incoming_webhooks$/)
      await ann.getByRole("heading", { name: "Incoming webhooks" }).waitFor()
      await ann.getByText("No incoming webhooks yet.").waitFor()
      await ann.getByRole("button", { name: "Add incoming webhook" }).click()
      const dialog = ann.getByRole("dialog", { name: "Add incoming webhook" })
      await dialog.getByLabel("Title").fill("Build alerts")
      await dialog.getByLabel("Description").fill("From the CI")
      await dialog.getByRole("combobox", { name: "Channel", exact: true }).selectOption({ label: "Town Square" })
      await dialog.getByLabel("Lock to this channel").check()
      await dialog.getByRole("button", { name: "Add", exact: true }).click()
      const made = ann.getByRole("dialog", { name: "Incoming webhook created" })
      await made.waitFor()
      const hooks = await hooksOf()
      expect(hooks).toHaveLength(1)
      expect(hooks[0]).toMatchObject({ display_name: "Build alerts", description: "From the CI", channel_id: townSquare, channel_locked: true })
      url = `${web.server.url}/hooks/${hooks[0].id}`
      await made.getByText(url).waitFor()
      await made.getByRole("button", { name: "Copy webhook URL" }).click()
      await status("Copied to the clipboard")
      expect(await ann.evaluate(() => navigator.clipboard.readText())).toBe(url)
      await made.getByRole("button", { name: "Done" }).click()
      const row = ann.getByRole("region", { name: "Incoming webhooks" }).getByRole("row").filter({ hasText: "Build alerts" })
      await row.getByText(url).waitFor()
      await row.getByText("Town Square (locked)").waitFor()
      await row.getByRole("button", { name: "Copy URL of Build alerts" }).waitFor()
    })

    await web.step("the URL posts", async () => {
      const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text: "Deploy finished through the hook" }) })
      expect(response.status).toBe(200)
      const posts = await web.apis.ann.getPosts(townSquare)
      expect(Object.values(posts.posts).some((p) => p.message === "Deploy finished through the hook")).toBe(true)
      await bob.goto("/crew/channels/town-square")
      await bob.getByRole("log", { name: "Messages" }).getByText("Deploy finished through the hook").waitFor()
    })

    await web.step("look", async () => {
      await checkConsolePage(ann, "integrations-incoming")
      await ann.getByRole("button", { name: "Add incoming webhook" }).click()
      await checkConsolePage(ann, "integrations-incoming-add")
      await ann.getByRole("dialog", { name: "Add incoming webhook" }).getByRole("button", { name: "Cancel" }).click()
    })

    await web.step("edit", async () => {
      await ann.getByRole("button", { name: "Edit Build alerts" }).click()
      const dialog = ann.getByRole("dialog", { name: "Edit incoming webhook" })
      expect(await dialog.getByLabel("Title").inputValue()).toBe("Build alerts")
      expect(await dialog.getByLabel("Lock to this channel").isChecked()).toBe(true)
      expect(await dialog.getByRole("combobox", { name: "Channel", exact: true }).inputValue()).toBe(townSquare)
      await dialog.getByLabel("Title").fill("Release alerts")
      await dialog.getByRole("combobox", { name: "Channel", exact: true }).selectOption({ label: "Planning" })
      await dialog.getByLabel("Lock to this channel").uncheck()
      await dialog.getByRole("button", { name: "Save" }).click()
      await status("Release alerts saved")
      const [hook] = await hooksOf()
      expect(hook).toMatchObject({ display_name: "Release alerts", channel_id: planning, channel_locked: false })
      await ann.getByRole("region", { name: "Incoming webhooks" }).getByRole("row").filter({ hasText: "Release alerts" }).getByText("Planning").waitFor()
    })

    await web.step("delete", async () => {
      await ann.getByRole("button", { name: "Delete Release alerts" }).click()
      const confirm = ann.getByRole("alertdialog", { name: "Delete Release alerts?" })
      await confirm.getByRole("button", { name: "Cancel" }).click()
      expect(await hooksOf()).toHaveLength(1)
      await ann.getByRole("button", { name: "Delete Release alerts" }).click()
      await confirm.getByRole("button", { name: "Delete", exact: true }).click()
      await status("Release alerts deleted")
      await ann.getByText("No incoming webhooks yet.").waitFor()
      expect(await hooksOf()).toHaveLength(0)
      const gone = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text: "too late" }) })
      expect(gone.status).toBeGreaterThanOrEqual(400)
      expect(gone.status).toBeLessThan(500)
    })
  })

  it("slash commands: add with autocomplete, the token shown and regenerated, edit, delete", async () => {
    const commandsOf = async () => (await web.apis.ann.getCustomTeamCommands(web.teamId)) as Array<any>
    let token = ""
    await web.step("add command", async () => {
      await ann.goto("/crew/integrations/incoming_webhooks")
      await ann.getByRole("navigation", { name: "Integrations" }).getByRole("link", { name: "Slash commands" }).click()
      await ann.waitForURL(/\/crew\/integrations\/commands$/)
      await ann.getByText("No slash commands yet.").waitFor()
      await ann.getByRole("button", { name: "Add slash command" }).click()
      const dialog = ann.getByRole("dialog", { name: "Add slash command" })
      await dialog.getByLabel("Title").fill("Deploy")
      await dialog.getByLabel("Description").fill("Ships a build")
      await dialog.getByLabel("Command trigger word").fill("deploy")
      await dialog.getByLabel("Request URL").fill("https://ci.example.com/deploy")
      await dialog.getByRole("combobox", { name: "Request method" }).selectOption({ label: "GET" })
      await dialog.getByRole("checkbox", { name: "Autocomplete" }).check()
      await dialog.getByLabel("Autocomplete hint").fill("[service]")
      await dialog.getByLabel("Autocomplete description").fill("Deploy a service")
      await dialog.getByRole("button", { name: "Add", exact: true }).click()
      const made = ann.getByRole("dialog", { name: "Slash command created" })
      await made.waitFor()
      const commands = await commandsOf()
      expect(commands).toHaveLength(1)
      expect(commands[0]).toMatchObject({
        trigger: "deploy", url: "https://ci.example.com/deploy", method: "G", display_name: "Deploy", description: "Ships a build",
        auto_complete: true, auto_complete_hint: "[service]", auto_complete_desc: "Deploy a service", team_id: web.teamId
      })
      token = commands[0].token
      expect(token).toMatch(/^[a-z0-9]{26}$/)
      await made.getByText(token).waitFor()
      await made.getByRole("button", { name: "Done" }).click()
      const row = ann.getByRole("region", { name: "Slash commands" }).getByRole("row").filter({ hasText: "/deploy" })
      await row.getByText(token).waitFor()
      await row.getByText("Autocomplete: /deploy [service]").waitFor()
      await checkConsolePage(ann, "integrations-commands")
    })

    await web.step("regenerate token", async () => {
      await ann.getByRole("button", { name: "Regenerate token of Deploy" }).click()
      await ann.getByRole("alertdialog", { name: "Regenerate the token of Deploy?" }).getByRole("button", { name: "Regenerate" }).click()
      await status("Token of Deploy regenerated")
      const [command] = await commandsOf()
      expect(command.token).not.toBe(token)
      await ann.getByRole("region", { name: "Slash commands" }).getByText(command.token).waitFor()
    })

    await web.step("edit command", async () => {
      await ann.getByRole("button", { name: "Edit Deploy" }).click()
      const dialog = ann.getByRole("dialog", { name: "Edit slash command" })
      expect(await dialog.getByLabel("Command trigger word").inputValue()).toBe("deploy")
      expect(await dialog.getByRole("combobox", { name: "Request method" }).inputValue()).toBe("G")
      await dialog.getByLabel("Command trigger word").fill("ship")
      await dialog.getByRole("combobox", { name: "Request method" }).selectOption({ label: "POST" })
      await dialog.getByRole("checkbox", { name: "Autocomplete" }).uncheck()
      await dialog.getByRole("button", { name: "Save" }).click()
      await status("/ship saved")
      const [command] = await commandsOf()
      expect(command).toMatchObject({ trigger: "ship", method: "P", auto_complete: false, url: "https://ci.example.com/deploy" })
    })

    await web.step("delete command", async () => {
      await ann.getByRole("button", { name: "Delete Deploy" }).click()
      await ann.getByRole("alertdialog", { name: "Delete Deploy?" }).getByRole("button", { name: "Delete", exact: true }).click()
      await status("Deploy deleted")
      await ann.getByText("No slash commands yet.").waitFor()
      expect(await commandsOf()).toHaveLength(0)
    })
  })

  it("outgoing webhooks: add with triggers, callbacks and content type, regenerate the token, edit, delete", async () => {
    const hooks = async () => (await web.apis.ann.getOutgoingWebhooks("", web.teamId)) as Array<any>
    let token = ""
    await web.step("add outgoing", async () => {
      await ann.goto("/crew/integrations/outgoing_webhooks")
      await ann.getByText("No outgoing webhooks yet.").waitFor()
      await ann.getByRole("button", { name: "Add outgoing webhook" }).click()
      const dialog = ann.getByRole("dialog", { name: "Add outgoing webhook" })
      await dialog.getByLabel("Title").fill("Weather")
      await dialog.getByRole("combobox", { name: "Content type" }).selectOption({ label: "application/json" })
      await dialog.getByRole("combobox", { name: "Channel" }).selectOption({ label: "Planning" })
      await dialog.getByLabel("Trigger words (one per line)").fill("weather\nforecast")
      await dialog.getByRole("combobox", { name: "Trigger when" }).selectOption({ label: "First word starts with a trigger word" })
      await dialog.getByLabel("Callback URLs (one per line)").fill("https://bot.example.com/weather\nhttps://backup.example.com/weather")
      await dialog.getByRole("button", { name: "Add", exact: true }).click()
      await status("Weather created")
      const [hook] = await hooks()
      expect(hook).toMatchObject({
        display_name: "Weather", content_type: "application/json", channel_id: planning, trigger_words: ["weather", "forecast"], trigger_when: 1,
        callback_urls: ["https://bot.example.com/weather", "https://backup.example.com/weather"], team_id: web.teamId
      })
      token = hook.token
      const row = ann.getByRole("region", { name: "Outgoing webhooks" }).getByRole("row").filter({ hasText: "Weather" })
      await row.getByText(token).waitFor()
      await row.getByText("weather, forecast").waitFor()
      await checkConsolePage(ann, "integrations-outgoing")
    })

    await web.step("regenerate outgoing token", async () => {
      await ann.getByRole("button", { name: "Regenerate token of Weather" }).click()
      await ann.getByRole("alertdialog", { name: "Regenerate the token of Weather?" }).getByRole("button", { name: "Regenerate" }).click()
      await status("Token of Weather regenerated")
      const [hook] = await hooks()
      expect(hook.token).not.toBe(token)
      await ann.getByRole("region", { name: "Outgoing webhooks" }).getByText(hook.token).waitFor()
    })

    await web.step("edit outgoing", async () => {
      await ann.getByRole("button", { name: "Edit Weather" }).click()
      const dialog = ann.getByRole("dialog", { name: "Edit outgoing webhook" })
      expect(await dialog.getByRole("combobox", { name: "Channel" }).inputValue()).toBe(planning)
      await dialog.getByLabel("Trigger words (one per line)").fill("rain")
      await dialog.getByRole("combobox", { name: "Content type" }).selectOption({ label: "application/x-www-form-urlencoded" })
      await dialog.getByRole("button", { name: "Save" }).click()
      await status("Weather saved")
      const [hook] = await hooks()
      expect(hook).toMatchObject({ trigger_words: ["rain"], content_type: "application/x-www-form-urlencoded", channel_id: planning })
    })

    await web.step("delete outgoing", async () => {
      await ann.getByRole("button", { name: "Delete Weather" }).click()
      await ann.getByRole("alertdialog", { name: "Delete Weather?" }).getByRole("button", { name: "Delete", exact: true }).click()
      await status("Weather deleted")
      await ann.getByText("No outgoing webhooks yet.").waitFor()
      expect(await hooks()).toHaveLength(0)
    })
  })

  it("bot accounts: add with an icon and a role, a token created and shown once that works, disable and enable", async () => {
    await web.apis.ann.patchConfig({ ServiceSettings: { EnableBotAccountCreation: true, EnableUserAccessTokens: true } } as never)
    const botsOf = async () => (await web.apis.ann.getBotsIncludeDeleted(0, 200)) as Array<any>
    let botId = ""
    await web.step("add bot", async () => {
      await ann.goto("/crew/integrations/bots")
      await ann.getByText("No bot accounts yet.").waitFor()
      await ann.getByRole("button", { name: "Add bot account" }).click()
      const dialog = ann.getByRole("dialog", { name: "Add bot account" })
      await dialog.getByLabel("Username").fill("reporter")
      await dialog.getByLabel("Display name").fill("Reporter")
      await dialog.getByLabel("Description").fill("Daily reports")
      await dialog.getByLabel("Bot icon (PNG or JPEG)").setInputFiles({ name: "icon.png", mimeType: "image/png", buffer: icon })
      await dialog.getByRole("img", { name: "Bot icon preview" }).waitFor()
      await dialog.getByLabel("Role").selectOption({ label: "System Admin" })
      await checkConsolePage(ann, "integrations-bots-add")
      await dialog.getByRole("button", { name: "Add", exact: true }).click()
      await status("@reporter created")
      const [bot] = await botsOf()
      expect(bot).toMatchObject({ username: "reporter", display_name: "Reporter", description: "Daily reports", delete_at: 0 })
      botId = bot.user_id
      const user = await web.apis.ann.getUser(botId)
      expect(user.roles.split(" ").sort()).toEqual(["system_admin", "system_user"])
      expect(user.last_picture_update).toBeGreaterThan(0)
      const served = await fetch(`${web.server.url}/api/v4/users/${botId}/image`, { headers: { authorization: `Bearer ${web.apis.ann.getToken()}` } })
      expect(served.headers.get("content-type")).toBe("image/png")
      const picture = sharp(Buffer.from(await served.arrayBuffer()))
      expect(await picture.metadata()).toMatchObject({ format: "png", width: 256, height: 256 })
      const { data } = await picture.raw().toBuffer({ resolveWithObject: true })
      expect([...data.subarray(0, 3)]).toEqual([0x20, 0x90, 0xd0])
      // The list shows the uploaded picture, loaded (not a broken image).
      const shown = ann.getByRole("row", { name: /Reporter/ }).locator("img.bot-icon")
      await expect.poll(() => shown.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(256)
      // Only a system admin sets system roles: bob is refused, and the bot keeps its roles.
      await expect(web.apis.bob.updateUserRoles(botId, "system_user")).rejects.toMatchObject({ status_code: 403 })
      expect((await web.apis.ann.getUser(botId)).roles).toContain("system_admin")
      await checkConsolePage(ann, "integrations-bots")
    })

    await web.step("bot token", async () => {
      await ann.getByRole("button", { name: "Create token for Reporter" }).click()
      const dialog = ann.getByRole("dialog", { name: "Create a token for @reporter" })
      await dialog.getByLabel("Token description").fill("CI")
      await dialog.getByRole("button", { name: "Create token" }).click()
      await dialog.getByText("it will not be shown again").waitFor()
      const token = (await dialog.locator("code").textContent()) ?? ""
      expect(token).toMatch(/^[a-z0-9]{26}$/)
      const tokens = (await web.apis.ann.getUserAccessTokensForUser(botId, 0, 100)) as Array<any>
      expect(tokens.map((t) => t.description)).toEqual(["CI"])
      const asBot = await fetch(`${web.server.url}/api/v4/users/me`, { headers: { authorization: `Bearer ${token}` } })
      expect(asBot.status).toBe(200)
      expect((await asBot.json()).username).toBe("reporter")
      await dialog.getByRole("button", { name: "Done" }).click()
    })

    await web.step("disable and enable bot", async () => {
      await ann.getByRole("button", { name: "Disable Reporter" }).click()
      await ann.getByRole("alertdialog", { name: "Disable Reporter?" }).getByRole("button", { name: "Disable", exact: true }).click()
      await status("Reporter disabled")
      expect((await botsOf())[0].delete_at).toBeGreaterThan(0)
      await ann.getByRole("button", { name: "Enable Reporter" }).click()
      await status("Reporter enabled")
      expect((await botsOf())[0].delete_at).toBe(0)
    })
  })
})

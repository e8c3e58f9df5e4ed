import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client4 } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { axeViolations } from "./support/Axe.ts"
import { signedInPages } from "./support/WebTeam.ts"
import { haveChromium, withScreenshots } from "./support/Chromium.ts"
import { channelMenu, createPeople, messageBox, messages, shot, sidebar } from "./support/People.ts"

/**
 * Issue 27, channels: the header and purpose under the name, the channel menu (info, members with roles, edit header,
 * purpose and name, mute and notification preferences, convert to private, archive and unarchive, leave), direct and
 * group messages (add people, close), Browse channels (search, filters, joined marked) and Create channel (URL
 * preview, inline errors). ann (system admin) and bob each have a browser context and see each other's changes;
 * every change is checked through the API; axe on the channel view and each dialog.
 */
let server: TestServer
let closeBrowser: () => Promise<void>
let ann: Page
let bob: Page
let apis: Record<string, ReturnType<typeof client4>>
let ids: Record<string, string>
let teamId = ""
let designId = ""

beforeAll(async () => {
  server = await startServer()
  ;({ apis, ids } = await createPeople(server.url, ["ann", "bob", "cat"]))
  const team = await apis.ann.createTeam({ name: "crew", display_name: "Crew", type: "O" } as never)
  teamId = team.id
  await apis.ann.addToTeam(teamId, ids.bob)
  await apis.ann.addToTeam(teamId, ids.cat)
  const design = await apis.ann.createChannel({ team_id: teamId, name: "design", display_name: "Design", type: "O", purpose: "Pixels and type" } as never)
  designId = design.id
  await apis.ann.addToChannel(ids.bob, designId)
  if (!haveChromium) return
  ;({ close: closeBrowser, pages: [ann, bob] } = await signedInPages(server.url, ["ann", "bob"]))
}, 60_000)

afterAll(async () => {
  await closeBrowser?.()
  await server?.close()
})

const step = (name: string, body: () => Promise<void>) => withScreenshots(name, () => [ann, bob].filter(Boolean), body)
const dialog = (page: Page, name: string | RegExp) => page.getByRole("dialog", { name })
/**
 * bob's page catches up with ann's change by a reload, which shows what the server now says (the live channel events
 * themselves are LiveState.test.ts's).
 */
const seen = async (page: Page) => {
  await page.reload()
  await sidebar(page).waitFor()
}

describe.skipIf(!haveChromium)("channel management", () => {
  it("shows the purpose and header under the channel name, edits both, and the other member sees the change", async () => {
    await step("header", async () => {
      await ann.goto("/crew/channels/design")
      await bob.goto("/crew/channels/design")
      const header = ann.getByRole("main").locator(".channel-header")
      await header.getByText("Pixels and type").waitFor()
      let menu = await channelMenu(ann, "Design")
      await menu.getByRole("menuitem", { name: "Edit header" }).click()
      let edit = dialog(ann, "Edit header of Design")
      await edit.getByLabel("Header").fill("Specs in [the docs](https://example.com/docs), ask @bob")
      await shot(ann, "channel-edit-header")
      expect(await axeViolations(ann)).toEqual([])
      await edit.getByRole("button", { name: "Save" }).click()
      await header.getByRole("link", { name: "the docs" }).waitFor()
      expect(await header.getByRole("link", { name: "the docs" }).getAttribute("href")).toBe("https://example.com/docs")
      // Focus is back in the message box once the dialog closes.
      await expect.poll(() => messageBox(ann).evaluate((el) => el === document.activeElement)).toBe(true)
      expect((await apis.ann.getChannel(designId)).header).toBe("Specs in [the docs](https://example.com/docs), ask @bob")
      await seen(bob)
      await bob.getByRole("main").locator(".channel-header").getByRole("link", { name: "the docs" }).waitFor()

      menu = await channelMenu(ann, "Design")
      await menu.getByRole("menuitem", { name: "Edit purpose" }).click()
      edit = dialog(ann, "Edit purpose of Design")
      await edit.getByLabel("Purpose").fill("Everything visual")
      await edit.getByRole("button", { name: "Save" }).click()
      await header.getByText("Everything visual").waitFor()
      expect((await apis.ann.getChannel(designId)).purpose).toBe("Everything visual")
      await seen(bob)
      await bob.getByRole("main").locator(".channel-header").getByText("Everything visual").waitFor()
      await shot(ann, "channel-view")
      expect(await axeViolations(ann)).toEqual([])
    })
  })

  it("shows the channel's info, renames it with inline errors, and moves the address along", async () => {
    await step("rename", async () => {
      let menu = await channelMenu(ann, "Design")
      await menu.getByRole("menuitem", { name: "View info" }).click()
      const info = dialog(ann, "About Design")
      await info.getByText("Public channel").waitFor()
      await info.getByText(`${server.url}/crew/channels/design`).waitFor()
      await shot(ann, "channel-info")
      expect(await axeViolations(ann)).toEqual([])
      await info.getByRole("button", { name: "Close" }).click()

      menu = await channelMenu(ann, "Design")
      await menu.getByRole("menuitem", { name: "Rename channel" }).click()
      const rename = dialog(ann, "Rename Design")
      await rename.getByLabel("Display name").fill("Design Team")
      await rename.getByLabel("URL").fill("-design team")
      await rename.getByText(/Use only lowercase letters/).waitFor()
      expect(await rename.getByLabel("URL").getAttribute("aria-invalid")).toBe("true")
      await rename.getByLabel("URL").fill("design-team")
      await rename.getByText(`${server.url}/crew/channels/design-team`).waitFor()
      expect(await rename.getByText(/Use only lowercase letters/).count()).toBe(0)
      expect(await axeViolations(ann)).toEqual([])
      await rename.getByRole("button", { name: "Save" }).click()
      await ann.waitForURL(/\/crew\/channels\/design-team$/)
      await expect.poll(() => rename.count()).toBe(0)
      await ann.getByRole("heading", { name: "Design Team channel menu" }).waitFor()
      const after = await apis.ann.getChannel(designId)
      expect([after.display_name, after.name]).toEqual(["Design Team", "design-team"])
      await seen(bob)
      await sidebar(bob).getByRole("link", { name: "Design Team" }).waitFor()
    })
  })

  it("lists members with their roles, searches, adds, makes and unmakes a channel admin, and removes", async () => {
    await step("members", async () => {
      await ann.getByRole("button", { name: /^Members, 2$/ }).click()
      const members = dialog(ann, "Members of Design Team")
      const list = members.getByRole("list", { name: "Members" })
      await list.getByText("@bob").waitFor()
      await members.getByLabel("Search members").fill("bo")
      await expect.poll(() => list.getByRole("listitem").count()).toBe(1)
      await members.getByLabel("Search members").fill("")
      await members.getByLabel("Add people to the channel").fill("ca")
      await members.getByRole("button", { name: "Add cat" }).click()
      await members.getByRole("status").getByText("cat was added to the channel").waitFor()
      await list.getByText("@cat").waitFor()
      expect((await apis.ann.getChannelMember(designId, ids.cat)).channel_id).toBe(designId)

      await members.getByRole("button", { name: "Actions for bob" }).click()
      await ann.getByRole("menu", { name: "Actions for bob" }).getByRole("menuitem", { name: "Make channel admin" }).click()
      await members.getByRole("status").getByText("bob is now a channel admin").waitFor()
      await list.getByRole("listitem").filter({ hasText: "@bob" }).getByText("Channel admin").waitFor()
      expect((await apis.ann.getChannelMember(designId, ids.bob)).roles.split(" ")).toContain("channel_admin")
      await shot(ann, "channel-members")
      expect(await axeViolations(ann)).toEqual([])

      await members.getByRole("button", { name: "Actions for bob" }).click()
      await ann.getByRole("menuitem", { name: "Remove channel admin" }).click()
      await members.getByRole("status").getByText("bob is no longer a channel admin").waitFor()
      expect((await apis.ann.getChannelMember(designId, ids.bob)).roles.split(" ")).not.toContain("channel_admin")

      await members.getByRole("button", { name: "Actions for cat" }).click()
      await ann.getByRole("menuitem", { name: "Remove from channel" }).click()
      await members.getByRole("status").getByText("cat was removed from the channel").waitFor()
      await expect.poll(() => list.getByText("@cat").count()).toBe(0)
      await expect(apis.ann.getChannelMember(designId, ids.cat)).rejects.toMatchObject({ status_code: 404 })
      await ann.keyboard.press("Escape")
      await expect.poll(() => messageBox(ann).evaluate((el) => el === document.activeElement)).toBe(true)
    })
  })

  it("mutes the channel and saves notification preferences on the membership", async () => {
    await step("notify", async () => {
      let menu = await channelMenu(ann, "Design Team")
      await menu.getByRole("menuitem", { name: "Mute channel" }).click()
      await ann.getByRole("main").locator(".channel-header").getByText("Muted").waitFor()
      await expect.poll(async () => (await apis.ann.getChannelMember(designId, ids.ann)).notify_props.mark_unread).toBe("mention")
      await sidebar(ann).getByRole("link", { name: /Design Team/ }).waitFor()

      menu = await channelMenu(ann, "Design Team")
      await menu.getByRole("menuitem", { name: "Notification preferences" }).click()
      const prefs = dialog(ann, "Notification preferences for Design Team")
      expect(await prefs.getByRole("checkbox", { name: /Mute/ }).isChecked()).toBe(true)
      await prefs.getByRole("group", { name: "Desktop notifications" }).getByRole("radio", { name: "Never" }).check()
      await prefs.getByRole("group", { name: "Mobile push notifications" }).getByRole("radio", { name: "For all activity" }).check()
      await prefs.getByRole("checkbox", { name: /Mute/ }).uncheck()
      await shot(ann, "channel-notifications")
      expect(await axeViolations(ann)).toEqual([])
      await prefs.getByRole("button", { name: "Save" }).click()
      await expect.poll(() => prefs.count()).toBe(0)
      const props = (await apis.ann.getChannelMember(designId, ids.ann)).notify_props
      expect([props.desktop, props.push, props.mark_unread]).toEqual(["none", "all", "all"])
      expect(await ann.getByRole("main").locator(".channel-header").getByText("Muted").count()).toBe(0)
    })
  })

  it("converts to private, archives (read-only) and unarchives; bob sees it", async () => {
    await step("convert-archive", async () => {
      let menu = await channelMenu(ann, "Design Team")
      await menu.getByRole("menuitem", { name: "Convert to private channel" }).click()
      const convert = dialog(ann, "Convert Design Team to a private channel?")
      expect(await axeViolations(ann)).toEqual([])
      await convert.getByRole("button", { name: "Convert to private channel" }).click()
      await expect.poll(async () => (await apis.ann.getChannel(designId)).type).toBe("P")
      await ann.getByRole("heading", { name: /Private channel Design Team/ }).waitFor()
      await bob.goto("/crew/channels/design-team")
      await bob.getByRole("heading", { name: /Private channel Design Team/ }).waitFor()

      menu = await channelMenu(ann, "Design Team")
      await menu.getByRole("menuitem", { name: "Archive channel" }).click()
      await dialog(ann, "Archive Design Team?").getByRole("button", { name: "Archive channel" }).click()
      await ann.getByText(/You are viewing an archived channel/).waitFor()
      expect(await ann.locator("#message-box").count()).toBe(0)
      await expect.poll(async () => (await apis.ann.getChannel(designId)).delete_at).toBeGreaterThan(0)
      await expect.poll(() => sidebar(ann).getByRole("link", { name: /Design Team/ }).count()).toBe(0)
      await seen(bob)
      await expect.poll(() => sidebar(bob).getByRole("link", { name: /Design Team/ }).count()).toBe(0)
      await shot(ann, "channel-archived")

      menu = await channelMenu(ann, "Design Team")
      await menu.getByRole("menuitem", { name: "Unarchive channel" }).click()
      await dialog(ann, "Unarchive Design Team?").getByRole("button", { name: "Unarchive channel" }).click()
      await messageBox(ann).waitFor()
      expect((await apis.ann.getChannel(designId)).delete_at).toBe(0)
      await sidebar(ann).getByRole("link", { name: /Design Team/ }).waitFor()
    })
  })

  it("leaves a channel, warns the last member of a private one, and never offers to leave Town Square", async () => {
    await step("leave", async () => {
      await ann.goto("/crew/channels/town-square")
      let menu = await channelMenu(ann, "Town Square")
      await menu.getByRole("menuitem", { name: "View info" }).waitFor()
      expect(await menu.getByRole("menuitem", { name: "Leave channel" }).count()).toBe(0)
      expect(await menu.getByRole("menuitem", { name: "Archive channel" }).count()).toBe(0)
      await ann.keyboard.press("Escape")

      // bob leaves Design Team (private, two members): told he needs to be added again.
      await bob.goto("/crew/channels/design-team")
      menu = await channelMenu(bob, "Design Team")
      await menu.getByRole("menuitem", { name: "Leave channel" }).click()
      const leave = dialog(bob, "Leave Design Team?")
      await leave.getByText(/you will need to be added again/).waitFor()
      await leave.getByRole("button", { name: "Leave channel" }).click()
      await bob.waitForURL(/\/crew\/channels\/town-square$/)
      expect((await apis.ann.getChannelMembers(designId)).map((m) => m.user_id)).toEqual([ids.ann])
      await expect.poll(() => sidebar(bob).getByRole("link", { name: /Design Team/ }).count()).toBe(0)

      // ann is now its last member: warned before leaving.
      await ann.goto("/crew/channels/design-team")
      menu = await channelMenu(ann, "Design Team")
      await menu.getByRole("menuitem", { name: "Leave channel" }).click()
      await dialog(ann, "Leave Design Team?").getByText(/You are the last member of this private channel/).waitFor()
      await shot(ann, "channel-leave-last")
      expect(await axeViolations(ann)).toEqual([])
      await dialog(ann, "Leave Design Team?").getByRole("button", { name: "Cancel" }).click()
    })
  })

  it("adds people to a direct message (a new group message) and closes a conversation", async () => {
    await step("conversations", async () => {
      await ann.goto("/crew/messages/@bob")
      await ann.getByRole("heading", { name: /bob/ }).waitFor()
      await messageBox(ann).fill("hello bob")
      await messageBox(ann).press("Enter")
      await messages(ann).getByText("hello bob").waitFor()
      let menu = await channelMenu(ann, "bob")
      await menu.getByRole("menuitem", { name: "Add people" }).click()
      const add = dialog(ann, "Add people to bob")
      await add.getByLabel("Find people").fill("cat")
      await add.getByRole("button", { name: "Add cat" }).click()
      await add.getByRole("list", { name: "People to add" }).getByText("@cat").waitFor()
      expect(await axeViolations(ann)).toEqual([])
      await add.getByRole("button", { name: "Start group message" }).click()
      await ann.waitForURL(/\/crew\/messages\/[a-z0-9]{40}$/)
      const groupName = new URL(ann.url()).pathname.split("/").pop()!
      const group = await apis.ann.getChannelByName(teamId, groupName).catch(async () => (await apis.ann.getMyChannels(teamId)).find((c) => c.name === groupName)!)
      expect(group.type).toBe("G")
      expect((await apis.ann.getChannelMembers(group.id)).map((m) => m.user_id).sort()).toEqual([ids.ann, ids.bob, ids.cat].sort())

      await ann.goto("/crew/messages/@bob")
      menu = await channelMenu(ann, "bob")
      await menu.getByRole("menuitem", { name: "Close conversation" }).click()
      await ann.waitForURL(/\/crew\/channels\/town-square$/)
      await expect.poll(() => sidebar(ann).getByRole("link", { name: /^bob/ }).count()).toBe(0)
      const prefs = (await apis.ann.getMyPreferences()) as unknown as Array<{ category: string; name: string; value: string }>
      expect(prefs.find((p) => p.category === "direct_channel_show" && p.name === ids.bob)?.value).toBe("false")
      // A new message from bob lists the conversation again.
      const dm = await apis.bob.createDirectChannel([ids.bob, ids.ann])
      await apis.bob.createPost({ channel_id: dm.id, message: "still here" } as never)
      await sidebar(ann).getByRole("link", { name: /^bob/ }).waitFor()
    })
  })

  it("browses channels: search, filters, joined ones marked and opened; archived ones listed", async () => {
    await step("browse", async () => {
      await apis.ann.createChannel({ team_id: teamId, name: "kitchen", display_name: "Kitchen", type: "O", purpose: "Coffee" } as never)
      const old = await apis.ann.createChannel({ team_id: teamId, name: "old-news", display_name: "Old news", type: "O" } as never)
      await apis.ann.addToChannel(ids.bob, old.id)
      await apis.ann.deleteChannel(old.id)
      await bob.goto("/crew/channels/town-square")
      await sidebar(bob).getByRole("button", { name: "Browse channels" }).click()
      const browse = dialog(bob, "Browse channels")
      const list = browse.getByRole("list", { name: "Channels" })
      await list.getByRole("button", { name: "View Town Square" }).waitFor()
      await list.getByRole("listitem").filter({ hasText: "Town Square" }).getByText("Joined").waitFor()
      await browse.getByLabel("Search channels").fill("coff")
      await expect.poll(() => list.getByRole("listitem").count()).toBe(1)
      await shot(bob, "browse-channels")
      expect(await axeViolations(bob)).toEqual([])
      await list.getByRole("button", { name: "Join Kitchen" }).click()
      await bob.waitForURL(/\/crew\/channels\/kitchen$/)
      await sidebar(bob).getByRole("link", { name: "Kitchen" }).waitFor()

      // Joined: opened, not joined again.
      await sidebar(bob).getByRole("button", { name: "Browse channels" }).click()
      await browse.getByLabel("Search channels").fill("kitchen")
      let joins = 0
      bob.on("request", (r) => r.method() === "POST" && r.url().includes("/members") && joins++)
      await list.getByRole("button", { name: "View Kitchen" }).click()
      await expect.poll(() => dialog(bob, "Browse channels").count()).toBe(0)
      expect(joins).toBe(0)

      await sidebar(bob).getByRole("button", { name: "Browse channels" }).click()
      await browse.getByLabel("Show").selectOption("archived")
      await list.getByRole("listitem").filter({ hasText: "Old news" }).getByText("Archived").waitFor()
      await browse.getByLabel("Show").selectOption("private")
      await expect.poll(() => list.getByRole("listitem").count()).toBe(0)
      await browse.getByRole("button", { name: "Close" }).click()
    })
  })

  it("creates a channel with a URL preview and inline errors", async () => {
    await step("create", async () => {
      await sidebar(bob).getByRole("button", { name: "Create a channel" }).click()
      const create = dialog(bob, "Create a channel")
      await create.getByLabel("Name").fill("Kitchen")
      await create.getByText(`${server.url}/crew/channels/kitchen`).waitFor()
      await create.getByRole("button", { name: "Create channel" }).click()
      // The URL is taken: the server's answer is shown at the URL field.
      await create.locator("#create-url-error").getByText(/already exists|taken/i).waitFor()
      expect(await create.getByLabel("URL").getAttribute("aria-invalid")).toBe("true")
      await create.getByLabel("URL").fill("kitchen_")
      await create.getByText(/Use only lowercase letters/).waitFor()
      await create.getByLabel("URL").fill("kitchen-2")
      await create.getByRole("radio", { name: /Private/ }).check()
      await shot(bob, "create-channel")
      expect(await axeViolations(bob)).toEqual([])
      await create.getByRole("button", { name: "Create channel" }).click()
      await bob.waitForURL(/\/crew\/channels\/kitchen-2$/)
      const made = await apis.bob.getChannelByName(teamId, "kitchen-2")
      expect([made.display_name, made.type]).toEqual(["Kitchen", "P"])
      await bob.setViewportSize({ width: 390, height: 780 })
      await shot(bob, "channel-view-phone")
      expect(await axeViolations(bob)).toEqual([])
      await bob.setViewportSize({ width: 1280, height: 800 })
    })
  })
})

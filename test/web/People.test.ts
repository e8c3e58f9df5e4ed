import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client4 } from "../support/Clients.ts"
import type { TestServer } from "../support/TestServer.ts"
import { axeViolations } from "./support/Axe.ts"
import { haveChromium } from "./support/Chromium.ts"
import { messageBox, messages, shot, sidebar } from "./support/People.ts"
import { startWebTeam, type WebTeam } from "./support/WebTeam.ts"

/**
 * Issue 27, people: "Invite people" (the invite link with Copy and Regenerate, adding people who have an account; no
 * email section without SMTP), the team's members with roles (promote, demote, remove), leaving a team, the team
 * switcher's unread badges, joining another team, and a person's profile popover with their local time and Message.
 * ann (system admin, team admin of Crew) and bob have browser contexts; dan exists only through the API.
 */
let t: WebTeam
let server: TestServer
let ann: Page
let bob: Page
let apis: Record<string, ReturnType<typeof client4>>
let ids: Record<string, string>
let teamId = ""
let otherId = ""

beforeAll(async () => {
  // dan is in no team of ann's: the invite dialog adds him.
  t = await startWebTeam({ people: ["ann", "bob", "dan"], browsers: ["ann", "bob"], members: ["bob"] })
  ;({ server, apis, ids, teamId } = t)
  // A second team ann and bob share (the switcher's badges) and an open one only dan is in (joining).
  otherId = (await apis.ann.createTeam({ name: "night", display_name: "Night Shift", type: "O" } as never)).id
  await apis.ann.addToTeam(otherId, ids.bob)
  const open = await apis.dan.createTeam({ name: "open-house", display_name: "Open House", type: "O", allow_open_invite: true } as never)
  await apis.dan.updateTeam({ ...open, allow_open_invite: true } as never).catch(() => undefined)
  await apis.bob.patchMe({ timezone: { useAutomaticTimezone: "false", automaticTimezone: "", manualTimezone: "Asia/Tokyo" } } as never)
  if (!haveChromium) return
  await t.contexts.ann.grantPermissions(["clipboard-read", "clipboard-write"])
  ;({ ann, bob } = t.pages)
}, 60_000)

afterAll(async () => {
  await t?.close()
})

const step = (name: string, body: () => Promise<void>) => t.step(name, body)
const teamMenu = async (page: Page, team: string) => {
  await page.getByRole("button", { name: `${team} team menu` }).click()
  return page.getByRole("menu", { name: `${team} team menu` })
}

describe.skipIf(!haveChromium)("people and teams", () => {
  it("invites people: copies the team link, regenerates it, adds someone who has an account", async () => {
    await step("invite", async () => {
      await ann.goto("/crew/channels/town-square")
      await (await teamMenu(ann, "Crew")).getByRole("menuitem", { name: "Invite people" }).click()
      const invite = ann.getByRole("dialog", { name: "Invite people to Crew" })
      const before = (await apis.ann.getTeam(teamId)).invite_id
      const field = invite.getByRole("textbox", { name: "Invite link" })
      await expect.poll(() => field.inputValue()).toBe(`${server.url}/signup_user_complete/?id=${before}`)
      await invite.getByRole("button", { name: "Copy link" }).click()
      await invite.getByRole("status").getByText("Link copied").waitFor()
      expect(await ann.evaluate(() => navigator.clipboard.readText())).toBe(`${server.url}/signup_user_complete/?id=${before}`)
      // No SMTP on this server: no email invitations offered, and the dialog says why.
      expect(await invite.getByLabel("Email addresses").count()).toBe(0)
      await invite.getByText("Email invitations are off: this server has no email set up. Share the link instead.").waitFor()
      await shot(ann, "invite-people")
      expect(await axeViolations(ann)).toEqual([])

      await invite.getByRole("button", { name: "Regenerate link" }).click()
      await invite.getByRole("status").getByText(/A new link was made/).waitFor()
      const after = (await apis.ann.getTeam(teamId)).invite_id
      expect(after).not.toBe(before)
      await expect.poll(() => field.inputValue()).toBe(`${server.url}/signup_user_complete/?id=${after}`)

      await invite.getByLabel("Find people to add").fill("dan")
      await invite.getByRole("button", { name: "Add dan" }).click()
      await invite.getByRole("status").getByText("dan was added to Crew").waitFor()
      expect((await apis.ann.getTeamMember(teamId, ids.dan)).team_id).toBe(teamId)
      await invite.getByRole("button", { name: "Close" }).click()
      await expect.poll(() => messageBox(ann).evaluate((el) => el === document.activeElement)).toBe(true)
    })
  })

  it("lists the team's members with roles; a team admin promotes, demotes and removes", async () => {
    await step("team-members", async () => {
      await (await teamMenu(ann, "Crew")).getByRole("menuitem", { name: "View members" }).click()
      const dialog = ann.getByRole("dialog", { name: "Members of Crew" })
      const list = dialog.getByRole("list", { name: "Team members" })
      await list.getByRole("listitem").filter({ hasText: "@ann" }).getByText("Team admin").waitFor()
      await list.getByRole("listitem").filter({ hasText: "@bob" }).getByText("Member").waitFor()
      await dialog.getByLabel("Search members").fill("da")
      await expect.poll(() => list.getByRole("listitem").count()).toBe(1)
      await dialog.getByLabel("Search members").fill("")
      await shot(ann, "team-members")
      expect(await axeViolations(ann)).toEqual([])

      await dialog.getByRole("button", { name: "Actions for bob" }).click()
      await ann.getByRole("menuitem", { name: "Make team admin" }).click()
      await dialog.getByRole("status").getByText("bob is now a team admin").waitFor()
      expect((await apis.ann.getTeamMember(teamId, ids.bob)).roles.split(" ")).toContain("team_admin")
      await dialog.getByRole("button", { name: "Actions for bob" }).click()
      await ann.getByRole("menuitem", { name: "Remove team admin" }).click()
      await dialog.getByRole("status").getByText("bob is no longer a team admin").waitFor()
      expect((await apis.ann.getTeamMember(teamId, ids.bob)).roles.split(" ")).not.toContain("team_admin")

      await dialog.getByRole("button", { name: "Actions for dan" }).click()
      await ann.getByRole("menuitem", { name: "Remove from team" }).click()
      await dialog.getByRole("status").getByText("dan was removed from Crew").waitFor()
      const dan = await apis.ann.getTeamMember(teamId, ids.dan).catch(() => null)
      expect(dan === null || dan.delete_at > 0).toBe(true)
      await ann.keyboard.press("Escape")
    })
  })

  it("marks unread and mentions of other teams in the switcher", async () => {
    await step("team-badges", async () => {
      const town = await apis.bob.getChannelByName(otherId, "town-square")
      await apis.bob.createPost({ channel_id: town.id, message: "night shift starts" } as never)
      const teams = ann.getByRole("navigation", { name: "Teams" })
      await teams.getByRole("link", { name: "Night Shift, unread" }).waitFor()
      await apis.bob.createPost({ channel_id: town.id, message: "@ann are you there?" } as never)
      await teams.getByRole("link", { name: "Night Shift, 1 mention" }).waitFor()
      await shot(ann, "team-switcher-badges")
      await teams.getByRole("link", { name: "Night Shift, 1 mention" }).click()
      await ann.waitForURL(/\/night\/channels\/town-square$/)
      await messages(ann).getByText("are you there?").waitFor()
      await teams.getByRole("link", { name: "Crew", exact: true }).click()
      await ann.waitForURL(/\/crew\/channels\/town-square$/)
      await teams.getByRole("link", { name: "Night Shift", exact: true }).waitFor()
    })
  })

  it("joins another team and leaves it", async () => {
    await step("join-leave", async () => {
      await bob.goto("/crew/channels/town-square")
      await (await teamMenu(bob, "Crew")).getByRole("menuitem", { name: "Join another team" }).click()
      const join = bob.getByRole("dialog", { name: "Join another team" })
      await join.getByRole("link", { name: "Create a team" }).waitFor()
      expect(await axeViolations(bob)).toEqual([])
      await join.getByRole("button", { name: "Join Open House" }).click()
      await bob.waitForURL(/\/open-house\/channels\/town-square$/)
      expect((await apis.bob.getTeamMember((await apis.bob.getTeamByName("open-house")).id, ids.bob)).delete_at).toBe(0)
      await bob.getByRole("navigation", { name: "Teams" }).getByRole("link", { name: "Open House" }).waitFor()

      await (await teamMenu(bob, "Open House")).getByRole("menuitem", { name: "Leave team" }).click()
      const leave = bob.getByRole("dialog", { name: "Leave Open House?" })
      expect(await axeViolations(bob)).toEqual([])
      await leave.getByRole("button", { name: "Leave team" }).click()
      await bob.waitForURL(/\/(crew|night)\/channels\/town-square$/)
      expect((await apis.bob.getMyTeams()).map((t) => t.name)).not.toContain("open-house")
      await expect.poll(() => bob.getByRole("navigation", { name: "Teams" }).getByRole("link", { name: "Open House" }).count()).toBe(0)
    })
  })

  it("shows a person's profile with their local time, and messages them", async () => {
    await step("profile", async () => {
      await bob.goto("/crew/channels/town-square")
      await messageBox(bob).fill("profile check")
      await messageBox(bob).press("Enter")
      await ann.goto("/crew/channels/town-square")
      const post = messages(ann).getByRole("article").filter({ hasText: "profile check" })
      await post.getByRole("button", { name: "bob" }).click()
      const card = ann.getByRole("dialog", { name: "Profile of bob" })
      await card.getByText("Local time").waitFor()
      await card.getByText("(Asia/Tokyo)").waitFor()
      const tokyo = new Intl.DateTimeFormat("en-US", { timeZone: "Asia/Tokyo", hour: "numeric", hourCycle: "h12" }).format(Date.now()).replace(/\s?[AP]M/, "")
      expect(await card.locator(".local-time").textContent()).toContain(`${tokyo}:`)
      const box = await card.boundingBox()
      expect(box!.y + box!.height).toBeLessThanOrEqual(800)
      await shot(ann, "profile-popover")
      expect(await axeViolations(ann)).toEqual([])
      await card.getByRole("button", { name: "Message" }).click()
      await ann.waitForURL(/\/crew\/messages\/@bob$/)
      await sidebar(ann).getByRole("link", { name: /^bob/ }).waitFor()
    })
  })
})

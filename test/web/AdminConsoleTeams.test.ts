import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client4 } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { signedInPages } from "./support/WebTeam.ts"
import { haveChromium, withScreenshots } from "./support/Chromium.ts"
import { checkConsolePage, expectRefused, openConsolePage } from "./support/Console.ts"
import { createPeople } from "./support/People.ts"

/**
 * Issue 29, User management > Teams and Channels, as a system admin (ann): teams with member and channel counts,
 * created, renamed, made open or invite-only, limited to email domains, their invite link regenerated, archived and
 * restored, members added, promoted and removed; channels of every team searched and filtered, converted between
 * public and private, archived and unarchived, moved to another team (refused while a member is outside it, then
 * with the outsider removed), members and roles. Each change is checked through the API. bob, a member, sees none
 * of it and his direct calls are refused.
 */
let server: TestServer
let closeBrowser: () => Promise<void>
let ann: Page
let bob: Page
let apis: Record<string, ReturnType<typeof client4>>
let ids: Record<string, string>
let crew = ""
let night = ""
let planning = ""
const headers = { "X-Requested-With": "XMLHttpRequest" }

beforeAll(async () => {
  server = await startServer()
  ;({ apis, ids } = await createPeople(server.url, ["ann", "bob", "cyd"]))
  crew = (await apis.ann.createTeam({ name: "crew", display_name: "Crew", type: "O" } as never)).id
  night = (await apis.ann.createTeam({ name: "night", display_name: "Night Shift", type: "I" } as never)).id
  for (const id of [ids.bob, ids.cyd]) await apis.ann.addToTeam(crew, id)
  await apis.ann.addToTeam(night, ids.bob)
  planning = (await apis.ann.createChannel({ team_id: crew, name: "planning", display_name: "Planning", type: "O" } as never)).id
  await apis.ann.addToChannel(ids.bob, planning)
  await apis.ann.addToChannel(ids.cyd, planning)
  await apis.ann.createChannel({ team_id: crew, name: "secrets", display_name: "Secrets", type: "P" } as never)
  await apis.ann.createChannel({ team_id: night, name: "watch", display_name: "Watch", type: "O" } as never)
  if (!haveChromium) return
  ;({ close: closeBrowser, pages: [ann, bob] } = await signedInPages(server.url, ["ann", "bob"]))
}, 60_000)

afterAll(async () => {
  await closeBrowser?.()
  await server?.close()
})

const step = (name: string, body: () => Promise<void>) => withScreenshots(name, () => [ann, bob].filter(Boolean), body)
const status = (text: string | RegExp) => ann.getByRole("status").getByText(text).waitFor()
const confirm = (title: string, action: string) => ann.getByRole("alertdialog", { name: title }).getByRole("button", { name: action, exact: true }).click()
const rowOf = (region: string, text: string) => ann.getByRole("region", { name: region }).getByRole("row").filter({ hasText: text })

describe.skipIf(!haveChromium)("System Console: teams and channels", () => {
  it("shows a member none of it, and refuses their API calls", async () => {
    await step("member", async () => {
      await expectRefused(bob, "/admin_console/user_management/teams")
      await expectRefused(bob, `/admin_console/user_management/channels/${planning}`)
      const refused: Array<[string, string, unknown?]> = [
        ["GET", "/api/v1/admin/teams"],
        ["GET", "/api/v4/channels"],
        ["POST", `/api/v4/channels/${planning}/move`, { team_id: night }],
        ["DELETE", `/api/v4/teams/${crew}`],
        ["POST", `/api/v4/teams/${crew}/regenerate_invite_id`],
        ["PUT", `/api/v4/teams/${crew}/members/${ids.bob}/schemeRoles`, { scheme_user: true, scheme_admin: true }]
      ]
      for (const [method, path, data] of refused) {
        const response = await bob.request.fetch(path, { method, headers, data })
        expect(response.status(), `${method} ${path}`).toBe(403)
      }
      expect((await apis.ann.getChannel(planning)).team_id).toBe(crew)
      expect((await apis.ann.getTeamMember(crew, ids.bob)).scheme_admin).toBe(false)
    })
  }, 90_000)

  it("lists teams with their counts, creates one, and edits a team's settings", async () => {
    await step("teams", async () => {
      await ann.goto("/admin_console/user_management/teams")
      const row = rowOf("Teams", "Crew")
      // ann, bob and cyd; town-square, off-topic, planning and secrets.
      await row.getByRole("cell", { name: "3", exact: true }).waitFor()
      await row.getByRole("cell", { name: "4", exact: true }).waitFor()
      await rowOf("Teams", "Night Shift").getByRole("cell", { name: "Invite only" }).waitFor()
      await checkConsolePage(ann, "teams")

      await ann.getByRole("button", { name: "Create team" }).click()
      const dialog = ann.getByRole("dialog", { name: "Create team" })
      await dialog.getByLabel("Team name").fill("Day Shift")
      await expect.poll(() => dialog.getByLabel("Team URL").inputValue()).toBe("day-shift")
      await dialog.getByRole("button", { name: "Create team" }).click()
      await ann.getByRole("heading", { name: "Day Shift" }).waitFor()
      const day = await apis.ann.getTeamByName("day-shift")
      expect(day.display_name).toBe("Day Shift")

      await openConsolePage(ann, "Teams")
      await ann.getByLabel("Search teams").fill("cre")
      await expect.poll(() => ann.getByRole("region", { name: "Teams" }).getByRole("row").count()).toBe(2)
      await rowOf("Teams", "Crew").getByRole("link", { name: "Crew" }).click()
      await ann.getByRole("heading", { name: "Crew", exact: true }).waitFor()
      const form = ann.getByRole("form", { name: "Team settings" })
      await form.getByLabel("Team name").fill("Crew Room")
      await form.getByLabel("Anyone with an account on this server can join").check()
      await form.getByLabel("Allowed email domains").fill("example.com, example.org")
      await form.getByRole("button", { name: "Save team" }).click()
      await status("Team saved")
      const team = await apis.ann.getTeam(crew)
      expect(team.display_name).toBe("Crew Room")
      expect(team.allow_open_invite).toBe(true)
      expect(team.allowed_domains).toBe("example.com,example.org")
      await ann.getByRole("heading", { name: "Crew Room" }).waitFor()
      await checkConsolePage(ann, "team-detail")

      const before = team.invite_id
      await ann.getByText(`/signup_user_complete/?id=${before}`).waitFor()
      await ann.getByRole("button", { name: "Regenerate invite link" }).click()
      await confirm("Regenerate the invite link", "Regenerate")
      await status("Invite link regenerated")
      const after = (await apis.ann.getTeam(crew)).invite_id
      expect(after).not.toBe(before)
      await ann.getByText(`/signup_user_complete/?id=${after}`).waitFor()
    })
  }, 90_000)

  it("manages a team's members and roles, archives and restores it", async () => {
    await step("team-members", async () => {
      const members = ann.getByRole("region", { name: "Members of Crew Room" })
      await members.getByRole("button", { name: "Make team admin: bob" }).click()
      await status("bob is now a team admin of Crew Room")
      expect((await apis.ann.getTeamMember(crew, ids.bob)).scheme_admin).toBe(true)
      await members.getByRole("button", { name: "Make member: bob" }).click()
      await status("bob is now a member of Crew Room")
      expect((await apis.ann.getTeamMember(crew, ids.bob)).scheme_admin).toBe(false)
      await members.getByRole("button", { name: "Remove cyd" }).click()
      await confirm("Remove cyd from Crew Room", "Remove member")
      await status("cyd removed from Crew Room")
      expect((await apis.ann.getTeamMembers(crew)).map((m) => m.user_id)).not.toContain(ids.cyd)
      await ann.getByLabel("Add a member by username").fill("cyd")
      await ann.getByRole("button", { name: "Add member" }).click()
      await status("cyd added to Crew Room")
      expect((await apis.ann.getTeamMembers(crew)).map((m) => m.user_id)).toContain(ids.cyd)

      await ann.getByRole("button", { name: "Archive team" }).click()
      await confirm("Archive Crew Room", "Archive team")
      await status("Crew Room archived")
      expect((await apis.ann.getTeam(crew)).delete_at).toBeGreaterThan(0)
      // Archived teams are listed on request, and restored from their page.
      await openConsolePage(ann, "Teams")
      await expect.poll(() => rowOf("Teams", "Crew Room").count()).toBe(0)
      await ann.getByLabel("Include archived teams").check()
      await rowOf("Teams", "Crew Room").getByRole("cell", { name: "Archived" }).waitFor()
      await rowOf("Teams", "Crew Room").getByRole("link", { name: "Crew Room" }).click()
      await ann.getByRole("button", { name: "Restore team" }).click()
      await status("Crew Room restored")
      expect((await apis.ann.getTeam(crew)).delete_at).toBe(0)
    })
  }, 90_000)

  it("lists channels across teams with search and filters", async () => {
    await step("channels", async () => {
      await openConsolePage(ann, "Channels")
      const table = ann.getByRole("region", { name: "Channels" })
      await table.getByRole("link", { name: "Watch" }).waitFor()
      await table.getByRole("link", { name: "Planning" }).waitFor()
      await checkConsolePage(ann, "channels")
      await ann.getByLabel("Privacy").selectOption("private")
      await expect.poll(() => table.getByRole("row").count()).toBe(2)
      await table.getByRole("link", { name: "Secrets" }).waitFor()
      await ann.getByLabel("Privacy").selectOption("all")
      await ann.getByLabel("Team").selectOption({ label: "Night Shift" })
      await table.getByRole("link", { name: "Watch" }).waitFor()
      await expect.poll(() => table.getByRole("link", { name: "Planning" }).count()).toBe(0)
      await ann.getByLabel("Team").selectOption({ label: "All teams" })
      await ann.getByLabel("Search channels").fill("plan")
      await expect.poll(() => table.getByRole("row").count()).toBe(2)
    })
  }, 90_000)

  it("converts, archives, unarchives and moves a channel, and manages its members", async () => {
    await step("channel-detail", async () => {
      // cyd left the channel with the team earlier on: back in it, she is the member outside Night Shift.
      if (!(await apis.ann.getChannelMembers(planning)).some((m) => m.user_id === ids.cyd)) await apis.ann.addToChannel(ids.cyd, planning)
      await ann.goto(`/admin_console/user_management/channels/${planning}`)
      await ann.getByRole("heading", { name: "Planning" }).waitFor()
      await checkConsolePage(ann, "channel-detail")

      await ann.getByRole("button", { name: "Convert to private" }).click()
      await confirm("Make Planning private", "Make private")
      await status("Planning is now private")
      expect((await apis.ann.getChannel(planning)).type).toBe("P")
      await ann.getByRole("button", { name: "Convert to public" }).click()
      await confirm("Make Planning public", "Make public")
      await status("Planning is now public")
      expect((await apis.ann.getChannel(planning)).type).toBe("O")

      const members = ann.getByRole("region", { name: "Members of Planning" })
      await members.getByRole("button", { name: "Make channel admin: bob" }).click()
      await status("bob is now a channel admin of Planning")
      expect((await apis.ann.getChannelMember(planning, ids.bob)).scheme_admin).toBe(true)

      // cyd is not in Night Shift: the move is refused until she is removed from the channel with it.
      await ann.getByLabel("Target team", { exact: true }).selectOption({ label: "Night Shift" })
      await ann.getByRole("button", { name: "Move channel" }).click()
      await confirm("Move Planning to Night Shift", "Move channel")
      await ann.getByRole("alert").getByText(/not in the target team/).waitFor()
      expect((await apis.ann.getChannel(planning)).team_id).toBe(crew)
      await ann.getByLabel("Remove members who are not in the target team").check()
      await ann.getByRole("button", { name: "Move channel" }).click()
      await confirm("Move Planning to Night Shift", "Move channel")
      await status("Planning moved to Night Shift")
      expect((await apis.ann.getChannel(planning)).team_id).toBe(night)
      const left = (await apis.ann.getChannelMembers(planning)).map((m) => m.user_id)
      expect(left).toContain(ids.bob)
      expect(left).not.toContain(ids.cyd)
      // bob finds it under Night Shift now.
      expect((await apis.bob.getMyChannels(night)).map((c) => c.id)).toContain(planning)

      await ann.getByRole("button", { name: "Archive channel" }).click()
      await confirm("Archive Planning", "Archive channel")
      await status("Planning archived")
      expect((await apis.ann.getChannel(planning)).delete_at).toBeGreaterThan(0)
      await ann.getByRole("button", { name: "Unarchive channel" }).click()
      await status("Planning unarchived")
      expect((await apis.ann.getChannel(planning)).delete_at).toBe(0)

      await members.getByRole("button", { name: "Remove bob" }).click()
      await confirm("Remove bob from Planning", "Remove member")
      await status("bob removed from Planning")
      expect((await apis.ann.getChannelMembers(planning)).map((m) => m.user_id)).not.toContain(ids.bob)
    })
  }, 90_000)
})

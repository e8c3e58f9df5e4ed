import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { haveChromium } from "./support/Chromium.ts"
import { axeViolations } from "./support/Axe.ts"
import { channelMenu, messageBox, shot } from "./support/People.ts"
import { startWebTeam, type WebTeam } from "./support/WebTeam.ts"

/**
 * Issue 27, live roles and members: what an admin changes reaches the other person's open screen without a reload.
 * ann (system admin) acts through the API; ben watches in his browser: promoted to system admin, the System console
 * entry appears in his open account menu (and goes when demoted); made team admin, the invite dialog he has open
 * offers "Regenerate link" (and stops when demoted); the channel members dialog he has open shows cat arriving,
 * leaving, and his own new channel role.
 */
const WITHIN = { timeout: 5_000 }
let t: WebTeam
let ben: Page
let plansId = ""

beforeAll(async () => {
  t = await startWebTeam({ people: ["ann", "ben", "cat"], browsers: ["ben"] })
  ben = t.pages.ben
  const plans = await t.apis.ann.createChannel({ team_id: t.teamId, name: "plans", display_name: "Plans", type: "O" } as never)
  plansId = plans.id
  await t.apis.ann.addToChannel(t.ids.ben, plansId)
}, 60_000)

afterAll(async () => {
  await t?.close()
})

const accountMenu = async (page: Page) => {
  await page.getByRole("button", { name: /^Account menu/ }).click()
  return page.getByRole("menu")
}

describe.skipIf(!haveChromium)("web client: roles and members, live", () => {
  it("shows the System console entry when promoted to system admin, and hides it when demoted", async () => {
    await t.step("system-admin", async () => {
      await ben.goto("/crew/channels/town-square")
      await messageBox(ben).waitFor()
      const menu = await accountMenu(ben)
      await menu.getByRole("menuitem", { name: "Settings" }).waitFor()
      expect(await menu.getByRole("menuitem", { name: "System console" }).count()).toBe(0)

      await t.apis.ann.updateUserRoles(t.ids.ben, "system_user system_admin")
      await menu.getByRole("menuitem", { name: "System console" }).waitFor(WITHIN)

      await t.apis.ann.updateUserRoles(t.ids.ben, "system_user")
      await menu.getByRole("menuitem", { name: "System console" }).waitFor({ state: "detached", ...WITHIN })
      await ben.keyboard.press("Escape")
    })
  }, 30_000)

  it("offers team-admin controls to a new team admin and takes them from a demoted one", async () => {
    await t.step("team-admin", async () => {
      await ben.goto("/crew/channels/town-square")
      await ben.getByRole("button", { name: "Crew team menu" }).click()
      await ben.getByRole("menu", { name: "Crew team menu" }).getByRole("menuitem", { name: "Invite people" }).click()
      const invite = ben.getByRole("dialog", { name: "Invite people to Crew" })
      await invite.getByRole("button", { name: "Copy link" }).waitFor()
      expect(await invite.getByRole("button", { name: "Regenerate link" }).count()).toBe(0)

      await t.apis.ann.updateTeamMemberRoles(t.teamId, t.ids.ben, "team_user team_admin" as never)
      await invite.getByRole("button", { name: "Regenerate link" }).waitFor(WITHIN)

      await t.apis.ann.updateTeamMemberRoles(t.teamId, t.ids.ben, "team_user" as never)
      await invite.getByRole("button", { name: "Regenerate link" }).waitFor({ state: "detached", ...WITHIN })
      await ben.keyboard.press("Escape")
      await invite.waitFor({ state: "detached" })
    })
  }, 30_000)

  it("keeps the channel members dialog live: someone added, removed, and a new channel role", async () => {
    await t.step("members-dialog", async () => {
      await ben.goto("/crew/channels/plans")
      await messageBox(ben).waitFor()
      await (await channelMenu(ben, "Plans")).getByRole("menuitem", { name: "Members" }).click()
      const dialog = ben.getByRole("dialog", { name: "Members of Plans" })
      const list = dialog.getByRole("list", { name: "Members" })
      const item = (name: string) => list.getByRole("listitem").filter({ hasText: `@${name}` })
      await item("ben").waitFor()
      expect(await item("cat").count()).toBe(0)

      await t.apis.ann.addToChannel(t.ids.cat, plansId)
      await item("cat").waitFor(WITHIN)
      await shot(ben, "live-members-dialog")
      expect(await axeViolations(ben)).toEqual([])

      await t.apis.ann.removeFromChannel(t.ids.cat, plansId)
      await item("cat").waitFor({ state: "detached", ...WITHIN })

      await t.apis.ann.updateChannelMemberSchemeRoles(plansId, t.ids.ben, true, true)
      await item("ben").getByText("Channel admin").waitFor(WITHIN)
      await ben.setViewportSize({ width: 390, height: 844 })
      await shot(ben, "live-members-dialog-narrow")
      expect(await axeViolations(ben)).toEqual([])
      await ben.setViewportSize({ width: 1280, height: 800 })
    })
  }, 30_000)
})

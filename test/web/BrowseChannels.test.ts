import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { axeViolations } from "./support/Axe.ts"
import { haveChromium } from "./support/Chromium.ts"
import { shot, sidebar } from "./support/People.ts"
import { startWebTeam, type WebTeam } from "./support/WebTeam.ts"

/**
 * Issue 27, Browse channels in a team of many channels: the server searches (POST /channels/search as Mattermost's
 * browse does, nonAdminSearch), so a channel past the first 200 is found by its name; the list comes a page (50) at a
 * time with "Load more"; the private filter shows one's own private channels only, even to a system admin.
 */
const BULK = 230
let t: WebTeam
let ben: Page

beforeAll(async () => {
  t = await startWebTeam({ people: ["ann", "ben"], browsers: ["ben"] })
  ben = t.pages.ben
  const names = Array.from({ length: BULK }, (_, i) => String(i).padStart(3, "0"))
  for (let i = 0; i < names.length; i += 10) {
    await Promise.all(names.slice(i, i + 10).map((n) =>
      t.apis.ann.createChannel({ team_id: t.teamId, name: `bulk-${n}`, display_name: `Bulk ${n}`, type: "O" } as never)))
  }
  // Sorted by display name, it comes after the 230 "Bulk" channels, Off-Topic and Town Square.
  await t.apis.ann.createChannel({ team_id: t.teamId, name: "zebra-crossing", display_name: "Zebra crossing", type: "O", purpose: "Road safety" } as never)
  await t.apis.ann.createChannel({ team_id: t.teamId, name: "secret-plans", display_name: "Secret plans", type: "P" } as never)
  const mine = await t.apis.ann.createChannel({ team_id: t.teamId, name: "ben-private", display_name: "Ben private", type: "P" } as never)
  await t.apis.ann.addToChannel(t.ids.ben, mine.id)
}, 120_000)

afterAll(async () => {
  await t?.close()
})

describe.skipIf(!haveChromium)("web client: browse channels in a large team", () => {
  it("finds a channel beyond the first 200 through the server's search, pages with Load more, filters private", async () => {
    await t.step("browse-large", async () => {
      await ben.goto("/crew/channels/town-square")
      await sidebar(ben).getByRole("button", { name: "Browse channels" }).click()
      const browse = ben.getByRole("dialog", { name: "Browse channels" })
      const list = browse.getByRole("list", { name: "Channels" })
      const items = list.getByRole("listitem")
      // Every open channel plus ben's private one, counted by the server; the first page of 50 shown.
      await browse.getByRole("status").getByText(`${BULK + 4} channels`).waitFor()
      await expect.poll(() => items.count()).toBe(50)
      await browse.getByRole("button", { name: "Load more" }).click()
      await expect.poll(() => items.count()).toBe(100)
      await shot(ben, "browse-large")
      expect(await axeViolations(ben)).toEqual([])

      await browse.getByLabel("Search channels").fill("zeb")
      await list.getByRole("button", { name: "Join Zebra crossing" }).waitFor()
      await expect.poll(() => items.count()).toBe(1)
      await browse.getByRole("status").getByText("1 channel").waitFor()
      expect(await browse.getByRole("button", { name: "Load more" }).count()).toBe(0)
      // By its purpose too.
      await browse.getByLabel("Search channels").fill("road")
      await list.getByRole("button", { name: "Join Zebra crossing" }).waitFor()
      await list.getByRole("button", { name: "Join Zebra crossing" }).click()
      await ben.waitForURL(/\/crew\/channels\/zebra-crossing$/)
      await sidebar(ben).getByRole("link", { name: "Zebra crossing" }).waitFor()

      await sidebar(ben).getByRole("button", { name: "Browse channels" }).click()
      await browse.getByLabel("Show").selectOption("private")
      await list.getByRole("listitem").filter({ hasText: "Ben private" }).getByText("Joined").waitFor()
      await expect.poll(() => items.count()).toBe(1)
      await ben.setViewportSize({ width: 390, height: 844 })
      await shot(ben, "browse-large-narrow")
      expect(await axeViolations(ben)).toEqual([])
      await ben.setViewportSize({ width: 1280, height: 800 })
    })
  }, 60_000)

  it("shows a system admin the channels anyone could join, not every private channel", async () => {
    await t.step("browse-admin", async () => {
      const ann = await (await t.browser!.newContext({ baseURL: t.server.url, bypassCSP: true })).newPage()
      const login = await ann.request.post("/api/v4/users/login", { data: { login_id: "ann", password: "correct-horse-battery" }, headers: { "X-Requested-With": "XMLHttpRequest" } })
      expect(login.status()).toBe(200)
      // ann created both private channels (a member of each); once she leaves one, it is no longer hers to browse.
      const secret = await t.apis.ann.getChannelByName(t.teamId, "secret-plans")
      await t.apis.ann.removeFromChannel(t.ids.ann, secret.id)
      await ann.goto("/crew/channels/town-square")
      await sidebar(ann).getByRole("button", { name: "Browse channels" }).click()
      const browse = ann.getByRole("dialog", { name: "Browse channels" })
      await browse.getByLabel("Show").selectOption("private")
      await browse.getByRole("list", { name: "Channels" }).getByRole("listitem").filter({ hasText: "Ben private" }).waitFor()
      expect(await browse.getByRole("list", { name: "Channels" }).getByRole("listitem").filter({ hasText: "Secret plans" }).count()).toBe(0)
      await ann.context().close()
    })
  }, 30_000)
})

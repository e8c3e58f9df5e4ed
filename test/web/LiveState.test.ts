import { join } from "node:path"
import type { Page } from "playwright-core"
import sharp from "sharp"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client4 } from "../support/Clients.ts"
import { axeViolations } from "./support/Axe.ts"
import { haveChromium, RESULTS_DIR } from "./support/Chromium.ts"
import { startWebTeam, type WebTeam } from "./support/WebTeam.ts"

/**
 * Live state: what others (or the same person on another device) change reaches an open client over the WebSocket
 * within seconds, without a reload. ann (the first account, system admin) acts through the API and watches in her
 * browser; ben watches in his: a channel renamed (header, sidebar, address), a channel he is added to, a new avatar,
 * a renamed team, being removed from a private channel while reading it, a preference saved on another device, and
 * his account deactivated (back at sign-in, told why).
 */
const WITHIN = { timeout: 5_000 }
let t: WebTeam
let ann: Page
let ben: Page
let annApi: ReturnType<typeof client4>
let benApi: ReturnType<typeof client4>
let annId = ""
let benId = ""
let teamId = ""
let plansId = ""

beforeAll(async () => {
  t = await startWebTeam({ people: ["ann", "ben"], browsers: ["ann", "ben"], team: { name: "live", display_name: "Live" } })
  ;({ ann: annApi, ben: benApi } = t.apis)
  ;({ ann: annId, ben: benId } = t.ids)
  teamId = t.teamId
  const plans = await annApi.createChannel({ team_id: teamId, name: "plans", display_name: "Plans", type: "P" } as never)
  plansId = plans.id
  await annApi.addToChannel(benId, plansId)
  await annApi.createPost({ channel_id: plansId, message: "the plan, version one" } as never)
  ;({ ann, ben } = t.pages)
}, 60_000)

afterAll(async () => {
  await t?.close()
})

const step = (name: string, body: () => Promise<void>) => t.step(name, body)
const sidebar = (page: Page) => page.getByRole("navigation", { name: "Channels" })
const messages = (page: Page) => page.getByRole("log", { name: "Messages" })
const heading = (page: Page) => page.getByRole("main").getByRole("heading", { level: 1 })

describe.skipIf(!haveChromium)("web client: live state", () => {
  it("shows a renamed channel, a channel one is added to, a new avatar and a renamed team at once", async () => {
    await step("renames", async () => {
      await ben.goto("/live/channels/plans")
      await messages(ben).getByText("the plan, version one").waitFor()
      await expect.poll(() => heading(ben).textContent()).toContain("Plans")

      await annApi.patchChannel(plansId, { display_name: "Big Plans", name: "big-plans" })
      await sidebar(ben).getByRole("link", { name: "Big Plans" }).waitFor(WITHIN)
      await expect.poll(() => heading(ben).textContent(), WITHIN).toContain("Big Plans")
      // The address follows the new name, and a reload finds the channel there.
      await ben.waitForURL(/\/live\/channels\/big-plans$/, WITHIN)

      const news = await annApi.createChannel({ team_id: teamId, name: "news", display_name: "News", type: "O" } as never)
      await annApi.addToChannel(benId, news.id)
      await sidebar(ben).getByRole("link", { name: "News" }).waitFor(WITHIN)

      // ann's picture changes: ben's view of her post asks for the new one (the URL carries last_picture_update).
      const article = messages(ben).getByRole("article").filter({ hasText: "the plan, version one" })
      const before = await article.locator("img").first().getAttribute("src")
      const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: "#2266cc" } }).png().toBuffer()
      await annApi.uploadProfileImage(annId, new File([png], "ann.png", { type: "image/png" }) as never)
      const updated = (await annApi.getUser(annId)).last_picture_update
      expect(updated).toBeGreaterThan(0)
      await expect.poll(() => article.locator("img").first().getAttribute("src"), WITHIN).toBe(`/api/v4/users/${annId}/image?_=${updated}`)
      expect(before).not.toBe(`/api/v4/users/${annId}/image?_=${updated}`)

      await annApi.patchTeam({ id: teamId, display_name: "Live Crew" })
      await ben.getByText("Live Crew", { exact: true }).first().waitFor(WITHIN)
    })
  }, 40_000)

  it("moves a person out of a private channel they are removed from, and says so", async () => {
    await step("removed", async () => {
      await ben.goto("/live/channels/big-plans")
      await messages(ben).getByText("the plan, version one").waitFor()
      await annApi.removeFromChannel(benId, plansId)
      await ben.waitForURL(/\/live\/channels\/town-square$/, WITHIN)
      await ben.getByRole("status").getByText("You were removed from ~Big Plans by ann.").waitFor(WITHIN)
      expect(await sidebar(ben).getByRole("link", { name: "Big Plans" }).count()).toBe(0)
      await ben.screenshot({ path: join(RESULTS_DIR, "live-removed.png") })
      expect(await axeViolations(ben)).toEqual([])
      await ben.setViewportSize({ width: 390, height: 844 })
      await ben.screenshot({ path: join(RESULTS_DIR, "live-removed-narrow.png") })
      expect(await axeViolations(ben)).toEqual([])
      await ben.setViewportSize({ width: 1280, height: 800 })
      await ben.getByRole("button", { name: "Dismiss" }).click()
      expect(await ben.getByRole("status").getByText(/You were removed/).count()).toBe(0)
      // The channel stays gone after a reload (the server agrees), and its address no longer opens it.
      await ben.reload()
      await heading(ben).waitFor()
      expect(await sidebar(ben).getByRole("link", { name: "Big Plans" }).count()).toBe(0)
    })
  }, 30_000)

  it("applies a display preference saved on another device", async () => {
    await step("preferences", async () => {
      await annApi.createPost({ channel_id: (await annApi.getChannelByName(teamId, "town-square")).id, message: "what time is it" } as never)
      await ben.goto("/live/channels/town-square")
      const time = messages(ben).getByRole("article").filter({ hasText: "what time is it" }).locator("time")
      await expect.poll(() => time.textContent()).toMatch(/AM|PM/)
      await benApi.savePreferences(benId, [{ user_id: benId, category: "display_settings", name: "use_military_time", value: "true" }])
      await expect.poll(() => time.textContent(), WITHIN).toMatch(/^\d{2}:\d{2}$/)
      await benApi.deletePreferences(benId, [{ user_id: benId, category: "display_settings", name: "use_military_time", value: "true" }])
      await expect.poll(() => time.textContent(), WITHIN).toMatch(/AM|PM/)
    })
  }, 30_000)

  it("sends a deactivated person back to sign-in, saying why", async () => {
    await step("deactivated", async () => {
      await ben.goto("/live/channels/town-square")
      await heading(ben).waitFor()
      await annApi.updateUserActive(benId, false)
      await ben.waitForURL(/\/login/, { timeout: 15_000 })
      await ben.getByRole("status").getByText(/deactivated/).waitFor(WITHIN)
      await ben.screenshot({ path: join(RESULTS_DIR, "live-deactivated.png") })
      // ann, still signed in, is not affected.
      await ann.goto("/live/channels/town-square")
      await heading(ann).waitFor()
      expect(ann.url()).toMatch(/town-square$/)
    })
  }, 30_000)
})

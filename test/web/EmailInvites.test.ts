import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type LoopbackSmtp, linkIn, startSmtpServer } from "../support/SmtpServer.ts"
import { axeViolations } from "./support/Axe.ts"
import { haveChromium } from "./support/Chromium.ts"
import { messageBox, shot } from "./support/People.ts"
import { startWebTeam, type WebTeam } from "./support/WebTeam.ts"

/**
 * Issue 27, email invitations from the invite dialog on a server with SMTP (a real smtp-server on loopback receives
 * them): the dialog says per address whether it was sent or why not; the mail's sign-up link, followed in a fresh
 * browser, creates the account inside the team.
 */
const WITHIN = { timeout: 10_000 }
let smtp: LoopbackSmtp
let t: WebTeam
let ann: Page

beforeAll(async () => {
  smtp = await startSmtpServer()
  t = await startWebTeam({ people: ["ann", "ben"], browsers: ["ann"], env: { SERVICE_SMTP_URL: smtp.url, SERVICE_EMAIL_FROM: "chat@example.com" } })
  ann = t.pages.ann
}, 60_000)

afterAll(async () => {
  await t?.close()
  await smtp?.close()
})

describe.skipIf(!haveChromium)("web client: email invitations", () => {
  it("sends invitations by email, says which were sent, and the mailed link signs a newcomer up into the team", async () => {
    await t.step("email-invites", async () => {
      await ann.goto("/crew/channels/town-square")
      await ann.getByRole("button", { name: "Crew team menu" }).click()
      await ann.getByRole("menu", { name: "Crew team menu" }).getByRole("menuitem", { name: "Invite people" }).click()
      const invite = ann.getByRole("dialog", { name: "Invite people to Crew" })
      await invite.getByLabel("Email addresses").fill("newcomer@example.com, not-an-address")
      await invite.getByRole("button", { name: "Send invitations" }).click()
      await invite.getByRole("status").getByText("Invitations sent: 1 of 2").waitFor(WITHIN)
      const results = invite.getByRole("list", { name: "Invitation results" }).getByRole("listitem")
      await results.filter({ hasText: "newcomer@example.com" }).getByText("Sent").waitFor()
      await results.filter({ hasText: "not-an-address" }).getByText(/^Not sent: /).waitFor()
      // The address that failed stays in the box to be corrected.
      expect(await invite.getByLabel("Email addresses").inputValue()).toBe("not-an-address")
      await shot(ann, "email-invites")
      expect(await axeViolations(ann)).toEqual([])
      await ann.setViewportSize({ width: 390, height: 844 })
      await shot(ann, "email-invites-narrow")
      expect(await axeViolations(ann)).toEqual([])
      await ann.setViewportSize({ width: 1280, height: 800 })

      await expect.poll(() => smtp.received.filter((m) => m.to.includes("newcomer@example.com")).length, WITHIN).toBe(1)
      expect(smtp.received.some((m) => m.to.includes("not-an-address"))).toBe(false)
      const mail = smtp.received.find((m) => m.to.includes("newcomer@example.com"))!
      expect(mail.subject).toContain("Crew")
      const link = linkIn(mail, "/signup_user_complete/")
      const inviteId = (await t.apis.ann.getTeam(t.teamId)).invite_id
      expect(link.searchParams.get("id")).toBe(inviteId)

      // The link, followed in a browser nobody is signed in to.
      const context = await t.browser!.newContext({ baseURL: t.server.url, bypassCSP: true })
      const newcomer = await context.newPage()
      await newcomer.goto(`${link.pathname}${link.search}`)
      await newcomer.getByRole("heading", { name: "Join Crew" }).waitFor()
      await newcomer.getByLabel("Email").fill("newcomer@example.com")
      await newcomer.getByLabel("Username").fill("newcomer")
      await newcomer.getByLabel("Password").fill("plenty-of-letters-here")
      await newcomer.getByRole("button", { name: "Create account" }).click()
      await newcomer.waitForURL(/\/crew\/channels\/town-square$/, WITHIN)
      await messageBox(newcomer).waitFor()
      await context.close()
    })
  }, 60_000)
})

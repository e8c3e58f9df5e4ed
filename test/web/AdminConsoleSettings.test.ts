import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client4 } from "../support/Clients.ts"
import { type LoopbackSmtp, startSmtpServer } from "../support/SmtpServer.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { signedInPages } from "./support/WebTeam.ts"
import { haveChromium, withScreenshots } from "./support/Chromium.ts"
import { checkConsolePage, consoleNav, expectRefused, openConsolePage } from "./support/Console.ts"
import { createPeople } from "./support/People.ts"

/**
 * Issue 29, the System Console's site configuration: each settings page as a system admin (ann) sees it, saved
 * through PUT /api/v4/config/patch and checked through GET /api/v4/config afterwards; values refused before saving
 * with the reason next to the field; settings fixed by the environment read-only with their SERVICE_* variable;
 * "Send test email" through a loopback SMTP server; and a member (bob) who sees none of it and whose API calls are
 * refused. Every page axe-clean at 1280 and 390 px.
 */
let server: TestServer
let smtp: LoopbackSmtp
let closeBrowser: () => Promise<void>
let ann: Page
let bob: Page
let apis: Record<string, ReturnType<typeof client4>>

beforeAll(async () => {
  smtp = await startSmtpServer()
  server = await startServer({ env: { SERVICE_SMTP_URL: smtp.url, SERVICE_EMAIL_FROM: "Chat <chat@example.com>" } })
  ;({ apis } = await createPeople(server.url, ["ann", "bob"]))
  if (!haveChromium) return
  ;({ close: closeBrowser, pages: [ann, bob] } = await signedInPages(server.url, ["ann", "bob"]))
}, 60_000)

afterAll(async () => {
  await closeBrowser?.()
  await server?.close()
  await smtp?.close()
})

const step = (name: string, body: () => Promise<void>) => withScreenshots(name, () => [ann, bob].filter(Boolean), body)
const saved = () => ann.getByRole("status").getByText("Settings saved").waitFor()
const config = () => apis.ann.getConfig() as Promise<any>

describe.skipIf(!haveChromium)("System Console: site configuration", () => {
  it("saves the site name and description, refusing an empty name before saving", async () => {
    await step("customization", async () => {
      await ann.goto("/admin_console")
      await ann.waitForURL(/\/admin_console\/user_management\/users$/)
      await openConsolePage(ann, "Customization")
      await ann.getByRole("heading", { name: "Customization" }).waitFor()
      const name = ann.getByRole("textbox", { name: "Site name" })
      await expect.poll(() => name.inputValue()).toBe("Team Chat")
      await name.fill("")
      await ann.getByRole("button", { name: "Save" }).click()
      await ann.getByText("Site name is required.").waitFor()
      await ann.getByRole("alert").getByText("Some settings are not valid; nothing was saved.").waitFor()
      expect(await name.getAttribute("aria-invalid")).toBe("true")
      expect(await name.evaluate((el) => el === document.activeElement)).toBe(true)
      expect((await config()).TeamSettings.SiteName).toBe("Team Chat")
      await checkConsolePage(ann, "customization-invalid")

      await name.fill("Crew Chat")
      await ann.getByRole("textbox", { name: "Site description" }).fill("Where the crew talks")
      await ann.getByRole("button", { name: "Save" }).click()
      await saved()
      const after = await config()
      expect(after.TeamSettings.SiteName).toBe("Crew Chat")
      expect(after.TeamSettings.CustomDescriptionText).toBe("Where the crew talks")
      await checkConsolePage(ann, "customization")
    })
  }, 90_000)

  it("changes limits, sign-up, password, integration and post switches, each checked through the API", async () => {
    await step("limits", async () => {
      await openConsolePage(ann, "Users and teams")
      const max = ann.getByRole("spinbutton", { name: "Max users per team" })
      await expect.poll(() => max.inputValue()).toBe("50000")
      await max.fill("0")
      await ann.getByRole("button", { name: "Save" }).click()
      await ann.getByText("Max users per team must be at least 1.").waitFor()
      await max.fill("25")
      await ann.getByRole("spinbutton", { name: "Max channels per team" }).fill("300")
      await ann.getByRole("checkbox", { name: "Enable team creation" }).uncheck()
      await ann.getByRole("combobox", { name: "Teammate name display" }).selectOption("full_name")
      await ann.getByRole("button", { name: "Save" }).click()
      await saved()
      let doc = await config()
      expect(doc.TeamSettings.MaxUsersPerTeam).toBe(25)
      expect(doc.TeamSettings.MaxChannelsPerTeam).toBe(300)
      expect(doc.TeamSettings.EnableTeamCreation).toBe(false)
      expect(doc.TeamSettings.TeammateNameDisplay).toBe("full_name")
      // Settings the server does not let change are shown, read-only, saying so.
      const statuses = ann.getByRole("checkbox", { name: "Enable custom statuses" })
      expect(await statuses.isDisabled()).toBe(true)
      await ann.getByText("Users and teams").first().waitFor()
      expect(await ann.locator("#setting-TeamSettings-EnableCustomUserStatuses-help").textContent()).toContain("Fixed on this server.")
      await checkConsolePage(ann, "users-and-teams")

      await openConsolePage(ann, "Signup")
      await ann.getByRole("checkbox", { name: "Enable open server" }).uncheck()
      await ann.getByRole("button", { name: "Save" }).click()
      await saved()
      expect((await config()).TeamSettings.EnableOpenServer).toBe(false)
      await checkConsolePage(ann, "signup")

      await openConsolePage(ann, "Password")
      await ann.getByRole("spinbutton", { name: "Maximum login attempts" }).fill("5")
      await ann.getByRole("button", { name: "Save" }).click()
      await saved()
      expect((await config()).ServiceSettings.MaximumLoginAttempts).toBe(5)
      // Password rules apply at run time (test/system/RuntimeSettings*): the console saves them like any setting.
      await ann.getByRole("spinbutton", { name: "Minimum password length" }).fill("10")
      await ann.getByRole("checkbox", { name: "At least one number" }).check()
      await ann.getByRole("button", { name: "Save" }).click()
      await saved()
      expect((await config()).PasswordSettings).toMatchObject({ MinimumLength: 10, Number: true })
      await checkConsolePage(ann, "password")

      await openConsolePage(ann, "Integration management")
      await ann.getByRole("checkbox", { name: "Enable incoming webhooks" }).uncheck()
      await ann.getByRole("button", { name: "Save" }).click()
      await saved()
      expect((await config()).ServiceSettings.EnableIncomingWebhooks).toBe(false)

      await openConsolePage(ann, "Posts")
      await ann.getByRole("checkbox", { name: "Enable website link previews" }).uncheck()
      await ann.getByRole("button", { name: "Save" }).click()
      await saved()
      expect((await config()).ServiceSettings.EnableLinkPreviews).toBe(false)

      await openConsolePage(ann, "File storage")
      await ann.getByRole("spinbutton", { name: "Maximum file size (MB)" }).fill("20")
      await ann.getByRole("button", { name: "Save" }).click()
      await saved()
      doc = await config()
      expect(doc.FileSettings.MaxFileSize).toBe(20 * 1048576)
      await checkConsolePage(ann, "file-storage")
    })
  }, 90_000)

  it("shows settings fixed by the environment read-only, naming the variable", async () => {
    await step("environment", async () => {
      await openConsolePage(ann, "Web server")
      const siteUrl = ann.getByRole("textbox", { name: "Site URL" })
      await expect.poll(() => siteUrl.inputValue()).toBe((await config()).ServiceSettings.SiteURL)
      expect(await siteUrl.isEditable()).toBe(false)
      await ann.getByText(/Set by the environment variable SERVICE_SITE_URL/).waitFor()
      // Nothing on the page can be changed here: no Save button.
      expect(await ann.getByRole("button", { name: "Save" }).count()).toBe(0)
      await checkConsolePage(ann, "web-server")

      await openConsolePage(ann, "Rate limiting")
      const rate = ann.getByRole("checkbox", { name: "Enable rate limiting" })
      await rate.waitFor()
      expect(await rate.isDisabled()).toBe(true)
      await ann.getByText(/Set by the environment variable SERVICE_SECURITY_RATE_LIMIT_ENABLED/).waitFor()
      await checkConsolePage(ann, "rate-limiting")
    })
  }, 90_000)

  it("sends a test email through the SMTP server in use", async () => {
    await step("test-email", async () => {
      await openConsolePage(ann, "Notifications")
      await ann.getByRole("button", { name: "Send test email" }).click()
      await ann.getByRole("status").getByText(/Test email sent/).waitFor()
      await expect.poll(() => smtp.received.filter((m) => m.to.includes("ann@example.com")).length).toBe(1)
      await checkConsolePage(ann, "notifications")
    })
  }, 90_000)

  it("every other settings page opens, axe-clean at both widths", async () => {
    await step("all-pages", async () => {
      for (const [link, heading] of [
        ["Emoji", "Emoji"], ["Multi-factor authentication", "Multi-factor authentication"], ["Session lengths", "Session lengths"],
        ["Bot accounts", "Bot accounts"], ["Push notifications", "Push notification server"], ["Single sign-on", "Single sign-on"],
        ["Integration management", "Integration management"], ["Posts", "Posts"]
      ]) {
        await openConsolePage(ann, link)
        await ann.getByRole("heading", { name: heading, exact: true }).waitFor()
        await checkConsolePage(ann, link.toLowerCase().replace(/\W+/g, "-"))
      }
      // The session lengths shown are the ones sessions get (web 30 days, mobile 180).
      await openConsolePage(ann, "Session lengths")
      await expect.poll(() => ann.getByRole("spinbutton", { name: "Session length for mobile apps (hours)" }).inputValue()).toBe("4320")
    })
  }, 120_000)

  it("shows a member none of it, and refuses their API calls", async () => {
    await step("member", async () => {
      for (const path of ["/admin_console", "/admin_console/site_config/customization", "/admin_console/environment/web_server"]) {
        await expectRefused(bob, path)
      }
      expect(await consoleNav(bob).count()).toBe(0)
      const headers = { "X-Requested-With": "XMLHttpRequest" }
      for (const [method, path] of [["GET", "/api/v4/config"], ["GET", "/api/v1/admin/config/sources"], ["POST", "/api/v4/email/test"]] as const) {
        const response = await bob.request.fetch(path, { method, headers })
        expect(response.status(), `${method} ${path}`).toBe(403)
      }
      const patch = await bob.request.put("/api/v4/config/patch", { headers, data: { TeamSettings: { SiteName: "Bob's" } } })
      expect(patch.status()).toBe(403)
      expect((await config()).TeamSettings.SiteName).toBe("Crew Chat")
    })
  }, 90_000)
})

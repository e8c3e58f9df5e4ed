import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client4, newUser } from "../support/Clients.ts"
import { type LoopbackSmtp, linkIn, type ReceivedMail, startSmtpServer } from "../support/SmtpServer.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { axeViolations } from "./support/Axe.ts"
import { haveChromium, launch, withScreenshots } from "./support/Chromium.ts"

/**
 * The web client's mailed-link pages against a server whose SMTP is a loopback smtp-server: "Forgot your password?"
 * from the sign-in page to a new password (a common password refused with the server's message, the old password and
 * the spent link refused afterwards), and the email-verification link's page.
 */
let smtp: LoopbackSmtp
let server: TestServer
let browser: Browser
let closeBrowser: () => Promise<void>
let context: BrowserContext
let page: Page

const step = (name: string, body: () => Promise<void>) => withScreenshots(name, () => (page ? [page] : []), body)

const mailTo = async (address: string, subject: string, after: number): Promise<ReceivedMail> => {
  const match = (m: ReceivedMail) => m.to.includes(address) && m.subject.includes(subject)
  await expect.poll(() => smtp.received.slice(after).some(match), { timeout: 10_000 }).toBe(true)
  return smtp.received.slice(after).find(match)!
}

/** The mailed link points at the site URL; the browser opens its path and query on the test server. */
const localLink = (mail: ReceivedMail, path: string) => {
  const link = linkIn(mail, path)
  return `${link.pathname}${link.search}`
}

/** Client4's UserProfile type has no email_verified, though the server sends it. */
const emailVerified = async (client: ReturnType<typeof client4>) =>
  ((await client.getMe()) as unknown as { email_verified: boolean }).email_verified

const signIn = async (loginId: string, password: string) => {
  await page.getByLabel("Email or username").fill(loginId)
  await page.getByLabel("Password").fill(password)
  await page.getByRole("button", { name: "Sign in" }).click()
}

beforeAll(async () => {
  smtp = await startSmtpServer()
  server = await startServer({ env: { SERVICE_SMTP_URL: smtp.url, SERVICE_EMAIL_FROM: "Chat <chat@example.com>" } })
  await newUser(server.url, "mailadmin") // the first account administers the server; the tests use ordinary ones
  ;({ browser, close: closeBrowser } = await launch())
  // bypassCSP lets axe-core be injected (see support/Axe.ts).
  context = await browser.newContext({ baseURL: server.url, viewport: { width: 1280, height: 800 }, bypassCSP: true })
  context.setDefaultTimeout(10_000)
  page = await context.newPage()
}, 120_000)

afterAll(async () => {
  await closeBrowser?.()
  await server?.close()
  await smtp?.close()
})

describe.skipIf(!haveChromium)("web client, mailed links", () => {
  it("forgot password: asks for a link, sets a new password from the mail, and the link works once", async () => {
    const user = await newUser(server.url, "forgetful")
    const email = user.user.email
    const newPassword = "amber-meadow-falcon"
    let mail!: ReceivedMail

    await step("reset-request", async () => {
      await page.goto("/login")
      await page.getByRole("heading", { name: "Sign in" }).waitFor()
      await page.getByRole("link", { name: "Forgot your password?" }).click()
      await page.waitForURL(/\/reset_password$/)
      await page.getByRole("heading", { name: "Reset your password" }).waitFor()
      expect(await axeViolations(page)).toEqual([])
      const before = smtp.received.length
      await page.getByLabel("Email").fill(email)
      await page.getByRole("button", { name: "Send reset link" }).click()
      await expect.poll(() => page.getByRole("status").textContent()).toContain("a link to choose a new password is on its way")
      mail = await mailTo(email, "Reset your password", before)
    })

    const link = localLink(mail, "/reset_password_complete")
    expect(link).toMatch(/^\/reset_password_complete\?token=/)

    await step("reset-complete", async () => {
      await page.goto(link)
      await page.getByRole("heading", { name: "Choose a new password" }).waitFor()
      // The token leaves the address bar (and the history) at once.
      await page.waitForURL((url) => url.pathname === "/reset_password_complete" && url.search === "")
      expect(await axeViolations(page)).toEqual([])
      // A common password is refused with the server's own words, and the link stays usable.
      await page.getByLabel("New password").fill("password123")
      await page.getByRole("button", { name: "Change password" }).click()
      await expect.poll(() => page.getByRole("alert").textContent()).toContain("one of the most commonly used passwords")
      await page.getByLabel("New password").fill(newPassword)
      await page.getByRole("button", { name: "Change password" }).click()
      await page.waitForURL(/\/login$/)
      await expect.poll(() => page.getByRole("status").textContent()).toContain("Your password has been changed")
    })

    await step("old-password-refused", async () => {
      await signIn(user.username, user.password)
      await expect.poll(() => page.getByRole("alert").textContent()).toContain("Enter a valid email or username and/or password")
      expect(page.url()).toMatch(/\/login/)
    })

    await step("new-password-signs-in", async () => {
      await signIn(email, newPassword)
      await page.waitForURL((url) => url.pathname !== "/login")
      expect((await page.evaluate(async () => (await (await fetch("/api/v4/users/me")).json()).id)) as string).toBe(user.user.id)
      await page.context().clearCookies()
    })

    await step("link-reused", async () => {
      await page.goto(link)
      await page.getByRole("heading", { name: "Choose a new password" }).waitFor()
      await page.getByLabel("New password").fill("other-orchid-velvet")
      await page.getByRole("button", { name: "Change password" }).click()
      await expect.poll(() => page.getByRole("alert").textContent()).toContain("has already been used or is no longer valid")
      await page.getByRole("link", { name: "Ask for a new link" }).waitFor()
      expect(await axeViolations(page)).toEqual([])
    })
    // The password is still the one set through the mail.
    expect((await client4(server.url).login(user.username, newPassword)).id).toBe(user.user.id)
  })

  it("email verification: the mailed link's page confirms the address once and says so", async () => {
    const user = await newUser(server.url, "verifier")
    const before = smtp.received.length
    await client4(server.url).sendVerificationEmail(user.user.email)
    const mail = await mailTo(user.user.email, "erif", before)
    const link = localLink(mail, "/do_verify_email")

    await step("verify", async () => {
      await page.context().clearCookies()
      await page.goto(link)
      await page.getByRole("heading", { name: "Email verified" }).waitFor()
      await expect.poll(() => page.getByRole("status").textContent()).toContain("Your email address is verified")
      await page.waitForURL((url) => url.pathname === "/do_verify_email" && url.search === "")
      await page.getByRole("link", { name: "Sign in" }).waitFor()
      expect(await axeViolations(page)).toEqual([])
    })
    expect(await emailVerified(user.client)).toBe(true)

    await step("verify-reused", async () => {
      await page.goto(link)
      await page.getByRole("heading", { name: "Email not verified" }).waitFor()
      await expect.poll(() => page.getByRole("alert").textContent()).toContain("has already been used or is no longer valid")
    })

    await step("verify-signed-in", async () => {
      // A signed-in person following the link gets the same page (not sent home with the token unspent).
      const other = await newUser(server.url, "verifiertwo")
      const mark = smtp.received.length
      await client4(server.url).sendVerificationEmail(other.user.email)
      const otherLink = localLink(await mailTo(other.user.email, "erif", mark), "/do_verify_email")
      await page.goto("/login")
      await signIn(other.username, other.password)
      await page.waitForURL((url) => url.pathname !== "/login")
      await page.goto(otherLink)
      await page.getByRole("heading", { name: "Email verified" }).waitFor()
      await page.getByRole("link", { name: "Continue" }).waitFor()
      expect(await emailVerified(other.client)).toBe(true)
    })
  })
})

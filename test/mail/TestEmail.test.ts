import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { newUser } from "../support/Clients.ts"
import { type LoopbackSmtp, startSmtpServer } from "../support/SmtpServer.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * POST /api/v4/email/test (the System Console's "Send Test Email") against a real SMTP server on loopback: the mail
 * reaches the admin's address, a refusal by the SMTP server is told, and only system admins may ask.
 */
let smtp: LoopbackSmtp
let withMail: TestServer
let withoutMail: TestServer
const refused = new Set<string>()
const admins: Array<Awaited<ReturnType<typeof newUser>>> = []

beforeAll(async () => {
  smtp = await startSmtpServer({ refuse: (address) => refused.has(address) })
  withMail = await startServer({ env: { SERVICE_SMTP_URL: smtp.url, SERVICE_EMAIL_FROM: "chat@example.com" } })
  withoutMail = await startServer()
})
afterAll(async () => {
  await withMail?.close()
  await withoutMail?.close()
  await smtp?.close()
})

const post = async (server: TestServer, token: string) => {
  const res = await fetch(`${server.url}/api/v4/email/test`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    // What the console sends: its configuration, which this server does not apply.
    body: JSON.stringify({ EmailSettings: { SMTPServer: "mail.example.com", SMTPPort: "25" } })
  })
  expect(res.headers.get("content-type")).toBe("application/json")
  return { status: res.status, body: await res.json() as Record<string, unknown> }
}

describe("the test email", () => {
  it("is mailed to the admin through the server's SMTP settings, and only admins may ask", async () => {
    const admin = await newUser(withMail.url, "mailadmin") // the first account is the system admin
    admins.push(admin)
    const member = await newUser(withMail.url, "member")
    expect(await post(withMail, admin.client.getToken())).toEqual({ status: 200, body: { status: "OK" } })
    const mail = smtp.received.find((m) => m.to.includes(admin.user.email))
    expect(mail).toMatchObject({ from: "chat@example.com", subject: expect.stringContaining("Testing email settings") })
    expect(mail!.text).toContain("set up correctly")

    const before = smtp.received.length
    expect(await post(withMail, member.client.getToken())).toMatchObject({ status: 403, body: { id: "api.context.permissions.app_error" } })
    expect(smtp.received.length).toBe(before)
  })

  it("says so when the SMTP server refuses the mail (502 with its reason)", async () => {
    const [admin] = admins
    refused.add(admin.user.email)
    try {
      const answer = await post(withMail, admin.client.getToken())
      expect(answer).toMatchObject({ status: 502, body: { id: "app.admin.test_email.failure", status_code: 502 } })
      expect(String(answer.body.message)).toContain("No such user")
    } finally {
      refused.delete(admin.user.email)
    }
  })

  it("answers 400 with a clear message when no SMTP server is configured", async () => {
    const admin = await newUser(withoutMail.url, "nomailadmin")
    const answer = await post(withoutMail, admin.client.getToken())
    expect(answer).toMatchObject({ status: 400, body: { id: "api.admin.test_email.missing_server" } })
    expect(String(answer.body.message)).toContain("SERVICE_SMTP_URL")
  })
})

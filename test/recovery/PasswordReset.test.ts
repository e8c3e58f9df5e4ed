import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { sweepExpiredTokens } from "../../src/recovery/TokenSweep.ts"
import { Fixtures } from "../files/Fixtures.ts"
import { client4, newUser } from "../support/Clients.ts"
import { type LoopbackSmtp, linkIn, type ReceivedMail, startSmtpServer } from "../support/SmtpServer.ts"
import { teamOfTwo } from "../support/Teams.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * "Forgot password?" end to end: Client4 asks for a link, the service mails it through a real SMTP server on
 * loopback, the test reads the mail, follows the link's token and sets a new password.
 */
let smtp: LoopbackSmtp
let server: TestServer
let db: Fixtures

const mailTo = async (address: string, after = 0): Promise<ReceivedMail> => {
  await expect.poll(() => smtp.received.slice(after).some((m) => m.to.includes(address)), { timeout: 10_000 }).toBe(true)
  return smtp.received.slice(after).find((m) => m.to.includes(address))!
}

const tokenOf = (mail: ReceivedMail) => linkIn(mail, "/reset_password_complete").searchParams.get("token")!

describe("password reset by email", () => {
  beforeAll(async () => {
    smtp = await startSmtpServer()
    server = await startServer({ env: { SERVICE_SMTP_URL: smtp.url, SERVICE_EMAIL_FROM: "Chat <chat@example.com>" } })
    db = await Fixtures.open(server.databaseUrl)
    await newUser(server.url, "resetadmin") // the first account is the admin; the others are ordinary users
  })
  afterAll(async () => {
    await db?.close()
    await server?.close()
    await smtp?.close()
  })

  it("config/client offers the forgot-password link and email notifications once SMTP is configured", async () => {
    const config = await client4(server.url).getClientConfig() as Record<string, string>
    expect(config.PasswordEnableForgotLink).toBe("true")
    const user = await newUser(server.url, "cfg")
    expect(((await user.client.getClientConfig()) as Record<string, string>).SendEmailNotifications).toBe("true")
  })

  it("mails a one-time link valid for an hour; following it sets the password, signs every session out, and works once", async () => {
    const user = await newUser(server.url, "forgot")
    const second = client4(server.url)
    await second.login(user.username, user.password)
    const anonymous = client4(server.url)
    const before = smtp.received.length
    expect(await anonymous.sendPasswordResetEmail(user.user.email)).toEqual({ status: "OK" })
    const mail = await mailTo(user.user.email, before)
    expect(mail.from).toBe("chat@example.com")
    expect(mail.subject).toContain("Reset your password")
    const link = linkIn(mail, "/reset_password_complete")
    expect(`${link.origin}${link.pathname}`).toBe(`${server.config.siteUrl}/reset_password_complete`)
    expect(mail.html).toContain(link.toString().replace(/&/g, "&amp;"))
    const token = tokenOf(mail)
    // Stored hashed: the token itself is nowhere in the database.
    const stored = await db.query("SELECT token_hash, expires_at - create_at AS lifetime FROM user_tokens WHERE user_id = $1", [user.user.id])
    expect(stored.rows).toHaveLength(1)
    expect(stored.rows[0].token_hash).not.toContain(token)
    expect(Number(stored.rows[0].lifetime)).toBe(60 * 60 * 1000)

    expect(await anonymous.resetUserPassword(token, "amber-meadow-falcon")).toEqual({ status: "OK" })
    for (const signedIn of [user.client, second]) await expect(signedIn.getMe()).rejects.toMatchObject({ status_code: 401 })
    await expect(client4(server.url).login(user.username, user.password)).rejects.toMatchObject({ status_code: 401 })
    expect((await client4(server.url).login(user.username, "amber-meadow-falcon")).id).toBe(user.user.id)
    // Reuse is refused, and the password stays the one set.
    await expect(anonymous.resetUserPassword(token, "other-orchid-velvet")).rejects.toMatchObject({
      status_code: 400,
      server_error_id: "api.user.reset_password.invalid_link.app_error"
    })
    expect((await client4(server.url).login(user.username, "amber-meadow-falcon")).id).toBe(user.user.id)
  })

  it("answers 200 for an unknown address and mails nothing", async () => {
    const user = await newUser(server.url, "known")
    const connections = smtp.connections()
    const before = smtp.received.length
    expect(await client4(server.url).sendPasswordResetEmail("nobody-here@example.com")).toEqual({ status: "OK" })
    // The queue is first in, first out: once the later mail has arrived, a mail for the first request would have too.
    await client4(server.url).sendPasswordResetEmail(user.user.email)
    await mailTo(user.user.email, before)
    expect(smtp.received.slice(before).map((m) => m.to)).toEqual([[user.user.email]])
    expect(smtp.connections() - connections).toBe(1)
  })

  it("only the latest link works, a weak password leaves the token usable, and an expired token is refused", async () => {
    const user = await newUser(server.url, "twice")
    const anonymous = client4(server.url)
    let before = smtp.received.length
    await anonymous.sendPasswordResetEmail(user.user.email.toUpperCase())
    const first = tokenOf(await mailTo(user.user.email, before))
    before = smtp.received.length
    await anonymous.sendPasswordResetEmail(user.user.email)
    const latest = tokenOf(await mailTo(user.user.email, before))
    await expect(anonymous.resetUserPassword(first, "amber-meadow-falcon")).rejects.toMatchObject({
      status_code: 400,
      server_error_id: "api.user.reset_password.invalid_link.app_error"
    })
    // The common-password rule of sign-up applies, before the token is spent.
    await expect(anonymous.resetUserPassword(latest, "password1")).rejects.toMatchObject({
      status_code: 400,
      server_error_id: "model.user.is_valid.pwd.app_error"
    })
    await expect(anonymous.resetUserPassword(latest, "short")).rejects.toMatchObject({
      status_code: 400,
      server_error_id: "model.user.is_valid.pwd_min_length.app_error"
    })
    // An hour later the link has expired.
    await db.query("UPDATE user_tokens SET expires_at = create_at - 1 WHERE user_id = $1", [user.user.id])
    await expect(anonymous.resetUserPassword(latest, "amber-meadow-falcon")).rejects.toMatchObject({
      status_code: 400,
      server_error_id: "api.user.reset_password.link_expired.app_error"
    })
    expect((await client4(server.url).login(user.username, user.password)).id).toBe(user.user.id)
  })

  it("the periodic sweep deletes expired links and keeps live ones", async () => {
    const stale = await newUser(server.url, "stale")
    const fresh = await newUser(server.url, "fresh")
    const anonymous = client4(server.url)
    for (const user of [stale, fresh]) {
      const before = smtp.received.length
      await anonymous.sendPasswordResetEmail(user.user.email)
      await mailTo(user.user.email, before)
    }
    // An hour later the stale one has expired.
    await db.query("UPDATE user_tokens SET expires_at = create_at - 1 WHERE user_id = $1", [stale.user.id])
    const swept = await server.runtime.runPromise(sweepExpiredTokens)
    expect(swept).toBeGreaterThanOrEqual(1)
    const left = await db.query("SELECT user_id FROM user_tokens WHERE user_id = ANY($1)", [[stale.user.id, fresh.user.id]])
    expect(left.rows.map((r) => r.user_id)).toEqual([fresh.user.id])
    expect((await db.query("SELECT count(*)::int AS n FROM user_tokens WHERE expires_at < $1", [Date.now()])).rows[0].n).toBe(0)
  })

  it("refuses bad input with Mattermost's error body", async () => {
    const post = (path: string, body: unknown) =>
      fetch(`${server.url}/api/v4/users/password/${path}`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: typeof body === "string" ? body : JSON.stringify(body)
      })
    const cases: Array<[string, unknown, string]> = [
      ["reset/send", {}, "api.context.invalid_param.app_error"],
      ["reset/send", { email: "" }, "api.context.invalid_param.app_error"],
      ["reset/send", { email: "not-an-address" }, "api.context.invalid_param.app_error"],
      ["reset/send", { email: `${"a".repeat(5000)}@example.com` }, "api.context.invalid_param.app_error"],
      ["reset/send", "{not json", ""],
      ["reset", { new_password: "amber-meadow-falcon" }, "api.context.invalid_param.app_error"],
      ["reset", { token: "x".repeat(43) }, "api.context.invalid_param.app_error"],
      ["reset", { token: "../../etc", new_password: "amber-meadow-falcon" }, "api.user.reset_password.invalid_link.app_error"],
      ["reset", { code: "y".repeat(43), new_password: "amber-meadow-falcon" }, "api.user.reset_password.invalid_link.app_error"],
      ["reset", { token: "z".repeat(5000), new_password: "amber-meadow-falcon" }, "api.user.reset_password.invalid_link.app_error"]
    ]
    for (const [path, body, id] of cases) {
      const response = await post(path, body)
      expect(response.status, `${path} ${JSON.stringify(body).slice(0, 60)}`).toBe(400)
      expect(response.headers.get("content-type")).toBe("application/json")
      const error = await response.json()
      expect(error).toMatchObject({ status_code: 400 })
      expect(Object.keys(error).sort()).toEqual(["detailed_error", "id", "message", "request_id", "status_code"])
      if (id !== "") expect(error.id).toBe(id)
      expect(JSON.stringify(error)).not.toContain("a".repeat(300))
    }
  })
})

describe("a server without email", () => {
  let plain: TestServer
  beforeAll(async () => {
    plain = await startServer()
  })
  afterAll(async () => {
    await plain?.close()
  })

  it("config/client hides the forgot-password link and asking for one answers 501 with the error body", async () => {
    const config = await client4(plain.url).getClientConfig() as Record<string, string>
    expect(config.PasswordEnableForgotLink).toBe("false")
    await expect(client4(plain.url).sendPasswordResetEmail("someone@example.com")).rejects.toMatchObject({
      status_code: 501,
      server_error_id: "api.user.send_password_reset.disabled.app_error"
    })
  })

  it("email invitations and verification are off too, answering 501", async () => {
    const { owner, team } = await teamOfTwo(plain.url, ["nomailowner", "nomailmember"])
    expect((await owner.client.getClientConfig() as Record<string, string>).EnableEmailInvitations).toBe("false")
    expect((await owner.client.getClientConfig() as Record<string, string>).SendEmailNotifications).toBe("false")
    await expect(owner.client.sendEmailInvitesToTeam(team.id, ["x@example.com"])).rejects.toMatchObject({
      status_code: 501,
      server_error_id: "api.team.invite_members.disabled.app_error"
    })
    await expect(client4(plain.url).sendVerificationEmail(owner.user.email)).rejects.toMatchObject({ status_code: 501 })
  })
})

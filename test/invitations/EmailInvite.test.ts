import type { Team } from "@mattermost/types/teams"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectShape, Wire } from "../compat/Shapes.ts"
import { client4, newUser, unique } from "../support/Clients.ts"
import { type LoopbackSmtp, linkIn, type ReceivedMail, startSmtpServer } from "../support/SmtpServer.ts"
import { teamOfTwo } from "../support/Teams.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * Team invitations by mail and email verification, through Client4 and a real SMTP server on loopback: the invite
 * mail's link signs a stranger up into the team; the verification mail's token verifies the address once.
 */
let smtp: LoopbackSmtp
let server: TestServer
let admin: Awaited<ReturnType<typeof newUser>>

const mailsTo = (address: string) => smtp.received.filter((m) => m.to.includes(address))
const mailTo = async (address: string): Promise<ReceivedMail> => {
  await expect.poll(() => mailsTo(address).length, { timeout: 10_000 }).toBeGreaterThan(0)
  return mailsTo(address).at(-1)!
}

describe("team invitations and email verification by email", () => {
  beforeAll(async () => {
    smtp = await startSmtpServer()
    server = await startServer({ env: { SERVICE_SMTP_URL: smtp.url, SERVICE_EMAIL_FROM: "chat@example.com" } })
    admin = await newUser(server.url, "invadmin")
  })
  afterAll(async () => {
    await server?.close()
    await smtp?.close()
  })

  it("config/client offers email invitations once SMTP is configured", async () => {
    expect((await admin.client.getClientConfig() as Record<string, string>).EnableEmailInvitations).toBe("true")
  })

  it("a team member mails the team's invite link; following it signs the stranger up into the team", async () => {
    const { member, team } = await teamOfTwo(server.url, ["invowner", "invmember"], { display_name: "Rock & <Roll>" })
    const stranger = `${unique("stranger")}@example.com`
    expect(await member.client.sendEmailInvitesToTeam(team.id, [stranger])).toEqual({ status: "OK" })
    const mail = await mailTo(stranger)
    expect(mail.subject).toContain("Rock & <Roll>")
    expect(mail.html).toContain("Rock &amp; &lt;Roll&gt;")
    const link = linkIn(mail, "/signup_user_complete/")
    const inviteId = link.searchParams.get("id")!
    const fresh = await member.client.getTeam(team.id)
    expect(inviteId).toBe((await admin.client.getTeam(team.id)).invite_id)
    expect(fresh.id).toBe(team.id)
    // The web app's sign-up page posts the new account with the invite id.
    const username = unique("joiner").slice(0, 20)
    const created = await client4(server.url).createUser({ username, email: stranger, password: "copper-willow-lantern" } as never, "", inviteId)
    const members = await admin.client.getTeamMembersByIds(team.id, [created.id])
    expect(members.map((m) => m.user_id)).toEqual([created.id])
  })

  it("graceful answers per address; allowed domains bound who can be invited", async () => {
    const { owner, team } = await teamOfTwo(server.url, ["gowner", "gmember"], { allowed_domains: "example.com" })
    const good = `${unique("good")}@example.com`
    const results = await owner.client.sendEmailInvitesToTeamGracefully(team.id, [good, "someone@elsewhere.org", "not-an-address"])
    results.forEach((r: unknown, i: number) => expectShape(r, Wire.EmailInviteResult, `results[${i}]`))
    expect(results.map((r: { email: string; error: { id: string } | null }) => [r.email, r.error?.id ?? null])).toEqual([
      [good, null],
      ["someone@elsewhere.org", "api.team.invite_members.invalid_email.app_error"],
      ["not-an-address", "api.team.invite_members.invalid_email.app_error"]
    ])
    await mailTo(good)
    // Without graceful, one bad address refuses the whole request and nothing is sent.
    const other = `${unique("other")}@example.com`
    await expect(owner.client.sendEmailInvitesToTeam(team.id, [other, "someone@elsewhere.org"])).rejects.toMatchObject({
      status_code: 400,
      server_error_id: "api.team.invite_members.invalid_email.app_error"
    })
    await owner.client.sendEmailInvitesToTeam(team.id, [`${unique("after")}@example.com`])
    await expect.poll(() => smtp.received.some((m) => m.to.some((t) => t.startsWith("after"))), { timeout: 10_000 }).toBe(true)
    expect(mailsTo(other)).toHaveLength(0)
  })

  it("authorization: members and system admins may invite; outsiders may not; no session is a 401", async () => {
    const { team } = await teamOfTwo(server.url, ["aowner", "amember"])
    const outsider = await newUser(server.url, "outsider")
    const target = `${unique("authz")}@example.com`
    await expect(outsider.client.sendEmailInvitesToTeam(team.id, [target])).rejects.toMatchObject({ status_code: 403 })
    await expect(client4(server.url).sendEmailInvitesToTeam(team.id, [target])).rejects.toMatchObject({ status_code: 401 })
    expect(await admin.client.sendEmailInvitesToTeam(team.id, [target])).toEqual({ status: "OK" })
    await mailTo(target)
    await expect(admin.client.sendEmailInvitesToTeam("a".repeat(26), [target])).rejects.toMatchObject({ status_code: 404 })
  })

  it("refuses bad input with Mattermost's error body", async () => {
    const { owner, team } = await teamOfTwo(server.url, ["bowner", "bmember"])
    const post = (teamId: string, body: string) =>
      fetch(`${server.url}/api/v4/teams/${teamId}/invite/email`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${owner.client.getToken()}` },
        body
      })
    const cases: Array<[string, string]> = [
      [team.id, "[]"],
      [team.id, "{}"],
      [team.id, "\"a@example.com\""],
      [team.id, "[1, 2]"],
      [team.id, JSON.stringify(Array.from({ length: 51 }, (_, i) => `p${i}@example.com`))],
      [team.id, JSON.stringify([`${"a".repeat(3000)}@example.com`])],
      [team.id, "not json"],
      ["not-an-id", "[\"a@example.com\"]"]
    ]
    for (const [teamId, body] of cases) {
      const response = await post(teamId, body)
      expect(response.status, body.slice(0, 40)).toBe(400)
      const error = await response.json()
      expect(Object.keys(error).sort()).toEqual(["detailed_error", "id", "message", "request_id", "status_code"])
      expect(JSON.stringify(error)).not.toContain("a".repeat(300))
    }
    const archived: Team = await owner.client.createTeam({ name: unique("gone"), display_name: "Gone", type: "O" } as Team)
    await owner.client.deleteTeam(archived.id)
    await expect(owner.client.sendEmailInvitesToTeam(archived.id, ["x@example.com"])).rejects.toMatchObject({
      status_code: 400,
      server_error_id: "api.team.invite_members.archived.app_error"
    })
  })

  it("email verification mails a one-time link for an unverified address; the token verifies it once; unknown addresses get nothing", async () => {
    const user = await newUser(server.url, "verify")
    const anonymous = client4(server.url)
    expect(await anonymous.sendVerificationEmail(user.user.email)).toEqual({ status: "OK" })
    expect(await anonymous.sendVerificationEmail("nobody-at-all@example.com")).toEqual({ status: "OK" })
    const mail = await mailTo(user.user.email)
    const link = linkIn(mail, "/do_verify_email")
    const token = link.searchParams.get("token")!
    expect((await user.client.getMe() as { email_verified?: boolean }).email_verified).toBe(false)
    expect(await anonymous.verifyUserEmail(token)).toEqual({ status: "OK" })
    expect((await user.client.getMe() as { email_verified?: boolean }).email_verified).toBe(true)
    await expect(anonymous.verifyUserEmail(token)).rejects.toMatchObject({ status_code: 400, server_error_id: "api.user.verify_email.bad_link.app_error" })
    await expect(anonymous.verifyUserEmail("short")).rejects.toMatchObject({ status_code: 400 })
    expect(mailsTo("nobody-at-all@example.com")).toHaveLength(0)
  })
})

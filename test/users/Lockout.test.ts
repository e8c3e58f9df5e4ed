import type { Client4 } from "@mattermost/client"
import * as OTPAuth from "otpauth"
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest"
import { client4, failureOf, newUser } from "../support/Clients.ts"
import { type LoopbackSmtp, linkIn, startSmtpServer } from "../support/SmtpServer.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * Mattermost's per-account lockout (ServiceSettings.MaximumLoginAttempts) through the official Client4: two nodes on
 * one database, each trusting the loopback proxy, so that every attempt can come from an address of its own
 * (X-Forwarded-For), as a distributed guesser's would.
 */
let smtp: LoopbackSmtp
let nodeA: TestServer
let nodeB: TestServer
let admin: Awaited<ReturnType<typeof newUser>>

const INVALID = "api.user.login.invalid_credentials_email_username"
const LOCKED = "api.user.check_user_login_attempts.too_many.app_error"
let address = 0

/** A Client4 on `node` whose requests come, through the trusted proxy, from an address never used before. */
const fromNewAddress = (node: TestServer): Client4 => {
  address += 1
  const client = client4(node.url)
  client.setHeader("X-Forwarded-For", `198.51.${100 + Math.floor(address / 250)}.${(address % 250) + 1}`)
  return client
}

/** Signs in on alternate nodes, each time from a new address; the status and error id, or "ok". */
const attempt = async (i: number, login: string, password: string, token?: string) => {
  const client = fromNewAddress(i % 2 === 0 ? nodeA : nodeB)
  try {
    await client.login(login, password, token)
    return "ok"
  } catch (e) {
    const error = e as { status_code: number; server_error_id: string }
    return `${error.status_code} ${error.server_error_id}`
  }
}

const failedAttempts = async (userId: string) => (await admin.client.getUser(userId)).failed_attempts

const setMaximum = (n: number) => admin.client.patchConfig({ ServiceSettings: { MaximumLoginAttempts: n } } as never)

describe("per-account lockout", () => {
  beforeAll(async () => {
    smtp = await startSmtpServer()
    const env = {
      SERVICE_TRUSTED_PROXIES: "127.0.0.0/8,::1/128",
      SERVICE_LOG_LEVEL: "warn",
      SERVICE_SMTP_URL: smtp.url,
      SERVICE_EMAIL_FROM: "Chat <chat@example.com>"
    }
    nodeA = await startServer({ env })
    nodeB = await startServer({ env, databaseUrl: nodeA.databaseUrl })
    admin = await newUser(nodeA.url, "lockadmin") // the first account: system admin
  })
  afterEach(async () => {
    await setMaximum(10)
  })
  afterAll(async () => {
    await nodeB?.close()
    await nodeA?.close()
    await smtp?.close()
  })

  it("locks an account after 10 wrong passwords from 10 addresses on two nodes; the right one is then refused; an admin's new password unlocks it", async () => {
    const user = await newUser(nodeA.url, "locked")
    const lines: Array<string> = []
    const spy = vi.spyOn(console, "log").mockImplementation((...args: Array<unknown>) => void lines.push(args.join(" ")))
    const results: Array<string> = []
    try {
      for (let i = 0; i < 10; i++) results.push(await attempt(i, user.username, `wrong-guess-number-${i}`))
      expect(results).toEqual(Array(10).fill(`401 ${INVALID}`))
      expect(await failedAttempts(user.user.id)).toBe(10)
      // The right password, on either node, from yet another address: refused with Mattermost's error, and so is
      // every further guess (which no longer counts).
      expect(await attempt(10, user.username, user.password)).toBe(`401 ${LOCKED}`)
      expect(await attempt(11, user.user.email, user.password)).toBe(`401 ${LOCKED}`)
      expect(await attempt(12, user.username, "another-wrong-guess")).toBe(`401 ${LOCKED}`)
    } finally {
      spy.mockRestore()
    }
    expect(await failedAttempts(user.user.id)).toBe(10)
    // The security events: the lock once, then each refused sign-in; with the account and address, never a password.
    const locked = lines.filter((l) => l.includes("Account locked after failed sign-ins"))
    expect(locked).toHaveLength(1)
    expect(locked[0]).toContain(user.user.id)
    expect(locked[0]).toContain("severity=Warning")
    expect(lines.filter((l) => l.includes("Sign-in to a locked account refused") && l.includes(user.user.id))).toHaveLength(3)
    expect(lines.some((l) => l.includes(user.password) || l.includes("wrong-guess-number"))).toBe(false)
    // The user's own session may not change the password while locked (Mattermost's DoubleCheckPassword).
    expect(await failureOf(user.client.updateUserPassword(user.user.id, user.password, "saffron-kettle-drum"))).toEqual({ status: 401, id: LOCKED })
    // An administrator sets a new password: the count is reset and the new password signs in, on the other node.
    expect(await admin.client.updateUserPassword(user.user.id, "", "saffron-kettle-drum")).toEqual({ status: "OK" })
    expect(await failedAttempts(user.user.id)).toBe(0)
    expect(await attempt(1, user.username, "saffron-kettle-drum")).toBe("ok")
  })

  it("resets the count on a right password, so that only consecutive failures lock", async () => {
    const user = await newUser(nodeB.url, "resets")
    for (let i = 0; i < 9; i++) expect(await attempt(i, user.username, `wrong-guess-${i}`)).toBe(`401 ${INVALID}`)
    expect(await failedAttempts(user.user.id)).toBe(9)
    expect(await attempt(9, user.username, user.password)).toBe("ok")
    expect(await failedAttempts(user.user.id)).toBe(0)
    for (let i = 0; i < 9; i++) expect(await attempt(i, user.username, `wrong-guess-${i}`)).toBe(`401 ${INVALID}`)
    expect(await attempt(9, user.username, user.password)).toBe("ok")
  })

  it("takes the maximum from ServiceSettings.MaximumLoginAttempts, which an admin changes at run time", async () => {
    expect(await failureOf(admin.client.patchConfig({ ServiceSettings: { MaximumLoginAttempts: 0 } } as never)))
      .toEqual({ status: 400, id: "model.config.is_valid.login_attempts.app_error" })
    await setMaximum(3)
    expect((await admin.client.getConfig()).ServiceSettings.MaximumLoginAttempts).toBe(3)
    const user = await newUser(nodeA.url, "three")
    for (let i = 0; i < 3; i++) expect(await attempt(i, user.username, `wrong-guess-${i}`)).toBe(`401 ${INVALID}`)
    expect(await attempt(3, user.username, user.password)).toBe(`401 ${LOCKED}`)
    // Raised again, the account may try once more (Mattermost compares the count with the current maximum).
    await setMaximum(4)
    expect(await attempt(4, user.username, user.password)).toBe("ok")
  })

  it("lets through at most the maximum of guesses however many race on both nodes", async () => {
    await setMaximum(5)
    const user = await newUser(nodeA.url, "racing")
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => attempt(i, user.username, `racing-guess-${i}`)))
    expect(results.filter((r) => r === `401 ${INVALID}`)).toHaveLength(5)
    expect(results.filter((r) => r === `401 ${LOCKED}`)).toHaveLength(25)
    expect(await failedAttempts(user.user.id)).toBe(5)
  })

  it("is lifted by the user's own password reset by email", async () => {
    const user = await newUser(nodeB.url, "mailed")
    for (let i = 0; i < 10; i++) await attempt(i, user.username, `wrong-guess-${i}`)
    expect(await attempt(10, user.username, user.password)).toBe(`401 ${LOCKED}`)
    const before = smtp.received.length
    expect(await client4(nodeA.url).sendPasswordResetEmail(user.user.email)).toEqual({ status: "OK" })
    await expect.poll(() => smtp.received.slice(before).some((m) => m.to.includes(user.user.email)), { timeout: 10_000 }).toBe(true)
    const mail = smtp.received.slice(before).find((m) => m.to.includes(user.user.email))!
    const token = linkIn(mail, "/reset_password_complete").searchParams.get("token")!
    expect(await client4(nodeB.url).resetUserPassword(token, "lilac-compass-river")).toEqual({ status: "OK" })
    expect(await failedAttempts(user.user.id)).toBe(0)
    expect(await attempt(0, user.username, "lilac-compass-river")).toBe("ok")
  })

  it("counts a wrong current password on a password or email change, as Mattermost does", async () => {
    await setMaximum(3)
    const user = await newUser(nodeA.url, "changer")
    expect(await failureOf(user.client.updateUserPassword(user.user.id, "not-my-password", "violet-harbor-engine")))
      .toEqual({ status: 400, id: "api.user.update_password.incorrect.app_error" })
    expect(await failureOf(user.client.patchMe({ email: `${user.username}.new@example.com`, password: "not-my-password" } as never)))
      .toEqual({ status: 400, id: "api.user.check_user_password.invalid.app_error" })
    expect(await failedAttempts(user.user.id)).toBe(2)
    // A right one clears the count.
    expect(await user.client.updateUserPassword(user.user.id, user.password, "violet-harbor-engine")).toEqual({ status: "OK" })
    expect(await failedAttempts(user.user.id)).toBe(0)
  })

  it("counts wrong second-factor codes but not a sign-in that has not sent one yet", async () => {
    await setMaximum(3)
    const user = await newUser(nodeA.url, "twofactor")
    const { secret } = await user.client.generateMfaSecret(user.user.id)
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: "SHA1" })
    await user.client.updateUserMfa(user.user.id, true, totp.generate())
    // The apps first sign in without a code to learn that one is needed: never counted.
    for (let i = 0; i < 5; i++) expect(await attempt(i, user.username, user.password)).toBe("401 mfa.validate_token.authenticate.app_error")
    expect(await failedAttempts(user.user.id)).toBe(0)
    const wrong = totp.generate({ timestamp: Date.now() + 10 * 60_000 }) // valid ten minutes from now: wrong now
    expect(await attempt(0, user.username, user.password, wrong)).toBe("401 api.user.check_user_mfa.bad_code.app_error")
    expect(await attempt(1, user.username, "wrong-password-x", wrong)).toBe(`401 ${INVALID}`)
    expect(await failedAttempts(user.user.id)).toBe(2)
    expect(await attempt(2, user.username, user.password, wrong)).toBe("401 api.user.check_user_mfa.bad_code.app_error")
    expect(await attempt(3, user.username, user.password, totp.generate())).toBe(`401 ${LOCKED}`)
  })
})

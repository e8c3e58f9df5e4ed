import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client4, failureOf, newUser } from "../support/Clients.ts"
import { type LoopbackSmtp, linkIn, startSmtpServer } from "../support/SmtpServer.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * The password rules, with Mattermost's error body, wherever a password is set: sign-up, the user's own change, an
 * admin's, the reset link (the command line's: test/cli/Admin.test.ts). Common passwords; whitespace-only and
 * invisible ones; a password that is (or holds) the account's username or email address; long runs of one
 * character.
 */
let server: TestServer
let smtp: LoopbackSmtp
let admin: Awaited<ReturnType<typeof newUser>>

const PWD = "model.user.is_valid.pwd.app_error"
const LENGTH = "model.user.is_valid.pwd_min_length.app_error"
const PERSONAL = "model.user.is_valid.pwd_personal.app_error"
const REPEATED = "model.user.is_valid.pwd_repeated.app_error"

/** Invisible characters: zero-width space, joiner and non-joiner, word joiner, BOM, a Hangul filler, a direction mark. */
const ZW = "\u200b"
const INVISIBLES = "\u200b\u200c\u200d\u2060\ufeff\u3164\u200e\u180e"

let n = 0
const fresh = (prefix: string) => `${prefix}${Date.now().toString(36)}${n++}`

/** What each rule refuses, for an account named `username` with the address `email`. */
const refusedFor = (username: string, email: string): ReadonlyArray<readonly [string, string]> => [
  [ZW.repeat(8), PWD],
  [INVISIBLES.repeat(2), PWD],
  ["\u3000\u2003\u00a0 \t\u2028\u2029\u3000\u2003\u00a0", PWD],
  [`${ZW.repeat(12)}ab`, LENGTH],
  [username, PERSONAL],
  [username.toUpperCase(), PERSONAL],
  [email, PERSONAL],
  [`My-${username}-2024!`, PERSONAL],
  [`${email.split("@")[0]}!rocks`, PERSONAL],
  ["a".repeat(16), REPEATED],
  ["correct-horse-zzzzzzz", REPEATED],
  ["abababababab", REPEATED]
]

describe("password rules", () => {
  beforeAll(async () => {
    smtp = await startSmtpServer()
    server = await startServer({ env: { SERVICE_SMTP_URL: smtp.url, SERVICE_EMAIL_FROM: "Chat <chat@example.com>" } })
    admin = await newUser(server.url, "pwadmin") // the first account: system admin
  })
  afterAll(async () => {
    await server?.close()
    await smtp?.close()
  })

  it("refuses the most common passwords (any case) and whitespace-only ones on sign-up", async () => {
    const client = client4(server.url)
    for (const password of ["password", "12345678", "password123", "Welcome123", "PassWord", "QWERTYUIOP", " ".repeat(10), "\t\t\t\t        "]) {
      const username = fresh("weak")
      await expect(client.createUser({ username, email: `${username}@example.com`, password } as never, "", ""))
        .rejects.toMatchObject({ status_code: 400, server_error_id: PWD })
    }
    const username = fresh("strong")
    const created = await client.createUser({ username, email: `${username}@example.com`, password: "plum-lantern-orbit" } as never, "", "")
    expect(created.username).toBe(username)
  })

  it("refuses them on password change, for the user and for an admin setting it", async () => {
    const user = await newUser(server.url, "pwuser")
    await expect(user.client.updateUserPassword(user.user.id, user.password, "iloveyou"))
      .rejects.toMatchObject({ status_code: 400, server_error_id: PWD })
    await expect(admin.client.updateUserPassword(user.user.id, "", "Sunshine"))
      .rejects.toMatchObject({ status_code: 400, server_error_id: PWD })
    await expect(user.client.updateUserPassword(user.user.id, user.password, "          "))
      .rejects.toMatchObject({ status_code: 400, server_error_id: PWD })
    expect(await user.client.updateUserPassword(user.user.id, user.password, "violet-harbor-engine")).toEqual({ status: "OK" })
  })

  it("refuses invisible, personal and repetitive passwords on sign-up, with a message saying why", async () => {
    const client = client4(server.url)
    const username = fresh("rules")
    const email = `${username}.mail@example.com`
    for (const [password, id] of refusedFor(username, email)) {
      const failure = await client.createUser({ username, email, password } as never, "", "").then(
        () => ({ status: 201, id: "", message: "" }),
        (e: { status_code: number; server_error_id: string; message: string }) => ({ status: e.status_code, id: e.server_error_id, message: e.message })
      )
      expect({ password: JSON.stringify(password), status: failure.status, id: failure.id }).toEqual({ password: JSON.stringify(password), status: 400, id })
      expect(failure.message).toMatch(/^Your password must/)
    }
    // Spaces inside a passphrase, and visible characters around invisible ones, are fine.
    const created = await client.createUser({ username, email, password: `quiet harbor${ZW}lantern` } as never, "", "")
    expect(created.username).toBe(username)
    expect((await client4(server.url).login(username, `quiet harbor${ZW}lantern`)).id).toBe(created.id)
  })

  it("refuses them on the user's own change and on an admin's, judged against that account's name and address", async () => {
    const user = await newUser(server.url, "pwchange")
    for (const [password, id] of refusedFor(user.username, user.user.email)) {
      expect(await failureOf(user.client.updateUserPassword(user.user.id, user.password, password))).toEqual({ status: 400, id })
      expect(await failureOf(admin.client.updateUserPassword(user.user.id, "", password))).toEqual({ status: 400, id })
    }
    // The admin's own name is no reason to refuse the user's password.
    expect(await admin.client.updateUserPassword(user.user.id, "", `${admin.username}-garden-gate`)).toEqual({ status: "OK" })
    expect((await client4(server.url).login(user.username, `${admin.username}-garden-gate`)).id).toBe(user.user.id)
  })

  it("refuses them on the reset link, which keeps working for a better password", async () => {
    const user = await newUser(server.url, "pwreset")
    const before = smtp.received.length
    await client4(server.url).sendPasswordResetEmail(user.user.email)
    await expect.poll(() => smtp.received.slice(before).some((m) => m.to.includes(user.user.email)), { timeout: 10_000 }).toBe(true)
    const mail = smtp.received.slice(before).find((m) => m.to.includes(user.user.email))!
    const token = linkIn(mail, "/reset_password_complete").searchParams.get("token")!
    const anonymous = client4(server.url)
    for (const [password, id] of refusedFor(user.username, user.user.email)) {
      expect(await failureOf(anonymous.resetUserPassword(token, password))).toEqual({ status: 400, id })
    }
    expect(await anonymous.resetUserPassword(token, "juniper-anvil-meadow")).toEqual({ status: "OK" })
    expect((await client4(server.url).login(user.username, "juniper-anvil-meadow")).id).toBe(user.user.id)
  })
})

import * as OTPAuth from "otpauth"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Fixtures } from "../files/Fixtures.ts"
import { expectShape, Wire } from "../compat/Shapes.ts"
import { client4, newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/** TOTP two-factor sign-in through Client4, with codes generated from the secret as an authenticator app would. */
let server: TestServer
let db: Fixtures
let admin: Awaited<ReturnType<typeof newUser>>

const codeAt = (secret: string, offsetSteps = 0) =>
  new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: "SHA1" })
    .generate({ timestamp: Date.now() + offsetSteps * 30_000 })

const enrol = async (user: Awaited<ReturnType<typeof newUser>>) => {
  const { secret } = await user.client.generateMfaSecret(user.user.id)
  await user.client.updateUserMfa(user.user.id, true, codeAt(secret))
  return secret
}

describe("TOTP two-factor authentication", () => {
  beforeAll(async () => {
    server = await startServer()
    db = await Fixtures.open(server.databaseUrl)
    admin = await newUser(server.url, "mfaadmin")
  })
  afterAll(async () => {
    await db?.close()
    await server?.close()
  })

  it("generates a secret and its QR code, activates with a valid code only, and stores the secret encrypted", async () => {
    expect((await admin.client.getClientConfig() as Record<string, string>).EnableMultifactorAuthentication).toBe("true")
    const user = await newUser(server.url, "mfa")
    const generated = expectShape(await user.client.generateMfaSecret(user.user.id), Wire.MfaSecret, "mfa secret")
    expect(generated.secret).toMatch(/^[A-Z2-7]{32}$/)
    expect(Buffer.from(generated.qr_code, "base64").subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
    const [row] = (await db.query("SELECT secret FROM user_mfa WHERE user_id = $1", [user.user.id])).rows
    expect(row.secret).not.toContain(generated.secret)
    await expect(user.client.updateUserMfa(user.user.id, true, "000000")).rejects.toMatchObject({ status_code: 400, server_error_id: "mfa.activate.bad_token.app_error" })
    await expect(user.client.updateUserMfa(user.user.id, true, "")).rejects.toMatchObject({ status_code: 400 })
    expect((await user.client.getMe()).mfa_active).toBe(false)
    expect(await user.client.updateUserMfa(user.user.id, true, codeAt(generated.secret))).toEqual({ status: "OK" })
    expect((await user.client.getMe()).mfa_active).toBe(true)
    // Generating again while active would replace the secret behind the user's back: refused.
    await expect(user.client.generateMfaSecret(user.user.id)).rejects.toMatchObject({ status_code: 400 })
  })

  it("login asks for the code once active, after the password; a code works once; POST /users/mfa tells who needs one", async () => {
    const user = await newUser(server.url, "mfalogin")
    const secret = await enrol(user)
    const anonymous = client4(server.url)
    expect(expectShape(await anonymous.checkUserMfa(user.username), Wire.MfaRequired, "mfa required")).toEqual({ mfa_required: true })
    expect(await anonymous.checkUserMfa(admin.username)).toEqual({ mfa_required: false })
    expect(await anonymous.checkUserMfa("no-such-login")).toEqual({ mfa_required: false })
    // A wrong password says nothing about MFA.
    await expect(anonymous.login(user.username, "wrong-password-here")).rejects.toMatchObject({
      status_code: 401,
      server_error_id: "api.user.login.invalid_credentials_email_username"
    })
    await expect(anonymous.login(user.username, user.password)).rejects.toMatchObject({
      status_code: 401,
      server_error_id: "mfa.validate_token.authenticate.app_error"
    })
    await expect(anonymous.login(user.username, user.password, "123456")).rejects.toMatchObject({
      status_code: 401,
      server_error_id: "api.user.check_user_mfa.bad_code.app_error"
    })
    // The activation spent the current step; the next step's code (accepted one step ahead) signs in, once.
    const next = codeAt(secret, 1)
    expect((await client4(server.url).login(user.username, user.password, next)).id).toBe(user.user.id)
    await expect(client4(server.url).login(user.username, user.password, next)).rejects.toMatchObject({
      status_code: 401,
      server_error_id: "api.user.check_user_mfa.bad_code.app_error"
    })
    // Deactivated by the user, sign-in needs the password only.
    expect(await user.client.updateUserMfa(user.user.id, false, "")).toEqual({ status: "OK" })
    expect((await client4(server.url).login(user.username, user.password)).id).toBe(user.user.id)
    expect((await db.query("SELECT count(*)::int AS n FROM user_mfa WHERE user_id = $1", [user.user.id])).rows[0].n).toBe(0)
  })

  it("authorization: a system admin resets a user's MFA; other users may not touch it; no session is a 401", async () => {
    const user = await newUser(server.url, "mfareset")
    const other = await newUser(server.url, "mfaother")
    await enrol(user)
    await expect(other.client.updateUserMfa(user.user.id, false, "")).rejects.toMatchObject({ status_code: 403 })
    await expect(other.client.generateMfaSecret(user.user.id)).rejects.toMatchObject({ status_code: 403 })
    await expect(client4(server.url).updateUserMfa(user.user.id, false, "")).rejects.toMatchObject({ status_code: 401 })
    await expect(client4(server.url).generateMfaSecret(user.user.id)).rejects.toMatchObject({ status_code: 401 })
    expect(await admin.client.updateUserMfa(user.user.id, false, "")).toEqual({ status: "OK" })
    expect((await client4(server.url).login(user.username, user.password)).mfa_active).toBe(false)
    await expect(admin.client.updateUserMfa("a".repeat(26), false, "")).rejects.toMatchObject({ status_code: 404 })
  })

  it("refuses bad input with Mattermost's error body", async () => {
    const user = await newUser(server.url, "mfabad")
    const call = (method: string, path: string, body: string) =>
      fetch(`${server.url}/api/v4/users/${path}`, {
        method,
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${user.client.getToken()}` },
        body
      })
    const cases: Array<[string, string, string]> = [
      ["PUT", `${user.user.id}/mfa`, "{}"],
      ["PUT", `${user.user.id}/mfa`, "{\"activate\":\"yes\"}"],
      ["PUT", `${user.user.id}/mfa`, JSON.stringify({ activate: true, code: "9".repeat(5000) })],
      ["PUT", `${user.user.id}/mfa`, "{\"activate\":true,\"code\":\"\"}"],
      ["PUT", "not-an-id/mfa", "{\"activate\":false}"],
      ["POST", "not-an-id/mfa/generate", ""],
      ["POST", "mfa", "{}"],
      ["POST", "mfa", "{\"login_id\":\"\"}"],
      ["POST", "mfa", JSON.stringify({ login_id: "x".repeat(5000) })]
    ]
    for (const [method, path, body] of cases) {
      const response = await call(method, path, body)
      expect(response.status, `${method} ${path} ${body.slice(0, 40)}`).toBe(400)
      const error = await response.json()
      expect(Object.keys(error).sort()).toEqual(["detailed_error", "id", "message", "request_id", "status_code"])
      expect(JSON.stringify(error)).not.toContain("9".repeat(300))
    }
    // Activating without a generated secret.
    await expect(user.client.updateUserMfa(user.user.id, true, "123456")).rejects.toMatchObject({ status_code: 400, server_error_id: "api.user.update_mfa.no_secret.app_error" })
  })
})

import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectShape, Wire } from "../compat/Shapes.ts"
import { client4, newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

let server: TestServer

beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server?.close())

describe("accounts through Client4", () => {
  it("signs up, logs in with the Token header, reads me, logs out and then gets 401", async () => {
    const anonymous = client4(server.url)
    const created = await anonymous.createUser({ username: "first", email: "first@example.com", password: "correct-horse-battery" } as never, "", "")
    expect(created.username).toBe("first")
    expect(created.roles).toBe("system_admin system_user")
    expect(created).not.toHaveProperty("password")

    const client = client4(server.url)
    const user = await client.login("first@example.com", "correct-horse-battery")
    expect(user.id).toBe(created.id)
    expect(client.getToken()).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/)

    const me = expectShape(await client.getMe(), Wire.User, "me")
    expect(me.id).toBe(created.id)
    expect(me.email).toBe("first@example.com")

    await client.logout()
    const stale = client4(server.url, (client as unknown as { token: string }).token)
    await expect(stale.getMe()).rejects.toMatchObject({ status_code: 401, server_error_id: "api.context.session_expired.app_error" })
  })

  it("answers POST /users/login/type as Mattermost without guest magic links: 404 (with the error body), for any login id", async () => {
    const { username } = await newUser(server.url, "logintype")
    expect((await client4(server.url).getClientConfig() as Record<string, string>).EnableGuestMagicLink).toBe("false")
    for (const loginId of [username, "nobody-here@example.com", ""]) {
      const response = await fetch(`${server.url}/api/v4/users/login/type`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ login_id: loginId })
      })
      expect(response.status).toBe(404)
      expect(response.headers.get("content-type")).toBe("application/json")
      expect(await response.json()).toMatchObject({ id: "api.user.login_type.disabled.app_error", status_code: 404 })
    }
    await expect(client4(server.url).getUserLoginType(username)).rejects.toMatchObject({ status_code: 404, server_error_id: "api.user.login_type.disabled.app_error" })
  })

  it("makes only the first user a system admin", async () => {
    const { user } = await newUser(server.url, "second")
    expect(user.roles).toBe("system_user")
  })

  it("refuses a wrong password with 401 and the Mattermost error body", async () => {
    const { username } = await newUser(server.url, "wrongpw")
    await expect(client4(server.url).login(username, "not-the-password")).rejects.toMatchObject({
      status_code: 401,
      server_error_id: "api.user.login.invalid_credentials_email_username"
    })
  })
})

import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client4, newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/** Common and whitespace-only passwords are refused on sign-up and password change, with Mattermost's error body. */
let server: TestServer
let admin: Awaited<ReturnType<typeof newUser>>

describe("password rules", () => {
  beforeAll(async () => {
    server = await startServer()
    admin = await newUser(server.url, "pwadmin") // the first account: system admin
  })
  afterAll(async () => {
    await server?.close()
  })

  it("refuses the most common passwords (any case) and whitespace-only ones on sign-up", async () => {
    const client = client4(server.url)
    let n = 0
    for (const password of ["password", "12345678", "password123", "Welcome123", "PassWord", "QWERTYUIOP", " ".repeat(10), "\t\t\t\t        "]) {
      const username = `weak${Date.now().toString(36)}${n++}`
      await expect(client.createUser({ username, email: `${username}@example.com`, password } as never, "", ""))
        .rejects.toMatchObject({ status_code: 400, server_error_id: "model.user.is_valid.pwd.app_error" })
    }
    const username = `strong${Date.now().toString(36)}`
    const created = await client.createUser({ username, email: `${username}@example.com`, password: "plum-lantern-orbit" } as never, "", "")
    expect(created.username).toBe(username)
  })

  it("refuses them on password change, for the user and for an admin setting it", async () => {
    const user = await newUser(server.url, "pwuser")
    await expect(user.client.updateUserPassword(user.user.id, user.password, "iloveyou"))
      .rejects.toMatchObject({ status_code: 400, server_error_id: "model.user.is_valid.pwd.app_error" })
    await expect(admin.client.updateUserPassword(user.user.id, "", "Sunshine"))
      .rejects.toMatchObject({ status_code: 400, server_error_id: "model.user.is_valid.pwd.app_error" })
    await expect(user.client.updateUserPassword(user.user.id, user.password, "          "))
      .rejects.toMatchObject({ status_code: 400, server_error_id: "model.user.is_valid.pwd.app_error" })
    expect(await user.client.updateUserPassword(user.user.id, user.password, "violet-harbor-engine")).toEqual({ status: "OK" })
  })
})

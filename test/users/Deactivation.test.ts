import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * DELETE /api/v4/users/{user_id} (Mattermost's deactivation) and POST /api/v4/users/sessions/revoke/all: who may,
 * and what each answers, through HTTP as the apps call them. The sockets they close are tested in
 * test/realtime/Revocation.test.ts.
 */
let server: TestServer
let admin: Awaited<ReturnType<typeof newUser>>

beforeAll(async () => {
  server = await startServer()
  admin = await newUser(server.url, "sysadmin") // the first account is the system admin
})
afterAll(async () => {
  await server?.close()
})

const call = async (token: string, method: string, path: string) => {
  const res = await fetch(`${server.url}/api/v4${path}`, { method, headers: { Authorization: `Bearer ${token}` } })
  expect(res.headers.get("content-type")).toBe("application/json")
  return { status: res.status, body: await res.json() as Record<string, unknown> }
}

describe("deleting a user", () => {
  it("deactivates the account for a system admin: 200, delete_at set, the user's sessions end, a second delete is fine", async () => {
    const bob = await newUser(server.url, "bob")
    expect(await call(admin.client.getToken(), "DELETE", `/users/${bob.user.id}`)).toEqual({ status: 200, body: { status: "OK" } })
    const seen = await call(admin.client.getToken(), "GET", `/users/${bob.user.id}`)
    expect(seen.body.delete_at).toEqual(expect.any(Number))
    expect(seen.body.delete_at).toBeGreaterThan(0)
    expect((await call(bob.client.getToken(), "GET", "/users/me")).status).toBe(401)
    expect((await call(admin.client.getToken(), "DELETE", `/users/${bob.user.id}`)).status).toBe(200)
  })

  it("refuses others: another user (403), oneself without EnableUserDeactivation (403), permanent deletion (403, not enabled)", async () => {
    const carol = await newUser(server.url, "carol")
    const dave = await newUser(server.url, "dave")
    expect(await call(carol.client.getToken(), "DELETE", `/users/${dave.user.id}`)).toMatchObject({ status: 403, body: { id: "api.context.permissions.app_error", status_code: 403 } })
    expect(await call(carol.client.getToken(), "DELETE", "/users/me")).toMatchObject({ status: 403, body: { id: "api.user.update_active.not_enable.app_error" } })
    expect(await call(admin.client.getToken(), "DELETE", `/users/${dave.user.id}?permanent=true`)).toMatchObject({ status: 403, body: { id: "api.user.delete_user.not_enabled.app_error" } })
    // Nothing happened to either account.
    expect((await call(carol.client.getToken(), "GET", "/users/me")).status).toBe(200)
    expect((await call(dave.client.getToken(), "GET", "/users/me")).body.delete_at).toBe(0)
  })

  it("answers 404 for an unknown user and 400 for a malformed id", async () => {
    expect(await call(admin.client.getToken(), "DELETE", `/users/${"x".repeat(26)}`)).toMatchObject({ status: 404, body: { id: "app.user.missing_account.const" } })
    expect((await call(admin.client.getToken(), "DELETE", "/users/not-an-id")).status).toBe(400)
  })
})

describe("revoking every session", () => {
  it("is for system admins only (403, nothing ended); for an admin it ends every session, the admin's own included", async () => {
    const erin = await newUser(server.url, "erin")
    expect(await call(erin.client.getToken(), "POST", "/users/sessions/revoke/all")).toMatchObject({ status: 403, body: { id: "api.context.permissions.app_error" } })
    expect((await call(admin.client.getToken(), "GET", "/users/me")).status).toBe(200)
    expect(await call(admin.client.getToken(), "POST", "/users/sessions/revoke/all")).toEqual({ status: 200, body: { status: "OK" } })
    expect((await call(erin.client.getToken(), "GET", "/users/me")).status).toBe(401)
    expect((await call(admin.client.getToken(), "GET", "/users/me")).status).toBe(401)
  })
})

import { Schema } from "effect"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { NewUserAccessToken, UserAccessToken } from "../../schemas/wire/AccessToken.ts"
import { raw } from "../compat/Raw.ts"
import { expectShape, Wire } from "../compat/Shapes.ts"
import { client4, failureOf, newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { eventually as socketEventually, MattermostSocket, wsUrl } from "../realtime/Sockets.ts"

/** Personal access tokens through Client4: creation, use as a Bearer token, listing, disabling, revoking, who may. */
let server: TestServer
let admin: Awaited<ReturnType<typeof newUser>>
let member: Awaited<ReturnType<typeof newUser>>
let other: Awaited<ReturnType<typeof newUser>>

beforeAll(async () => {
  server = await startServer()
  admin = await newUser(server.url, "admin")
  member = await newUser(server.url, "member")
  other = await newUser(server.url, "other")
})
afterAll(() => server?.close())

/** Status of a Client4 call that is expected to fail. */
const failure = failureOf

/** Polls until `check` holds (or fails after a few seconds). */
const eventually = async (check: () => Promise<boolean>) => {
  const until = Date.now() + 5000
  while (!(await check())) {
    if (Date.now() > until) throw new Error("condition not met in time")
    await new Promise((r) => setTimeout(r, 50))
  }
}

const meWith = (token: string) => raw(server.url, "/api/v4/users/me", { token })

describe("personal access tokens", () => {
  it("shows the secret once; the token authenticates as a UserAccessToken session; lists never show it", async () => {
    const created = await admin.client.createUserAccessToken(admin.user.id, "ci deploys")
    expect(created).toMatchObject({ user_id: admin.user.id, description: "ci deploys", is_active: true })
    expect(created.token).toMatch(/^[a-z0-9]{26}$/)
    expectShape(created, NewUserAccessToken, "created token")

    const asToken = client4(server.url, created.token!)
    expect((await asToken.getMe()).id).toBe(admin.user.id)
    const sessions = await admin.client.getSessions(admin.user.id)
    const tokenSession = sessions.find((s) => s.props?.type === "UserAccessToken")
    expect(tokenSession?.props).toMatchObject({ type: "UserAccessToken", user_access_token_id: created.id })

    const listed = await admin.client.getUserAccessTokensForUser(admin.user.id, 0, 100)
    expect(listed.map((t) => t.id)).toContain(created.id)
    expect(listed.every((t) => t.token === undefined)).toBe(true)
    expectShape(listed, Schema.Array(UserAccessToken), "a user's tokens")
    const fetched = await admin.client.getUserAccessToken(created.id)
    expectShape(fetched, UserAccessToken, "fetched token")
    expect(fetched).toEqual({ id: created.id, user_id: admin.user.id, description: "ci deploys", is_active: true, expires_at: 0 })
  })

  it("authenticates the official WebSocket client; revoking the token closes its socket", async () => {
    const created = await admin.client.createUserAccessToken(admin.user.id, "socket")
    const socket = new MattermostSocket(wsUrl(server.url), created.token!)
    try {
      await socket.connect()
      await socket.hello()
      await admin.client.revokeUserAccessToken(created.id)
      await socketEventually(() => socket.closes.length > 0 ? true : undefined, "close", 5000)
    } finally {
      socket.close()
    }
  })

  it("stores only a hash of the token", async () => {
    const created = await admin.client.createUserAccessToken(admin.user.id, "hashed")
    const db = new pg.Client({ connectionString: server.databaseUrl })
    await db.connect()
    try {
      const { rows } = await db.query("SELECT * FROM user_access_tokens WHERE id = $1", [created.id])
      expect(rows).toHaveLength(1)
      expect(JSON.stringify(rows[0])).not.toContain(created.token!)
    } finally {
      await db.end()
    }
  })

  it("disable stops the token at once, enable restores it, revoke ends it for good", async () => {
    const created = await admin.client.createUserAccessToken(admin.user.id, "lifecycle")
    expect((await meWith(created.token!)).status).toBe(200)
    expect(await admin.client.disableUserAccessToken(created.id)).toEqual({ status: "OK" })
    const refused = await meWith(created.token!)
    expect(refused.status).toBe(401)
    expect(refused.body.id).toBe("api.context.session_expired.app_error")
    expect((await admin.client.getUserAccessToken(created.id)).is_active).toBe(false)
    await admin.client.enableUserAccessToken(created.id)
    expect((await meWith(created.token!)).status).toBe(200)
    await admin.client.revokeUserAccessToken(created.id)
    expect((await meWith(created.token!)).status).toBe(401)
    expect(await failure(admin.client.getUserAccessToken(created.id))).toEqual({ status: 404, id: "app.user_access_token.get_by_id.app_error" })
  })

  it("outlives signing out everywhere, as in Mattermost", async () => {
    const created = await admin.client.createUserAccessToken(admin.user.id, "survivor")
    expect((await meWith(created.token!)).status).toBe(200)
    const login = client4(server.url)
    await login.login(admin.username, admin.password)
    await login.revokeAllSessionsForUser(admin.user.id)
    expect((await meWith(created.token!)).status).toBe(200)
    const again = client4(server.url)
    await again.login(admin.username, admin.password)
    admin.client.setToken(again.getToken())
  })

  it("expires at expires_at", async () => {
    const created = await admin.client.createUserAccessToken(admin.user.id, "short-lived", Date.now() + 1500)
    expect((await meWith(created.token!)).status).toBe(200)
    await eventually(async () => (await meWith(created.token!)).status === 401)
  })

  it("members need the system_user_access_token role, and then manage only their own tokens", async () => {
    expect(await failure(member.client.createUserAccessToken(member.user.id, "mine"))).toEqual({ status: 403, id: "api.context.permissions.app_error" })
    await admin.client.updateUserRoles(member.user.id, "system_user system_user_access_token")
    const mine = await member.client.createUserAccessToken(member.user.id, "mine")
    expect((await meWith(mine.token!)).body.id).toBe(member.user.id)
    expect((await member.client.getUserAccessTokensForUser(member.user.id)).map((t) => t.id)).toEqual([mine.id])

    const adminToken = await admin.client.createUserAccessToken(admin.user.id, "admin's")
    const othersToken = await admin.client.createUserAccessToken(other.user.id, "made by an admin for other")
    expect((await meWith(othersToken.token!)).body.id).toBe(other.user.id)
    const denied = [
      () => member.client.createUserAccessToken(other.user.id, "not mine"),
      () => member.client.getUserAccessTokensForUser(admin.user.id),
      () => member.client.getUserAccessToken(adminToken.id),
      () => member.client.revokeUserAccessToken(adminToken.id),
      () => member.client.disableUserAccessToken(othersToken.id),
      () => member.client.enableUserAccessToken(othersToken.id),
      () => member.client.getUserAccessTokens(0, 10),
      // Without the role, not even one's own.
      () => other.client.createUserAccessToken(other.user.id, "x"),
      () => other.client.getUserAccessTokensForUser(other.user.id)
    ]
    for (const call of denied) expect((await failure(call())).status).toBe(403)
    const search = await raw(server.url, "/api/v4/users/tokens/search", { method: "POST", token: member.client.getToken(), body: { term: member.username } })
    expect(search.status).toBe(403)
    // Nothing changed.
    expect((await meWith(adminToken.token!)).status).toBe(200)
    expect((await meWith(othersToken.token!)).status).toBe(200)

    // The admin sees and manages everyone's.
    const all = await admin.client.getUserAccessTokens(0, 200)
    expect(all.map((t) => t.id)).toEqual(expect.arrayContaining([mine.id, adminToken.id, othersToken.id]))
    expectShape(all, Schema.Array(UserAccessToken), "all tokens")
    const found = await raw(server.url, "/api/v4/users/tokens/search", { method: "POST", token: admin.client.getToken(), body: { term: member.username } })
    expect(found.status).toBe(200)
    expect(expectShape(found.body, Schema.Array(UserAccessToken), "found tokens").map((t) => t.id)).toEqual([mine.id])
    await admin.client.revokeUserAccessToken(mine.id)
    expect((await meWith(mine.token!)).status).toBe(401)
  })

  it("answers bad input with 400 and the error body", async () => {
    const token = admin.client.getToken()
    const cases: Array<[string, string, unknown]> = [
      ["POST", `/api/v4/users/${admin.user.id}/tokens`, {}],
      ["POST", `/api/v4/users/${admin.user.id}/tokens`, { description: "" }],
      ["POST", `/api/v4/users/${admin.user.id}/tokens`, { description: 5 }],
      ["POST", `/api/v4/users/${admin.user.id}/tokens`, { description: "x".repeat(300) }],
      ["POST", `/api/v4/users/${admin.user.id}/tokens`, { description: "past", expires_at: 1000 }],
      ["POST", "/api/v4/users/not-an-id/tokens", { description: "x" }],
      ["POST", "/api/v4/users/tokens/revoke", {}],
      ["POST", "/api/v4/users/tokens/revoke", { token_id: "short" }],
      ["POST", "/api/v4/users/tokens/disable", "{\"token_id\": "],
      ["GET", "/api/v4/users/tokens/not-an-id", undefined],
      ["GET", `/api/v4/users/${admin.user.id}/tokens?per_page=abc`, undefined],
      ["POST", "/api/v4/users/tokens/search", { term: 3 }]
    ]
    for (const [method, path, body] of cases) {
      const response = await raw(server.url, path, { method, token, body })
      expect([method, path, response.status]).toEqual([method, path, 400])
      expect(response.type).toBe("application/json")
      expect(Object.keys(response.body).sort()).toEqual(["detailed_error", "id", "message", "request_id", "status_code"])
    }
    const unknownUser = await raw(server.url, "/api/v4/users/abcdefghijklmnopqrstuvwxyz/tokens", { method: "POST", token, body: { description: "x" } })
    expect(unknownUser.status).toBe(404)
    // A made-up token of the right shape is a plain failed authentication.
    expect((await meWith("abcdefghijklmnopqrstuvwxyz")).status).toBe(401)
  })

  it("EnableUserAccessTokens off: creation answers 501 and existing tokens stop working; config/client reports it", async () => {
    const created = await admin.client.createUserAccessToken(admin.user.id, "switch")
    expect((await admin.client.getClientConfig() as Record<string, string>).EnableUserAccessTokens).toBe("true")
    await admin.client.patchConfig({ ServiceSettings: { EnableUserAccessTokens: false } } as never)
    try {
      expect(expectShape(await admin.client.getConfig(), Wire.Config, "config").ServiceSettings.EnableUserAccessTokens).toBe(false)
      expect((await admin.client.getClientConfig() as Record<string, string>).EnableUserAccessTokens).toBe("false")
      expect(await failure(admin.client.createUserAccessToken(admin.user.id, "no"))).toEqual({ status: 501, id: "app.user_access_token.disabled" })
      expect((await meWith(created.token!)).status).toBe(401)
      expect((await failure(member.client.patchConfig({ ServiceSettings: { EnableUserAccessTokens: true } } as never))).status).toBe(403)
    } finally {
      await admin.client.patchConfig({ ServiceSettings: { EnableUserAccessTokens: true } } as never)
    }
    expect((await meWith(created.token!)).status).toBe(200)
  })
})

import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { raw } from "../compat/Raw.ts"
import { newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/** Bad input on the users, preferences and system routes: 4xx with the Mattermost error body, nothing written. */
let server: TestServer
let token: string
let userId: string

beforeAll(async () => {
  server = await startServer()
  await newUser(server.url, "admin")
  const me = await newUser(server.url, "bad")
  token = me.client.getToken()
  userId = me.user.id
})
afterAll(() => server?.close())

const MALFORMED = "{\"unterminated\": "

describe("bad input", () => {
  it("answers malformed JSON, wrong types, wrong ids and invalid paging with 400 and the error body", async () => {
    const cases: Array<[string, string, unknown]> = [
      ["PUT", "/api/v4/users/me/patch", MALFORMED],
      ["PUT", "/api/v4/users/me/patch", { nickname: 42 }],
      ["PUT", "/api/v4/users/me/patch", { timezone: "Europe/Paris" }],
      ["PUT", "/api/v4/users/me/patch", { props: { a: 1 } }],
      ["PUT", "/api/v4/users/not-an-id/patch", { nickname: "x" }],
      ["POST", "/api/v4/users/ids", MALFORMED],
      ["POST", "/api/v4/users/ids", "[\"short\"]"],
      ["POST", "/api/v4/users/ids", Array.from({ length: 1001 }, () => userId)],
      ["POST", "/api/v4/users/usernames", { not: "an array" }],
      ["POST", "/api/v4/users/search", { team_id: "x" }],
      ["POST", "/api/v4/users/search", { term: "a", limit: 0 }],
      ["POST", "/api/v4/users/search", { term: "a", team_id: "bad" }],
      ["POST", "/api/v4/users/group_channels", []],
      ["GET", "/api/v4/users?per_page=abc", undefined],
      ["GET", "/api/v4/users?page=1.5", undefined],
      ["GET", "/api/v4/users?sort=sideways", undefined],
      ["GET", "/api/v4/users?active=true&inactive=true", undefined],
      ["GET", "/api/v4/users/autocomplete?in_channel=nope", undefined],
      ["GET", "/api/v4/users/autocomplete?limit=0", undefined],
      ["PUT", "/api/v4/users/me/password", { current_password: "x" }],
      ["PUT", `/api/v4/users/${userId}/active`, { active: "yes" }],
      ["POST", "/api/v4/users/me/sessions/revoke", {}],
      ["POST", "/api/v4/users/me/sessions/revoke", { session_id: "nope" }],
      ["PUT", "/api/v4/users/me/status/custom", MALFORMED],
      ["PUT", "/api/v4/users/me/status/custom", { emoji: "x".repeat(65) }],
      ["PUT", "/api/v4/users/me/preferences", MALFORMED],
      ["POST", "/api/v4/users/me/preferences/delete", [{ user_id: userId }]],
      ["POST", "/api/v4/roles/names", []],
      ["POST", "/api/v4/roles/names", MALFORMED],
      ["GET", "/api/v4/roles/not-an-id", undefined],
      ["GET", "/api/v4/redirect_location", undefined],
      ["GET", "/api/v4/redirect_location?url=ftp%3A%2F%2Fexample.com", undefined]
    ]
    for (const [method, path, body] of cases) {
      const response = await raw(server.url, path, {
        method,
        token,
        body: typeof body === "string" ? body : body,
        headers: typeof body === "string" ? { "content-type": "application/json" } : undefined
      })
      const label = `${method} ${path} ${typeof body === "string" ? body : JSON.stringify(body)?.slice(0, 60)}`
      expect(response.status, label).toBe(400)
      expect(response.type, label).toBe("application/json")
      expect(response.body, label).toMatchObject({ status_code: 400 })
      expect(typeof response.body.id, label).toBe("string")
      expect(typeof response.body.request_id, label).toBe("string")
    }
    const me = await raw(server.url, "/api/v4/users/me", { token })
    expect(me.body.nickname).toBe("")
    expect(me.body.props).toEqual({})
    expect((await raw(server.url, "/api/v4/users/me/preferences", { token })).body).toEqual([])
  })

  it("answers an oversized body with 413 or 400, never 5xx, and writes nothing", async () => {
    const huge = JSON.stringify({ nickname: "n".repeat(2 * 1024 * 1024) })
    const response = await raw(server.url, "/api/v4/users/me/patch", { method: "PUT", token, body: huge, headers: { "content-type": "application/json" } })
    expect([400, 413]).toContain(response.status)
    expect((await raw(server.url, "/api/v4/users/me", { token })).body.nickname).toBe("")
  })
})

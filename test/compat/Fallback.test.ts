import type { Team } from "@mattermost/types/teams"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { EMPTY_BY_DESIGN } from "../../src/compat/EmptyByDesign.ts"
import { raw } from "./Raw.ts"
import { newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

let server: TestServer
let token: string
let otherToken: string
let userId: string
let teamId: string
let channelId: string

beforeAll(async () => {
  server = await startServer()
  const me = await newUser(server.url, "fallback")
  const other = await newUser(server.url, "outsider")
  token = me.client.getToken()
  otherToken = other.client.getToken()
  userId = me.user.id
  const team = await me.client.createTeam({ name: `fb${Date.now()}`, display_name: "Fallback", type: "O" } as Team)
  teamId = team.id
  channelId = (await me.client.getChannelByName(team.id, "town-square")).id
})
afterAll(() => server?.close())

describe("routes we do not implement", () => {
  it("answers Mattermost routes we lack with 501 and the error body, even before authentication", async () => {
    for (const [method, path] of [
      ["GET", "/api/v4/jobs"],
      ["POST", "/api/v4/users/migrate_auth/ldap"],
      ["GET", `/api/v4/users/${userId}/oauth/apps/authorized`],
      ["GET", "/api/v4/audits"]
    ] as const) {
      const response = await raw(server.url, path, { method, token })
      expect(response.status, `${method} ${path}`).toBe(501)
      expect(response.type).toBe("application/json")
      expect(response.body).toMatchObject({ id: "api.not_implemented.app_error", status_code: 501 })
      expect(typeof response.body.request_id).toBe("string")
      const anonymous = await raw(server.url, path, { method })
      expect(anonymous.status).toBe(501)
    }
  })

  it("keeps unknown /api/v4 paths 404", async () => {
    for (const path of ["/api/v4/nothing/here", "/api/v4/users/abc/def/ghi/jkl", "/api/v4"]) {
      const response = await raw(server.url, path, { token })
      expect(response.status, path).toBe(404)
      expect(response.body.id).toBe("api.context.404.app_error")
    }
  })

  it("answers the start-up reads of unsupported optional data with empty values", async () => {
    const paths: Record<string, string> = {
      "/api/v4/agents": "/api/v4/agents",
      "/api/v4/users/{user_id}/groups": "/api/v4/users/me/groups",
      "/api/v4/channels/{channel_id}/bookmarks": `/api/v4/channels/${channelId}/bookmarks`,
      "/api/v4/custom_profile_attributes/fields": "/api/v4/custom_profile_attributes/fields",
      "/api/v4/users/{user_id}/custom_profile_attributes": `/api/v4/users/${userId}/custom_profile_attributes`,
      "/api/v4/system/notices/{team_id}": `/api/v4/system/notices/${teamId}?client=mobile&clientVersion=2.43.0`,
      "/api/v4/teams/{team_id}/groups": `/api/v4/teams/${teamId}/groups?page=0&per_page=10&q=&include_member_count=true`,
      "/api/v4/channels/{channel_id}/groups": `/api/v4/channels/${channelId}/groups?page=0&per_page=10&q=&include_member_count=true`,
      "/api/v4/users/{user_id}/data_retention/team_policies": "/api/v4/users/me/data_retention/team_policies?page=0&per_page=100",
      "/api/v4/users/{user_id}/data_retention/channel_policies": "/api/v4/users/me/data_retention/channel_policies"
    }
    expect(Object.keys(paths).sort()).toEqual(EMPTY_BY_DESIGN.map((e) => e.path).sort())
    for (const [template, path] of Object.entries(paths)) {
      const response = await raw(server.url, path, { token })
      expect(response.status, path).toBe(200)
      expect(response.type).toBe("application/json")
      expect(response.body, path).toEqual(EMPTY_BY_DESIGN.find((e) => e.path === template)!.body({ team_id: teamId }, new URL(`http://x${path}`).searchParams))
    }
  })

  it("still checks the session and the resources those reads name", async () => {
    expect((await raw(server.url, "/api/v4/agents")).status).toBe(401)
    expect((await raw(server.url, `/api/v4/users/${userId}/groups`, { token: otherToken })).status).toBe(403)
    expect((await raw(server.url, `/api/v4/channels/${channelId}/bookmarks`, { token: otherToken })).status).toBe(403)
    expect((await raw(server.url, `/api/v4/system/notices/${teamId}`, { token: otherToken })).status).toBe(403)
    expect((await raw(server.url, "/api/v4/channels/abcdefghijklmnopqrstuvwxyz/bookmarks", { token })).status).toBe(404)
    expect((await raw(server.url, "/api/v4/channels/bad/bookmarks", { token })).status).toBe(400)
  })
})

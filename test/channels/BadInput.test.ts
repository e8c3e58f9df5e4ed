import type { Channel } from "@mattermost/types/channels"
import type { Team } from "@mattermost/types/teams"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { raw } from "../compat/Raw.ts"
import { newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/** Bad input on the team, channel and category routes: 400 (or 404) with the error body, and nothing written. */

let server: TestServer
let me: Awaited<ReturnType<typeof newUser>>
let team: Team
let channel: Channel

beforeAll(async () => {
  server = await startServer()
  me = await newUser(server.url, "bad")
  team = await me.client.createTeam({ name: `bad${Date.now().toString(36)}`, display_name: "Bad", type: "O" } as Team)
  channel = await me.client.createChannel({ team_id: team.id, name: "room", display_name: "Room", type: "O" } as Channel)
})
afterAll(() => server?.close())

const send = (method: string, path: string, body?: unknown) => raw(server.url, path, { method, token: me.client.getToken(), body })

/** Everything the user can see, to prove a refused request wrote nothing. */
const snapshot = async () => ({
  teams: await me.client.getMyTeams(),
  channels: await me.client.getMyChannels(team.id),
  members: await me.client.getMyChannelMembers(team.id),
  categories: await me.client.getChannelCategories(me.user.id, team.id)
})

describe("bad input", () => {
  it("answers 400 with the Mattermost error body and writes nothing", async () => {
    const before = await snapshot()
    const unknownId = "abcdefghijklmnopqrstuvwxyz"
    const cases: Array<[string, string, unknown]> = [
      ["POST", "/api/v4/teams", "{not json"],
      ["POST", "/api/v4/teams", { name: 42, display_name: "X" }],
      ["POST", "/api/v4/teams", { name: "ok-name", display_name: "X", type: "Z" }],
      ["POST", "/api/v4/teams", { name: "x".repeat(65), display_name: "X" }],
      ["PUT", `/api/v4/teams/${team.id}/patch`, { description: "d".repeat(256) }],
      ["POST", `/api/v4/teams/${team.id}/members`, { user_id: "short" }],
      ["POST", `/api/v4/teams/${team.id}/members`, { user_id: unknownId }],
      ["POST", `/api/v4/teams/${team.id}/members/batch`, []],
      ["GET", `/api/v4/teams/${team.id}/members?page=-1`, undefined],
      ["GET", `/api/v4/teams/${team.id}/members?per_page=abc`, undefined],
      ["GET", `/api/v4/teams/${team.id}/channels?page=1.5`, undefined],
      ["POST", "/api/v4/channels", { team_id: "nope", name: "x", display_name: "X", type: "O" }],
      ["POST", "/api/v4/channels", { team_id: team.id, name: "fine", display_name: "X", type: "D" }],
      ["POST", "/api/v4/channels", { team_id: team.id, name: "-bad-", display_name: "X", type: "O" }],
      ["POST", "/api/v4/channels", { team_id: team.id, name: `${unknownId}__${unknownId}`, display_name: "X", type: "O" }],
      ["POST", "/api/v4/channels", { team_id: team.id, name: "fine", display_name: "X", type: "O", header: "h".repeat(1025) }],
      ["PUT", `/api/v4/channels/${channel.id}/patch`, { display_name: "" }],
      ["PUT", `/api/v4/channels/${channel.id}/patch`, "[]"],
      ["POST", `/api/v4/channels/${channel.id}/members`, {}],
      ["POST", `/api/v4/channels/${channel.id}/members`, { user_id: unknownId }],
      ["PUT", `/api/v4/channels/${channel.id}/members/me/notify_props`, { mark_unread: 5 }],
      ["PUT", `/api/v4/channels/${channel.id}/members/me/notify_props`, { mark_unread: "sometimes" }],
      ["PUT", `/api/v4/channels/${channel.id}/members/me/roles`, { roles: "channel_admin" }],
      ["POST", "/api/v4/channels/direct", [me.user.id]],
      ["POST", "/api/v4/channels/direct", [me.user.id, unknownId]],
      ["POST", "/api/v4/channels/group", { ids: [] }],
      ["POST", "/api/v4/channels/members/me/view", { channel_id: "bad" }],
      ["PUT", `/api/v4/users/me/teams/${team.id}/channels/categories/order`, "nope"],
      ["POST", `/api/v4/users/me/teams/${team.id}/channels/categories`, { display_name: "X", channel_ids: [unknownId] }],
      ["PUT", `/api/v4/users/me/teams/${team.id}/channels/categories`, [{ id: "missing", display_name: "X" }]]
    ]
    for (const [method, path, body] of cases) {
      const res = await send(method, path, body)
      expect(res.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400)
      expect(res.type).toBe("application/json")
      expect(res.body).toMatchObject({ id: expect.any(String), message: expect.any(String), status_code: 400 })
    }
    expect(await snapshot()).toEqual(before)
  })

  it("answers 404 for unknown teams, channels and categories", async () => {
    const unknownId = "abcdefghijklmnopqrstuvwxyz"
    for (const path of [
      `/api/v4/teams/${unknownId}`,
      "/api/v4/teams/name/no-such-team",
      `/api/v4/channels/${unknownId}`,
      `/api/v4/teams/${team.id}/channels/name/no-such-channel`,
      `/api/v4/users/me/teams/${team.id}/channels/categories/nothing`
    ]) {
      const res = await send("GET", path)
      expect(res.status, path).toBe(404)
      expect(res.body.status_code).toBe(404)
    }
  })
})

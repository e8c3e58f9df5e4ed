import type { Team } from "@mattermost/types/teams"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectShape, expectStringMap, Wire } from "./Shapes.ts"
import { newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * The web and desktop start-up of mattermost-compat.md section 4, authenticated the browser's way: the cookies set
 * at login (MMAUTHTOKEN, MMUSERID readable by scripts, MMCSRF) and X-CSRF-Token on writes, no Authorization header.
 */
let server: TestServer
let team: Team
let userId = ""
let cookie = ""
let csrf = ""

beforeAll(async () => {
  server = await startServer()
  const peer = await newUser(server.url, "webpeer")
  const { username, password } = await newUser(server.url, "webuser")
  team = await peer.client.createTeam({ name: `web${Date.now()}`, display_name: "Web Team", type: "O" } as Team)
  const login = await fetch(`${server.url}/api/v4/users/login`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-requested-with": "XMLHttpRequest" },
    body: JSON.stringify({ login_id: username, password, token: "", deviceId: "" })
  })
  expect(login.status).toBe(200)
  const jar = Object.fromEntries(login.headers.getSetCookie().map((c) => c.split(";")[0].split("=") as [string, string]))
  expect(Object.keys(jar)).toEqual(expect.arrayContaining(["MMAUTHTOKEN", "MMUSERID", "MMCSRF"]))
  expect(login.headers.getSetCookie().find((c) => c.startsWith("MMUSERID="))).not.toMatch(/HttpOnly/i)
  cookie = Object.entries(jar).map(([k, v]) => `${k}=${v}`).join("; ")
  csrf = jar.MMCSRF
  userId = jar.MMUSERID
  await peer.client.addToTeam(team.id, userId)
  const townSquare = await peer.client.getChannelByName(team.id, "town-square")
  await peer.client.createPost({ channel_id: townSquare.id, message: "welcome" } as never)
  await peer.client.createDirectChannel([peer.user.id, userId])
})
afterAll(() => server?.close())

const browser = async (path: string, init: { method?: string; body?: unknown } = {}) => {
  const method = init.method ?? "GET"
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      cookie,
      ...(method === "GET" ? {} : { "x-csrf-token": csrf, "content-type": "application/json" })
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body)
  })
  expect(response.headers.get("content-type"), `${method} ${path}`).toBe("application/json")
  return { status: response.status, body: await response.json() as any }
}

const ok = async (path: string, init?: { method?: string; body?: unknown }) => {
  const response = await browser(path, init)
  expect(response.status, `${init?.method ?? "GET"} ${path}: ${JSON.stringify(response.body).slice(0, 200)}`).toBe(200)
  return response.body
}

describe("web start-up (compat section 4) with cookie authentication", () => {
  it("1-2: config, license, me, preferences, teams, memberships, team unreads, server limits", async () => {
    const config = await ok("/api/v4/config/client?format=old")
    expectStringMap(config)
    expect(config.MaxFileSize).toBe("104857600")
    expectStringMap(await ok("/api/v4/license/client?format=old"))
    const [me, preferences, teams, members] = await Promise.all([
      ok("/api/v4/users/me"),
      ok("/api/v4/users/me/preferences"),
      ok("/api/v4/users/me/teams"),
      ok("/api/v4/users/me/teams/members")
    ])
    expectShape(me, Wire.User)
    expect(me.id).toBe(userId)
    expect(Array.isArray(preferences)).toBe(true)
    for (const t of teams) expectShape(t, Wire.Team)
    expect(members.map((m: { team_id: string }) => m.team_id)).toEqual([team.id])
    const unreads = await ok("/api/v4/users/me/teams/unread?include_collapsed_threads=true")
    expect(unreads.map((u: { team_id: string }) => u.team_id)).toEqual([team.id])
    for (const key of ["msg_count", "mention_count", "msg_count_root", "mention_count_root"]) expect(typeof unreads[0][key]).toBe("number")
    expectShape(await ok("/api/v4/limits/server"), Wire.ServerLimits)
  })

  it("3: plugins and custom profile attribute fields", async () => {
    const plugins = await ok("/api/v4/plugins/webapp")
    expect(Array.isArray(plugins)).toBe(true)
    ;(plugins as Array<unknown>).forEach((p, i) => expectShape(p, Wire.PluginManifest, `plugins[${i}]`))
    expect(await ok("/api/v4/custom_profile_attributes/fields")).toEqual([])
  })

  it("4: all my channels and memberships, the team's channels, roles and categories", async () => {
    const channels = await ok("/api/v4/users/me/channels")
    for (const c of channels) expectShape(c, Wire.Channel, c.name)
    expect(channels.some((c: { type: string }) => c.type === "D")).toBe(true)
    const memberships = await ok(`/api/v4/users/${userId}/channel_members?page=0&per_page=200`)
    for (const m of memberships) expectShape(m, Wire.ChannelMember)
    expect(memberships.length).toBe(channels.length)
    const teamChannels = await ok(`/api/v4/users/me/teams/${team.id}/channels?include_deleted=true`)
    const teamMembers = await ok(`/api/v4/users/me/teams/${team.id}/channels/members`)
    expect(teamMembers.length).toBe(teamChannels.length)
    const roleNames = [...new Set<string>([...teamMembers.flatMap((m: { roles: string }) => m.roles.split(" ")), "system_user", "team_user"])].filter((r) => r !== "")
    const roles = await ok("/api/v4/roles/names", { method: "POST", body: roleNames })
    for (const r of roles) expectShape(r, Wire.Role, r.name)
    expect(roles.map((r: { name: string }) => r.name)).toEqual(expect.arrayContaining(["channel_user", "team_user", "system_user"]))
    const categories = await ok(`/api/v4/users/${userId}/teams/${team.id}/channels/categories`)
    for (const c of categories.categories) expectShape(c, Wire.ChannelCategory)
  })

  it("5: sidebar prefetch and opening a channel", async () => {
    const channels = await ok("/api/v4/users/me/channels") as Array<{ id: string; type: string; name: string }>
    const dm = channels.find((c) => c.type === "D")!
    expect(await ok("/api/v4/users/group_channels", { method: "POST", body: [dm.id] })).toEqual({})
    const other = dm.name.split("__").find((id) => id !== userId)!
    const profiles = await ok("/api/v4/users/ids", { method: "POST", body: [other] })
    expect(profiles.map((u: { id: string }) => u.id)).toEqual([other])
    const statuses = await ok("/api/v4/users/status/ids", { method: "POST", body: [other, userId] })
    expect(statuses).toHaveLength(2)

    const townSquare = channels.find((c) => c.name === "town-square")!
    const stats = await ok(`/api/v4/channels/${townSquare.id}/stats?exclude_files_count=true`)
    expect(stats.channel_id).toBe(townSquare.id)
    expect(typeof stats.member_count).toBe("number")
    const unread = await ok(`/api/v4/users/${userId}/channels/${townSquare.id}/posts/unread?limit_after=30&limit_before=30&skipFetchThreads=false&collapsedThreads=true&collapsedThreadsExtended=false`)
    expectShape(unread, Wire.PostList)
    expect(Object.values(unread.posts).map((p) => (p as { message: string }).message)).toContain("welcome")
    const viewed = await ok("/api/v4/channels/members/me/view", { method: "POST", body: { channel_id: townSquare.id, collapsed_threads_supported: true } })
    expect(viewed.status).toBe("OK")
    expect(typeof viewed.last_viewed_at_times[townSquare.id]).toBe("number")
  })

  it("refuses cookie-authenticated writes without the CSRF token or X-Requested-With", async () => {
    const response = await fetch(`${server.url}/api/v4/users/me/preferences`, {
      method: "PUT",
      headers: { cookie, "content-type": "application/json" },
      body: JSON.stringify([{ user_id: userId, category: "theme", name: "", value: "{}" }])
    })
    expect(response.status).toBe(401)
    expect(await ok("/api/v4/users/me/preferences/theme")).toEqual([])
  })
})

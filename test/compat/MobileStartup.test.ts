import type { Channel } from "@mattermost/types/channels"
import type { ChannelCategory } from "@mattermost/types/channel_categories"
import type { PostList } from "@mattermost/types/posts"
import type { Team } from "@mattermost/types/teams"
import type { UserThreadList } from "@mattermost/types/threads"
import type { UserProfile, UserStatus } from "@mattermost/types/users"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { raw } from "./Raw.ts"
import { expectShape, expectStringMap, Wire } from "./Shapes.ts"
import { client4, newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * The mobile app's add-server → login → first sync sequence of mattermost-compat.md section 3, in order, with the
 * requests the app makes (Client4 where it has the call, the app's own headers and query strings otherwise), every
 * response checked against @mattermost/types.
 */
const MOBILE_HEADERS = {
  "user-agent": "Mattermost Mobile/2.43.0+799 (Android; 14; Pixel 8)",
  "x-requested-with": "XMLHttpRequest"
}
const DEVICE_ID = "android_rn-v2:fcm-token-abc123"

let server: TestServer
let peer: Awaited<ReturnType<typeof newUser>>
let team: Team
let dm: Channel
let gm: Channel
const mobile = { username: `mobile${Date.now().toString(36)}`, password: "correct-horse-battery", id: "" }

beforeAll(async () => {
  server = await startServer()
  peer = await newUser(server.url, "peer")
  const third = await newUser(server.url, "third")
  const created = await client4(server.url).createUser({ username: mobile.username, email: `${mobile.username}@example.com`, password: mobile.password } as never, "", "")
  mobile.id = created.id
  team = await peer.client.createTeam({ name: `mob${Date.now()}`, display_name: "Mobile Team", type: "O" } as Team)
  await peer.client.addToTeam(team.id, mobile.id)
  await peer.client.addToTeam(team.id, third.user.id)
  dm = await peer.client.createDirectChannel([peer.user.id, mobile.id])
  gm = await peer.client.createGroupChannel([peer.user.id, mobile.id, third.user.id])
  const townSquare = await peer.client.getChannelByName(team.id, "town-square")
  await peer.client.createPost({ channel_id: townSquare.id, message: `hello @${mobile.username}` } as never)
  await peer.client.createPost({ channel_id: dm.id, message: "a direct message" } as never)
})
afterAll(() => server?.close())

describe("mobile add-server, login and first sync (compat section 3)", () => {
  let token = ""
  let app: ReturnType<typeof client4>
  let diagnosticId = ""

  it("A: HEAD /, ping, limited config and license with a DiagnosticId", async () => {
    const head = await fetch(`${server.url}/`, { method: "HEAD", headers: MOBILE_HEADERS })
    expect(head.status).toBe(200)

    const ping = await raw(server.url, `/api/v4/system/ping?time=${Date.now()}&device_id=${encodeURIComponent(DEVICE_ID)}`, { headers: MOBILE_HEADERS })
    expect(ping.status).toBe(200)
    expect(ping.type).toBe("application/json")
    expect(ping.body).toMatchObject({ status: "OK", ActiveSearchBackend: "database" })
    expect(["true", "false"]).toContain(ping.body.CanReceiveNotifications)

    const anonymous = client4(server.url)
    const [config, license] = await Promise.all([anonymous.getClientConfig(), anonymous.getClientLicenseOld()]) as Array<Record<string, string>>
    expectStringMap(config)
    expectStringMap(license)
    expect(config.DiagnosticId).not.toBe("")
    expect(config.Version).toBe("10.11.0")
    expect(config.EnableSignInWithUsername).toBe("true")
    expect(license.IsLicensed).toBe("false")
    diagnosticId = config.DiagnosticId
    const version = ping.headers.get("x-version-id") ?? ""
    expect(version.split(".").slice(0, 3).join(".")).toBe("10.11.0")
    expect(ping.headers.get("cache-control")).toBeNull()
  })

  it("B: logs in with the device id and gets the Token header and the MMCSRF cookie", async () => {
    const response = await fetch(`${server.url}/api/v4/users/login`, {
      method: "POST",
      headers: { ...MOBILE_HEADERS, "content-type": "application/json", "cache-control": "no-store" },
      body: JSON.stringify({ device_id: DEVICE_ID, voip_device_id: "", login_id: mobile.username, password: mobile.password, token: "" })
    })
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("application/json")
    token = response.headers.get("token") ?? ""
    expect(token).not.toBe("")
    const cookies = response.headers.getSetCookie().join("\n")
    expect(cookies).toMatch(/MMAUTHTOKEN=/)
    expect(cookies).toMatch(/MMCSRF=/)
    expect(cookies).toMatch(/MMUSERID=/)
    expectShape(await response.json(), Wire.User, "login user")
    app = client4(server.url, token)
  })

  it("C: full config and license with the session; the DiagnosticId is unchanged", async () => {
    const [config, license] = await Promise.all([app.getClientConfig(), app.getClientLicenseOld()]) as Array<Record<string, string>>
    expectStringMap(config)
    expect(config.DiagnosticId).toBe(diagnosticId)
    expect(config.MaxFileSize).toBe("104857600")
    expect(config.CollapsedThreads).toBe("default_on")
    expect(license.IsLicensed).toBe("false")
  })

  it("D1-D2: registers the device on the session and patches the timezone", async () => {
    const device = await raw(server.url, "/api/v4/users/sessions/device", {
      method: "PUT",
      token,
      headers: MOBILE_HEADERS,
      body: { device_id: DEVICE_ID, device_notification_disabled: "false", mobile_version: "2.43.0" }
    })
    expect(device.status).toBe(200)
    expect(device.body).toEqual({ status: "OK" })
    const sessions = await app.getSessions("me")
    const mine = sessions.find((s) => s.device_id === DEVICE_ID)
    expect(mine?.props.mobile_version).toBe("2.43.0")

    const patched = await app.patchMe({ timezone: { useAutomaticTimezone: "true", automaticTimezone: "Europe/Berlin", manualTimezone: "" } })
    expect(patched.timezone).toEqual({ useAutomaticTimezone: "true", automaticTimezone: "Europe/Berlin", manualTimezone: "" })
  })

  it("D3: entry: preferences, teams, memberships, me, then the team's channels, members and categories", async () => {
    const [config, , preferences] = await Promise.all([app.getClientConfig(), app.getClientLicenseOld(), app.getMyPreferences()])
    expect((config as Record<string, string>).DiagnosticId).toBe(diagnosticId)
    for (const p of preferences as unknown as Array<unknown>) expectShape(p, Wire.Preference)

    const [teams, members, me] = await Promise.all([app.getMyTeams(), app.getMyTeamMembers(), app.getMe()])
    expect(teams.map((t) => t.id)).toEqual([team.id])
    for (const t of teams) expectShape(t, Wire.Team, "team")
    for (const m of members) expectShape(m, Wire.TeamMember, "team member")
    expect(members.map((m) => m.team_id)).toEqual([team.id])
    expectShape(me, Wire.User, "me")
    expect(me.id).toBe(mobile.id)

    const channels = await raw(server.url, `/api/v4/users/me/teams/${team.id}/channels?include_deleted=false&last_delete_at=0`, { token })
    const channelMembers = await app.getMyChannelMembers(team.id)
    const categories = await app.getChannelCategories("me", team.id) as unknown as { categories: Array<ChannelCategory>; order: Array<string> }
    expect(channels.status).toBe(200)
    for (const c of channels.body) expectShape(c, Wire.Channel, `channel ${c.name}`)
    const channelIds = (channels.body as Array<{ id: string }>).map((c) => c.id)
    expect(channelIds).toEqual(expect.arrayContaining([dm.id, gm.id]))
    for (const m of channelMembers) expectShape(m, Wire.ChannelMember, "channel member")
    expect(channelMembers.map((m) => m.channel_id).sort()).toEqual([...channelIds].sort())
    for (const c of categories.categories) expectShape(c, Wire.ChannelCategory, `category ${c.type}`)
    expect(categories.categories.map((c) => c.type)).toEqual(expect.arrayContaining(["favorites", "channels", "direct_messages"]))
    const categorized = new Set(categories.categories.flatMap((c) => c.channel_ids))
    for (const id of channelIds) expect(categorized.has(id), `channel ${id} in a category`).toBe(true)
    expect(categories.order).toEqual(categories.categories.map((c) => c.id))
    // The app stores sort_order / 10 and sorts its sidebar by it: 0, 10, 20... in the order of `order`.
    for (const [i, c] of categories.categories.entries()) {
      expect((c as ChannelCategory & { sort_order: number }).sort_order, `category ${c.type} sort_order`).toBe(i * 10)
    }
  })

  it("D4: posts of the current channel, their authors, and viewing the channel", async () => {
    const townSquare = await app.getChannelByName(team.id, "town-square")
    const posts = await app.getPosts(townSquare.id, 0, 60, false, true, false) as PostList
    expectShape(posts, Wire.PostList, "post list")
    expect(posts.order.length).toBeGreaterThan(0)
    for (const id of posts.order) expectShape(posts.posts[id], Wire.Post, `post ${id}`)
    const authorIds = [...new Set(Object.values(posts.posts).map((p) => p.user_id))]
    const authors = await app.getProfilesByIds(authorIds)
    expect(authors.map((u) => u.id).sort()).toEqual([...authorIds].sort())
    const byName = await app.getProfilesByUsernames([peer.username])
    expect(byName.map((u) => u.id)).toEqual([peer.user.id])

    const viewed = await raw(server.url, "/api/v4/channels/members/me/view", {
      method: "POST",
      token,
      body: { channel_id: townSquare.id, prev_channel_id: "", collapsed_threads_supported: true }
    })
    expect(viewed.status).toBe(200)
    expect(viewed.body.status).toBe("OK")
    expect(typeof viewed.body.last_viewed_at_times[townSquare.id]).toBe("number")
  })

  it("D5-D6: plugins, calls, and agents", async () => {
    const plugins = await raw(server.url, "/api/v4/plugins/webapp", { token })
    expect(plugins.status).toBe(200)
    expect(Array.isArray(plugins.body)).toBe(true)
    if ((plugins.body as Array<{ id: string }>).some((p) => p.id === "com.mattermost.calls")) {
      for (const path of ["config", "version", "channels?mobilev2=true"]) {
        const response = await raw(server.url, `/plugins/com.mattermost.calls/${path}`, { token })
        expect(response.status, path).toBe(200)
      }
    }
    const agents = await raw(server.url, "/api/v4/agents", { token })
    expect(agents.status).toBe(200)
    expect(agents.body).toEqual([])
  })

  it("D7: deferred: DM and GM members, changed users, teams, roles, threads, sidebar preferences", async () => {
    const dmMembers = await raw(server.url, `/api/v4/users?in_channel=${dm.id}`, { token })
    expect(dmMembers.status).toBe(200)
    expect((dmMembers.body as Array<UserProfile>).map((u) => u.id).sort()).toEqual([peer.user.id, mobile.id].sort())
    const gmMembers = await app.getProfilesInGroupChannels([gm.id]) as Record<string, Array<UserProfile>>
    expect(gmMembers[gm.id]).toHaveLength(2)
    for (const u of gmMembers[gm.id]) expectShape(u, Wire.User, "gm member")

    const since = await app.getProfilesByIds([peer.user.id, mobile.id], { since: Date.now() + 60_000 } as never)
    expect(since).toEqual([])

    const joinable = await app.getTeams(0, 60, false) as Array<Team>
    for (const t of joinable) expectShape(t, Wire.Team, "joinable team")

    const roles = await app.getRolesByNames(["system_user", "team_user", "channel_user"])
    for (const r of roles) expectShape(r, Wire.Role, r.name)
    expect(roles.flatMap((r) => r.permissions)).toEqual(expect.arrayContaining(["create_post", "create_direct_channel", "join_public_channels"]))

    const threads = await raw(server.url, `/api/v4/users/${mobile.id}/teams/${team.id}/threads?extended=true&before=&after=&deleted=false&unread=true&since=0&totalsOnly=false&excludeDirect=false&per_page=60`, { token })
    expect(threads.status).toBe(200)
    const list = threads.body as UserThreadList
    for (const key of ["total", "total_unread_threads", "total_unread_mentions"] as const) expect(typeof list[key]).toBe("number")
    expect(Array.isArray(list.threads)).toBe(true)

    const show = await app.savePreferences(mobile.id, [
      { user_id: mobile.id, category: "direct_channel_show", name: peer.user.id, value: "true" },
      { user_id: mobile.id, category: "group_channel_show", name: gm.id, value: "true" },
      { user_id: mobile.id, category: "channel_open_time", name: dm.id, value: String(Date.now()) }
    ])
    expect(show).toEqual({ status: "OK" })
  })

  it("D8: statuses of known users", async () => {
    const statuses = await app.getStatusesByIds([peer.user.id, mobile.id]) as Array<UserStatus>
    expect(statuses.map((s) => s.user_id).sort()).toEqual([peer.user.id, mobile.id].sort())
    for (const s of statuses) expect(["online", "away", "dnd", "offline"]).toContain(s.status)
  })

  it("logs out with 200 OK, after which the token is refused with 401", async () => {
    const response = await app.logout() as unknown as Response
    expect(response.status).toBe(200)
    await expect(client4(server.url, token).getMe()).rejects.toMatchObject({ status_code: 401 })
  })
})

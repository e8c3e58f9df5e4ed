import type { Client4 } from "@mattermost/client"
import type { AdminConfig } from "@mattermost/types/config"
import type { Team } from "@mattermost/types/teams"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { raw } from "../compat/Raw.ts"
import { expectShape, Wire } from "../compat/Shapes.ts"
import { client4, newUser, unique } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * What the official web app and its System Console call beyond day-to-day chat, through Client4: first run,
 * invite links, licence, statistics, the configuration document, roles, the user report, group search and notices.
 * Each endpoint with who may call it and what bad input gets.
 */
let server: TestServer
let admin: Awaited<ReturnType<typeof newUser>>
let alice: Awaited<ReturnType<typeof newUser>>
let team: Team
let noAccountsBefore: string

beforeAll(async () => {
  server = await startServer()
  noAccountsBefore = (await client4(server.url).getClientConfig() as Record<string, string>).NoAccounts
  admin = await newUser(server.url, "admin")
  alice = await newUser(server.url, "alice")
  team = await admin.client.createTeam({ name: unique("team"), display_name: "Invite Team", type: "O", description: "Our team" } as Team)
})
afterAll(() => server?.close())

const anonymous = () => client4(server.url)
const status = (promise: Promise<unknown>) => promise.then(() => 200, (e: { status_code?: number }) => e.status_code)
const errorOf = (promise: Promise<unknown>) => promise.then(() => undefined, (e: { status_code?: number; server_error_id?: string; message?: string }) => e)

describe("first run and licence", () => {
  it("says NoAccounts until the first account exists", async () => {
    expect(noAccountsBefore).toBe("true")
    expect((await anonymous().getClientConfig() as Record<string, string>).NoAccounts).toBe("false")
    expect(admin.user.roles).toContain("system_admin")
  })

  it("reports an unlicensed server as Mattermost does: IsLicensed false and no seat fields", async () => {
    expect(await anonymous().getClientLicenseOld()).toEqual({ IsLicensed: "false" })
    expect(await admin.client.getPrevTrialLicense()).toEqual({ IsLicensed: "false" })
    expect(await status(anonymous().getPrevTrialLicense())).toBe(401)
  })
})

describe("invite links", () => {
  it("shows an open team's public face to anyone, and Mattermost's errors otherwise", async () => {
    expect(await anonymous().getTeamInviteInfo(team.invite_id)).toEqual({ display_name: "Invite Team", description: "Our team", name: team.name, id: team.id })
    const unknown = await errorOf(anonymous().getTeamInviteInfo("abcdefghijklmnopqrstuvwxyz"))
    expect(unknown).toMatchObject({ status_code: 404, server_error_id: "app.team.get_by_invite_id.finding.app_error" })
    expect(await status(anonymous().getTeamInviteInfo("not-an-id!"))).toBe(400)
    const closed = await admin.client.createTeam({ name: unique("closed"), display_name: "Closed", type: "I" } as Team)
    expect(await errorOf(anonymous().getTeamInviteInfo(closed.invite_id))).toMatchObject({ status_code: 403, server_error_id: "api.team.get_invite_info.not_open_team" })
  })

  it("signs a newcomer up straight into the team with iid, and refuses an unknown iid without creating the account", async () => {
    const username = unique("newbie").slice(0, 20)
    const created = await anonymous().createUser({ username, email: `${username}@example.com`, password: "correct-horse-battery" } as never, "", team.invite_id)
    const newcomer = client4(server.url)
    await newcomer.login(username, "correct-horse-battery")
    expect((await newcomer.getMyTeams()).map((t) => t.id)).toContain(team.id)
    expect((await newcomer.getMyChannels(team.id)).map((c) => c.name)).toContain("town-square")
    expect(created.id).toBeTruthy()

    const lost = unique("lost").slice(0, 20)
    const refused = await errorOf(anonymous().createUser({ username: lost, email: `${lost}@example.com`, password: "correct-horse-battery" } as never, "", "abcdefghijklmnopqrstuvwxyz"))
    expect(refused).toMatchObject({ status_code: 404, server_error_id: "app.team.get_by_invite_id.finding.app_error" })
    expect(await status(client4(server.url).login(lost, "correct-horse-battery"))).toBe(401)
  })

  it("holds a team's allowed domains against invite sign-ups", async () => {
    const limited = await admin.client.createTeam({ name: unique("corp"), display_name: "Corp", type: "O", allowed_domains: "corp.example" } as Team)
    const outsider = unique("out").slice(0, 20)
    expect(await errorOf(anonymous().createUser({ username: outsider, email: `${outsider}@example.com`, password: "correct-horse-battery" } as never, "", limited.invite_id)))
      .toMatchObject({ status_code: 400, server_error_id: "api.team.invite_members.invalid_email.app_error" })
    const insider = unique("in").slice(0, 20)
    await anonymous().createUser({ username: insider, email: `${insider}@corp.example`, password: "correct-horse-battery" } as never, "", limited.invite_id)
    // Signed in, the same link is held to the same domains.
    expect(await errorOf(alice.client.addToTeamFromInvite("", limited.invite_id)))
      .toMatchObject({ status_code: 400, server_error_id: "api.team.join_user_to_team.allowed_domains.app_error" })
    const joiner = client4(server.url)
    await joiner.login(insider, "correct-horse-battery")
    const self = await joiner.getMe()
    expect((await joiner.getMyTeams()).map((t) => t.id)).toContain(limited.id)
    await joiner.removeFromTeam(limited.id, self.id)
    expect(await joiner.addToTeamFromInvite("", limited.invite_id)).toMatchObject({ team_id: limited.id, user_id: self.id })
  })

  it("lets a signed-in user join with the invite id", async () => {
    const bob = await newUser(server.url, "bob")
    const member = await bob.client.addToTeamFromInvite("", team.invite_id)
    expect(member).toMatchObject({ team_id: team.id, user_id: bob.user.id })
    expect(await status(bob.client.addToTeamFromInvite("", "abcdefghijklmnopqrstuvwxyz"))).toBe(404)
    expect(await bob.client.addToTeamFromInvite("", team.invite_id)).toMatchObject({ team_id: team.id, user_id: bob.user.id })
    expect((await raw(server.url, "/api/v4/teams/members/invite", { method: "POST", token: bob.client.getToken() })).status).toBe(400)
    expect(await status(anonymous().addToTeamFromInvite("", team.invite_id))).toBe(401)
  })
})

describe("sign-up and team creation switches", () => {
  it("closes open sign-up (403), keeps invites working, and closes all sign-up when user creation is off (501)", async () => {
    await admin.client.patchConfig({ TeamSettings: { EnableOpenServer: false } } as never)
    try {
      expect((await anonymous().getClientConfig() as Record<string, string>).EnableOpenServer).toBe("false")
      const name = unique("closed").slice(0, 20)
      const user = { username: name, email: `${name}@example.com`, password: "correct-horse-battery" } as never
      expect(await errorOf(anonymous().createUser(user, "", ""))).toMatchObject({ status_code: 403, server_error_id: "api.user.create_user.no_open_server" })
      await anonymous().createUser(user, "", team.invite_id)
      const other = unique("admin-made").slice(0, 20)
      await admin.client.createUser({ username: other, email: `${other}@example.com`, password: "correct-horse-battery" } as never, "", "")

      await admin.client.patchConfig({ TeamSettings: { EnableUserCreation: false } } as never)
      const late = unique("late").slice(0, 20)
      expect(await status(anonymous().createUser({ username: late, email: `${late}@example.com`, password: "correct-horse-battery" } as never, "", team.invite_id))).toBe(501)
    } finally {
      await admin.client.patchConfig({ TeamSettings: { EnableOpenServer: true, EnableUserCreation: true } } as never)
    }
  })

  it("stops non-admins creating teams while team creation is off", async () => {
    await admin.client.patchConfig({ TeamSettings: { EnableTeamCreation: false } } as never)
    try {
      expect(await status(alice.client.createTeam({ name: unique("nope"), display_name: "Nope", type: "O" } as Team))).toBe(403)
      await admin.client.createTeam({ name: unique("yes"), display_name: "Yes", type: "O" } as Team)
    } finally {
      await admin.client.patchConfig({ TeamSettings: { EnableTeamCreation: true } } as never)
    }
    await alice.client.createTeam({ name: unique("again"), display_name: "Again", type: "O" } as Team)
  })
})

describe("the configuration document", () => {
  it("gives system admins every section with secrets masked, and nobody else anything", async () => {
    const config = expectShape(await admin.client.getConfig(), Wire.Config, "config")
    for (const section of ["ServiceSettings", "TeamSettings", "SqlSettings", "FileSettings", "EmailSettings", "LdapSettings", "SamlSettings", "PluginSettings", "GitLabSettings", "ElasticsearchSettings", "DataRetentionSettings", "GuestAccountsSettings"]) {
      expect(config, section).toHaveProperty(section)
    }
    expect(config.SqlSettings.DataSource).toBe("********************************")
    expect(config.ServiceSettings.SiteURL).toBe(server.config.siteUrl)
    expect(JSON.stringify(config)).not.toContain(server.databaseUrl)
    expect(await status(alice.client.getConfig())).toBe(403)
    expect(await status(anonymous().getConfig())).toBe(401)
    expect(expectShape(await admin.client.getEnvironmentConfig(), Wire.ConfigEnvironment, "environment settings")).toMatchObject({ ServiceSettings: { SiteURL: true } })
    expect(await status(alice.client.getEnvironmentConfig())).toBe(403)
  })

  it("applies what the console saves for settings the service changes at run time", async () => {
    const config = await admin.client.getConfig() as AdminConfig
    config.TeamSettings.SiteName = "Renamed Chat"
    config.FileSettings.MaxFileSize = 12345678
    const saved = expectShape(await admin.client.updateConfig(config), Wire.Config, "saved config")
    expect(saved.TeamSettings.SiteName).toBe("Renamed Chat")
    const client = await alice.client.getClientConfig() as Record<string, string>
    expect(client.SiteName).toBe("Renamed Chat")
    expect(client.MaxFileSize).toBe("12345678")
  })

  it("refuses any other change with 400 naming the setting, and changes nothing", async () => {
    const config = await admin.client.getConfig() as AdminConfig
    config.TeamSettings.SiteName = "Should Not Stick"
    config.ServiceSettings.SiteURL = "https://elsewhere.example"
    config.LdapSettings.Enable = true
    const refused = await errorOf(admin.client.updateConfig(config))
    expect(refused).toMatchObject({ status_code: 400, server_error_id: "api.config.update.not_changeable.app_error" })
    expect(refused?.message).toContain("ServiceSettings.SiteURL (set with SERVICE_SITE_URL)")
    expect(refused?.message).toContain("LdapSettings.Enable")
    expect(expectShape(await admin.client.getConfig(), Wire.Config, "config").TeamSettings.SiteName).toBe("Renamed Chat")
    expect(await status(admin.client.patchConfig({ Nonsense: { Setting: "x" } } as never))).toBe(400)
    expect(await status(admin.client.patchConfig({ TeamSettings: { SiteName: "" } } as never))).toBe(400)
    expect(await status(admin.client.patchConfig({ TeamSettings: { SiteName: "x".repeat(31) } } as never))).toBe(400)
    expect(await status(admin.client.patchConfig({ FileSettings: { MaxFileSize: -1 } } as never))).toBe(400)
    expect(await status(admin.client.patchConfig({ TeamSettings: { EnableOpenServer: "yes" } } as never))).toBe(400)
    expect(await status(admin.client.patchConfig({ GitLabSettings: { Enable: true } } as never))).toBe(400)
    expect(await status(alice.client.patchConfig({ TeamSettings: { SiteName: "Mine" } } as never))).toBe(403)
    const notJson = await raw(server.url, "/api/v4/config", { method: "PUT", token: admin.client.getToken(), body: "[1,2", headers: { "content-type": "application/json" } })
    expect(notJson.status).toBe(400)
  })

  it("sets and clears the push proxy and switches pushes through EmailSettings", async () => {
    const on = expectShape(await admin.client.patchConfig({ EmailSettings: { PushNotificationServer: "https://push.example.com", SendPushNotifications: true } } as never), Wire.Config, "config with push")
    expect(on.EmailSettings.PushNotificationServer).toBe("https://push.example.com")
    expect(on.EmailSettings.SendPushNotifications).toBe(true)
    const off = expectShape(await admin.client.patchConfig({ EmailSettings: { SendPushNotifications: false } } as never), Wire.Config, "config without push")
    // The switch alone, as in Mattermost: the server stays for when pushes are turned on again.
    expect(off.EmailSettings.PushNotificationServer).toBe("https://push.example.com")
    expect(off.EmailSettings.SendPushNotifications).toBe(false)
    expect(await status(admin.client.patchConfig({ EmailSettings: { PushNotificationServer: "" } } as never))).toBe(200)
    expect(await status(admin.client.patchConfig({ EmailSettings: { SendPushNotifications: true } } as never))).toBe(400)
    expect(await status(admin.client.patchConfig({ EmailSettings: { PushNotificationServer: "ftp://x" } } as never))).toBe(400)
  })
})

describe("statistics", () => {
  it("counts users for everyone, with filters for admins", async () => {
    const all = expectShape(await admin.client.getTotalUsersStats(), Wire.UsersStats, "user stats")
    expect(all.total_users_count).toBeGreaterThanOrEqual(4)
    const mine = await alice.client.getTotalUsersStats()
    expect(mine.total_users_count).toBeGreaterThanOrEqual(1)
    expect(await status(anonymous().getTotalUsersStats())).toBe(401)
    const inTeam = await admin.client.getFilteredUsersStats({ in_team: team.id })
    expect(inTeam.total_users_count).toBeGreaterThanOrEqual(2)
    const admins = await admin.client.getFilteredUsersStats({ roles: ["system_admin"] } as never)
    expect(admins.total_users_count).toBe(1)
    expect(await status(alice.client.getFilteredUsersStats({}))).toBe(403)
    expect((await raw(server.url, "/api/v4/users/stats/filtered?in_team=bad", { token: admin.client.getToken() })).status).toBe(400)
  })

  it("answers the console's site statistics, admins only", async () => {
    const town = (await admin.client.getMyChannels(team.id)).find((c) => c.name === "town-square")!
    await admin.client.createPost({ channel_id: town.id, message: "counted" } as never)
    const standard = await admin.client.getAnalytics("standard") as unknown as Array<{ name: string; value: number }>
    const byName = Object.fromEntries(standard.map((r) => [r.name, r.value]))
    expect(Object.keys(byName)).toEqual(expect.arrayContaining(["channel_open_count", "channel_private_count", "post_count", "unique_user_count", "team_count", "total_websocket_connections", "daily_active_users", "monthly_active_users", "inactive_user_count"]))
    expect(byName.post_count).toBeGreaterThanOrEqual(1)
    expect(byName.team_count).toBeGreaterThanOrEqual(1)
    const today = new Date().toISOString().slice(0, 10)
    const perDay = await admin.client.getAnalytics("post_counts_day") as unknown as Array<{ name: string; value: number }>
    expect(perDay.find((r) => r.name === today)?.value).toBeGreaterThanOrEqual(1)
    const users = await admin.client.getAnalytics("user_counts_with_posts_day", team.id) as unknown as Array<{ name: string; value: number }>
    // Distinct authors of today's posts in the team's channels, as the API shows them: the admin's post and every
    // join post (the creator's and each joiner's system_join_team/join_channel: system posts count as their user's).
    const all = await admin.client.getAllChannels(0, 200, undefined, false, false, true, undefined, undefined, undefined)
    const channels = all.filter((c) => c.team_id === team.id)
    const authors = new Set<string>()
    for (const channel of channels) {
      const page = await admin.client.getPosts(channel.id, 0, 200)
      for (const post of Object.values(page.posts)) if (new Date(post.create_at).toISOString().slice(0, 10) === today) authors.add(post.user_id)
    }
    expect(authors.size).toBeGreaterThanOrEqual(2)
    expect(users.find((r) => r.name === today)?.value).toBe(authors.size)
    expect(await admin.client.getAnalytics("bot_post_counts_day")).toEqual([])
    expect(await status(alice.client.getAnalytics("standard"))).toBe(403)
    expect(await status(alice.client.getAnalytics("post_counts_day", team.id))).toBe(403)
    expect(await status(admin.client.getAnalytics("everything"))).toBe(400)
  })
})

describe("System Console user management", () => {
  const reportOf = (client: Client4, filter: Record<string, unknown>) => client.getUsersForReporting(filter as never) as Promise<Array<{ id: string; username: string; last_login: number; total_posts?: number }>>

  it("pages the user report by cursor, searches and counts it, admins only", async () => {
    const first = await reportOf(admin.client, { page_size: 2, sort_column: "Username", sort_direction: "asc" })
    expect(first).toHaveLength(2)
    expect(first[0].username < first[1].username).toBe(true)
    const last = first[1]
    const second = await reportOf(admin.client, { page_size: 2, sort_column: "Username", sort_direction: "asc", direction: "next", from_column_value: last.username, from_id: last.id })
    expect(second[0].username > last.username).toBe(true)
    const back = await reportOf(admin.client, { page_size: 2, sort_column: "Username", sort_direction: "asc", direction: "prev", from_column_value: second[0].username, from_id: second[0].id })
    expect(back.map((u) => u.id)).toEqual(first.map((u) => u.id))
    const found = await reportOf(admin.client, { search_term: alice.username.slice(0, 8) })
    expect(found.map((u) => u.id)).toContain(alice.user.id)
    const adminRow = (await reportOf(admin.client, { search_term: admin.username }))[0]
    expect(adminRow.last_login).toBeGreaterThan(0)
    expect(adminRow.total_posts).toBeGreaterThanOrEqual(1)
    expect(expectShape(adminRow, Wire.UserReport, "report row").last_post_date).toBeGreaterThan(0)
    first.forEach((row, i) => expectShape(row, Wire.UserReport, `report[${i}]`))
    const count = await admin.client.getUserCountForReporting({ role_filter: "system_admin" } as never)
    expect(count).toBe(1)
    expect(await status(alice.client.getUsersForReporting({} as never))).toBe(403)
    expect(await status(admin.client.getUsersForReporting({ sort_column: "Password" } as never))).toBe(400)
    expect(await status(admin.client.getUsersForReporting({ page_size: 0 } as never))).toBe(400)
    expect(await status(admin.client.getUsersForReporting({ from_id: "bad" } as never))).toBe(400)
    expect(await status(admin.client.getUsersForReporting({ sort_column: "CreateAt", from_column_value: "yesterday", from_id: alice.user.id } as never))).toBe(400)
  })

  it("promotes and demotes, the user's open session taking the new role at once", async () => {
    const carol = await newUser(server.url, "carol")
    expect(await status(carol.client.getConfig())).toBe(403)
    await admin.client.updateUserRoles(carol.user.id, "system_user system_admin")
    expect(await status(carol.client.getConfig())).toBe(200)
    expect((await admin.client.getUser(carol.user.id)).roles).toBe("system_admin system_user")
    await admin.client.updateUserRoles(carol.user.id, "system_user")
    expect(await status(carol.client.getConfig())).toBe(403)
    expect(await status(alice.client.updateUserRoles(alice.user.id, "system_user system_admin"))).toBe(403)
    expect(await status(admin.client.updateUserRoles(carol.user.id, "system_admin"))).toBe(400)
    expect(await status(admin.client.updateUserRoles(carol.user.id, "system_user team_admin"))).toBe(400)
    expect(await status(admin.client.updateUserRoles(admin.user.id, "system_user"))).toBe(400)
    expect(await status(admin.client.updateUserRoles("abcdefghijklmnopqrstuvwxyz", "system_user"))).toBe(404)
  })

  it("deactivates, reactivates, revokes sessions and resets a password", async () => {
    const dave = await newUser(server.url, "dave")
    await admin.client.revokeAllSessionsForUser(dave.user.id)
    expect(await status(dave.client.getMe())).toBe(401)
    await admin.client.updateUserPassword(dave.user.id, "", "a-brand-new-password")
    const again = client4(server.url)
    await again.login(dave.username, "a-brand-new-password")
    await admin.client.updateUserActive(dave.user.id, false)
    expect(await status(again.getMe())).toBe(401)
    await admin.client.updateUserActive(dave.user.id, true)
    await client4(server.url).login(dave.username, "a-brand-new-password")
  })

  it("lists and searches teams with totals", async () => {
    const listed = await admin.client.getTeams(0, 50, true) as unknown as { teams: Array<Team>; total_count: number }
    expect(listed.total_count).toBeGreaterThanOrEqual(2)
    const paged = await admin.client.searchTeams("invite", { page: 0, per_page: 10 } as never) as unknown as { teams: Array<Team>; total_count: number }
    expect(paged.teams.map((t) => t.id)).toEqual([team.id])
    expect(paged.total_count).toBe(1)
    const plain = await admin.client.searchTeams(team.name.slice(0, 6), {} as never) as unknown as Array<Team>
    expect(plain.map((t) => t.id)).toContain(team.id)
    expect(await alice.client.searchTeams("closed", {} as never)).toEqual([])
    expect(await status(admin.client.searchTeams("x", { page: -1, per_page: 10 } as never))).toBe(400)
  })
})

describe("the direct message picker and notices", () => {
  it("finds the caller's own group messages by a member's name, and nobody else's", async () => {
    const erin = await newUser(server.url, "erin")
    const frank = await newUser(server.url, "frank")
    await admin.client.addToTeam(team.id, erin.user.id)
    await admin.client.addToTeam(team.id, frank.user.id)
    await admin.client.addToTeam(team.id, alice.user.id).catch(() => undefined)
    const group = await erin.client.createGroupChannel([erin.user.id, frank.user.id, alice.user.id])
    expect((await erin.client.searchGroupChannels(frank.username.slice(0, 6))).map((c) => c.id)).toContain(group.id)
    expect((await erin.client.searchGroupChannels(`${frank.username} ${alice.username}`)).map((c) => c.id)).toContain(group.id)
    expect(await erin.client.searchGroupChannels("zzzz-nobody")).toEqual([])
    expect((await admin.client.searchGroupChannels(frank.username)).map((c) => c.id)).not.toContain(group.id)
    expect(await status(anonymous().searchGroupChannels("x"))).toBe(401)
    expect((await raw(server.url, "/api/v4/channels/group/search", { method: "POST", token: erin.client.getToken(), body: { term: 5 } })).status).toBe(400)
  })

  it("has no product notices and accepts them as viewed", async () => {
    expect(await admin.client.getInProductNotices(team.id, "web", "10.11.0")).toEqual([])
    expect(await admin.client.updateNoticesAsViewed(["some_notice"])).toMatchObject({ status: "OK" })
    expect(await status(anonymous().updateNoticesAsViewed(["x"]))).toBe(401)
  })
})

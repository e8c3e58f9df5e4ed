import type { Channel } from "@mattermost/types/channels"
import type { Team, TeamMembership } from "@mattermost/types/teams"
import type { UserProfile } from "@mattermost/types/users"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { raw } from "../compat/Raw.ts"
import { expectShape, Wire } from "../compat/Shapes.ts"
import { client4, newUser, unique } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * The calls the System Console's administration pages make (issue 12), through Client4 as the console makes them:
 * User Management > Users (lists with the console's filters and counts, search, deactivate and activate, roles,
 * sessions, password reset), Teams (list, detail page, members and their roles, invite link regeneration) and Team
 * Statistics. Each with who may and who may not.
 */
type Member = Awaited<ReturnType<typeof newUser>>

let server: TestServer
let admin: Member
let alice: Member
let bob: Member
let gone: Member
let stranger: Member
let team: Team

beforeAll(async () => {
  server = await startServer()
  admin = await newUser(server.url, "admin")
  alice = await newUser(server.url, "alice")
  bob = await newUser(server.url, "bob")
  gone = await newUser(server.url, "gone")
  stranger = await newUser(server.url, "stranger")
  team = await alice.client.createTeam({ name: unique("console"), display_name: "Console Team", type: "O", allow_open_invite: true } as Team)
  await alice.client.addToTeam(team.id, bob.user.id)
  await alice.client.addToTeam(team.id, gone.user.id)
  await admin.client.updateUserActive(gone.user.id, false)
})
afterAll(() => server?.close())

const status = (promise: Promise<unknown>) => promise.then(() => 200, (e: { status_code?: number }) => e.status_code)
const ids = (users: ReadonlyArray<{ id: string }>) => users.map((u) => u.id).sort()
const sorted = (...members: Array<Member>) => members.map((m) => m.user.id).sort()

describe("User Management > Users", () => {
  it("lists users with the console's filters and pages, and counts the same sets", async () => {
    const all = await admin.client.getProfiles(0, 100)
    expect(ids(all)).toEqual(expect.arrayContaining(sorted(admin, alice, bob, gone, stranger)))
    const first = await admin.client.getProfiles(0, 2, { active: true })
    const second = await admin.client.getProfiles(1, 2, { active: true })
    expect(first).toHaveLength(2)
    expect(second).toHaveLength(2)
    expect(ids([...first, ...second])).toHaveLength(new Set(ids([...first, ...second])).size)
    expect(ids(await admin.client.getProfiles(0, 100, { active: true }))).not.toContain(gone.user.id)
    expect(ids(await admin.client.getProfiles(0, 100, { inactive: true }))).toEqual([gone.user.id])
    expect(ids(await admin.client.getProfiles(0, 100, { role: "system_admin" }))).toEqual([admin.user.id])
    expect(ids(await admin.client.getProfiles(0, 100, { roles: ["system_admin"] } as never))).toEqual([admin.user.id])
    // system_user alone means plain users, as Mattermost filters it.
    expect(ids(await admin.client.getProfiles(0, 100, { roles: ["system_user"], active: true } as never))).toEqual(sorted(alice, bob, stranger))

    expect(expectShape(await admin.client.getFilteredUsersStats({}), Wire.UsersStats, "filtered stats").total_users_count).toBe(4)
    expect((await admin.client.getFilteredUsersStats({ include_deleted: true } as never)).total_users_count).toBe(5)
    expect((await admin.client.getFilteredUsersStats({ roles: ["system_user"] } as never)).total_users_count).toBe(3)
    expect((await admin.client.getTotalUsersStats()).total_users_count).toBe(4)
    await expect(admin.client.getProfiles(0, 100, { roles: ["Robert'); DROP TABLE users"] } as never)).rejects.toMatchObject({ status_code: 400, message: expect.stringContaining("roles") })
  })

  it("searches with allow_inactive and the role filters; everyone may ask for inactive users they can see", async () => {
    const prefix = gone.username.slice(0, 6)
    expect(ids(await admin.client.searchUsers(prefix, {}))).not.toContain(gone.user.id)
    expect(ids(await admin.client.searchUsers(prefix, { allow_inactive: true }))).toContain(gone.user.id)
    // Mattermost lets anyone include deactivated users (the DM picker marks them); visibility still applies.
    expect(ids(await bob.client.searchUsers(prefix, { allow_inactive: true }))).toContain(gone.user.id)
    expect(ids(await stranger.client.searchUsers(prefix, { allow_inactive: true }))).not.toContain(gone.user.id)
    expect(ids(await admin.client.searchUsers("", { allow_inactive: true, role: "system_admin" } as never))).toEqual([admin.user.id])
    expect(ids(await admin.client.searchUsers("", { team_id: team.id, team_roles: ["team_admin"] } as never))).toEqual([alice.user.id])
    expect(ids(await admin.client.searchUsers("", { team_id: team.id, roles: ["system_admin"], team_roles: ["team_admin"] } as never))).toEqual([alice.user.id])
    await expect(admin.client.searchUsers("x", { roles: "system_admin" } as never)).rejects.toMatchObject({ status_code: 400 })
    await expect(client4(server.url).searchUsers("x", {})).rejects.toMatchObject({ status_code: 401 })
  })

  it("deactivates, activates, revokes sessions, lists them and resets passwords for system admins only", async () => {
    const carol = await newUser(server.url, "carol")
    await alice.client.addToTeam(team.id, carol.user.id)
    // A team mate (and even the team's admin) may not do any of it to someone else.
    expect(await status(alice.client.updateUserActive(carol.user.id, false))).toBe(403)
    expect(await status(alice.client.revokeAllSessionsForUser(carol.user.id))).toBe(403)
    expect(await status(alice.client.getSessions(carol.user.id))).toBe(403)
    expect(await status(alice.client.updateUserPassword(carol.user.id, "", "another-long-password"))).toBe(403)
    expect(await status(carol.client.getMe())).toBe(200)

    const sessions = await admin.client.getSessions(carol.user.id)
    expect(sessions).toHaveLength(1)
    expect(sessions[0]).toMatchObject({ user_id: carol.user.id })
    expect(sessions[0].token).toBe("") // sanitised as Mattermost sends it
    await admin.client.revokeAllSessionsForUser(carol.user.id)
    expect(await status(carol.client.getMe())).toBe(401)
    expect(await admin.client.getSessions(carol.user.id)).toEqual([])

    // The admin's reset needs no current password; the old one stops working.
    await admin.client.updateUserPassword(carol.user.id, "", "reset-by-the-admin")
    expect(await status(client4(server.url).login(carol.username, carol.password))).toBe(401)
    const again = client4(server.url)
    await again.login(carol.username, "reset-by-the-admin")

    await admin.client.updateUserActive(carol.user.id, false)
    expect(await status(again.getMe())).toBe(401)
    expect((await admin.client.getUser(carol.user.id)).delete_at).toBeGreaterThan(0)
    await admin.client.updateUserActive(carol.user.id, true)
    expect((await admin.client.getUser(carol.user.id)).delete_at).toBe(0)
    await client4(server.url).login(carol.username, "reset-by-the-admin")
    await alice.client.removeFromTeam(team.id, carol.user.id)
  })

  it("shows and edits a user on the user's page: details, teams and team roles", async () => {
    const patched = await admin.client.patchUser({ id: bob.user.id, nickname: "Bobby", email: `${bob.username}@new.example` } as never)
    expect(patched).toMatchObject({ nickname: "Bobby", email: `${bob.username}@new.example` })
    expect(await status(alice.client.patchUser({ id: bob.user.id, nickname: "Not yours" } as never))).toBe(403)
    expect((await admin.client.getTeamsForUser(bob.user.id)).map((t) => t.id)).toContain(team.id)
    const memberships = await admin.client.getTeamMembersForUser(bob.user.id)
    expect(memberships.find((m) => m.team_id === team.id)).toMatchObject({ user_id: bob.user.id, scheme_admin: false })
    expect(await status(alice.client.getTeamsForUser(bob.user.id))).toBe(403)
    await admin.client.patchUser({ id: bob.user.id, email: `${bob.username}@example.com` } as never)
  })
})

describe("a system admin acting for another user", () => {
  it("reads a user's sidebar, and gets 404 (not a storage error) for a user who does not exist", async () => {
    const { categories } = await admin.client.getChannelCategories(bob.user.id, team.id)
    expect(categories.map((c) => (c as typeof c & { sort_order: number }).sort_order)).toEqual(categories.map((_, i) => i * 10))
    await expect(admin.client.getChannelCategories("abcdefghijklmnopqrstuvwxyz", team.id)).rejects.toMatchObject({ status_code: 404, server_error_id: "app.user.missing_account.const" })
    await expect(admin.client.deleteChannelCategory("abcdefghijklmnopqrstuvwxyz", team.id, "x")).rejects.toMatchObject({ status_code: 404 })
    await expect(alice.client.getChannelCategories(bob.user.id, team.id)).rejects.toMatchObject({ status_code: 403 })
  })
})

describe("User Management > Teams", () => {
  it("opens a team's page for a system admin outside it: team, members, their roles, adding and removing", async () => {
    expect(await admin.client.getTeam(team.id)).toMatchObject({ id: team.id, display_name: "Console Team" })
    // No synced groups here: the page's group list is empty, for those who may list the team's channels.
    expect(await admin.client.getGroupsAssociatedToTeam(team.id, "", 0, 10)).toEqual({ groups: [], total_group_count: 0 })
    expect(await bob.client.getAllGroupsAssociatedToTeam(team.id)).toEqual({ groups: [], total_group_count: 0 })
    expect(await status(stranger.client.getGroupsAssociatedToTeam(team.id))).toBe(403)
    const town = await admin.client.getChannelByName(team.id, "town-square")
    expect(await admin.client.getGroupsAssociatedToChannel(town.id)).toEqual({ groups: [], total_group_count: 0 })
    expect(await status(stranger.client.getGroupsAssociatedToChannel(town.id))).toBe(403)
    const members = await admin.client.getTeamMembers(team.id, 0, 10) as Array<TeamMembership>
    expect(members.map((m) => m.user_id).sort()).toEqual(expect.arrayContaining(sorted(alice, bob)))
    // gone is deactivated: a member, not an active one.
    expect(await admin.client.getTeamStats(team.id)).toEqual({ team_id: team.id, total_member_count: 3, active_member_count: 2 })
    const profiles = await admin.client.getProfilesInTeam(team.id, 0, 10, "", { active: true })
    expect(ids(profiles)).toEqual(sorted(alice, bob))
    // The page's role filter: team admins, plain members, system admins.
    expect(ids(await admin.client.getProfilesInTeam(team.id, 0, 10, "", { team_roles: ["team_admin"] } as never))).toEqual([alice.user.id])
    expect(ids(await admin.client.getProfilesInTeam(team.id, 0, 10, "", { team_roles: ["team_user"], active: true } as never))).toEqual([bob.user.id])
    expect((await admin.client.getFilteredUsersStats({ in_team: team.id, team_roles: ["team_admin"] } as never)).total_users_count).toBe(1)
    expect((await admin.client.getFilteredUsersStats({ in_team: team.id, include_deleted: true } as never)).total_users_count).toBe(3)

    await admin.client.updateTeamMemberSchemeRoles(team.id, bob.user.id, true, true)
    expect(ids(await admin.client.getProfilesInTeam(team.id, 0, 10, "", { team_roles: ["team_admin"] } as never))).toEqual(sorted(alice, bob))
    await admin.client.updateTeamMemberSchemeRoles(team.id, bob.user.id, true, false)
    expect(await status(bob.client.updateTeamMemberSchemeRoles(team.id, bob.user.id, true, true))).toBe(403)
    expect(await status(admin.client.updateTeamMemberSchemeRoles(team.id, bob.user.id, false, true))).toBe(400)
    expect(await status(admin.client.updateTeamMemberSchemeRoles(team.id, stranger.user.id, true, true))).toBe(404)
    expect((await raw(server.url, `/api/v4/teams/${team.id}/members/${bob.user.id}/schemeRoles`, { method: "PUT", token: admin.client.getToken(), body: { scheme_admin: "yes" } })).status).toBe(400)

    // A system admin in the team is listed under System Admin only, never as a team admin or member.
    await admin.client.addToTeam(team.id, admin.user.id)
    await admin.client.updateTeamMemberSchemeRoles(team.id, admin.user.id, true, true)
    expect(ids(await admin.client.getProfilesInTeam(team.id, 0, 10, "", { team_roles: ["team_admin"] } as never))).toEqual([alice.user.id])
    expect(ids(await admin.client.getProfilesInTeam(team.id, 0, 10, "", { roles: ["system_admin"], team_roles: ["team_user"], active: true } as never))).toEqual(sorted(admin, bob))
    await admin.client.removeFromTeam(team.id, admin.user.id)

    await admin.client.addToTeam(team.id, stranger.user.id)
    expect(ids(await admin.client.getProfilesInTeam(team.id, 0, 10, "", { active: true }))).toEqual(sorted(alice, bob, stranger))
    await admin.client.removeFromTeam(team.id, stranger.user.id)
    expect(ids(await admin.client.getProfilesInTeam(team.id, 0, 10, "", { active: true }))).toEqual(sorted(alice, bob))

    const patched = await admin.client.patchTeam({ id: team.id, allow_open_invite: false, display_name: "Console Team 2" } as Team)
    expect(patched).toMatchObject({ allow_open_invite: false, display_name: "Console Team 2" })
    await admin.client.patchTeam({ id: team.id, allow_open_invite: true } as Team)
    expect(await status(bob.client.patchTeam({ id: team.id, display_name: "Mine" } as Team))).toBe(403)
  })

  it("regenerating the invite id invalidates the old links for info, joining and signing up; team admins only", async () => {
    const old = (await alice.client.getTeam(team.id)).invite_id
    expect(await status(bob.client.regenerateTeamInviteId(team.id))).toBe(403)
    expect(await status(stranger.client.regenerateTeamInviteId(team.id))).toBe(403)
    expect(await status(client4(server.url).regenerateTeamInviteId(team.id))).toBe(401)
    const regenerated = await alice.client.regenerateTeamInviteId(team.id)
    expect(regenerated.id).toBe(team.id)
    expect(regenerated.invite_id).not.toBe(old)
    expect((await admin.client.regenerateTeamInviteId(team.id)).invite_id).not.toBe(regenerated.invite_id)
    const current = (await alice.client.getTeam(team.id)).invite_id

    const anonymous = client4(server.url)
    for (const stale of [old, regenerated.invite_id]) {
      await expect(anonymous.getTeamInviteInfo(stale)).rejects.toMatchObject({ status_code: 404, server_error_id: "app.team.get_by_invite_id.finding.app_error" })
      await expect(stranger.client.addToTeamFromInvite("", stale)).rejects.toMatchObject({ status_code: 404 })
      const name = unique("late").slice(0, 20)
      await expect(anonymous.createUser({ username: name, email: `${name}@example.com`, password: "correct-horse-battery" } as never, "", stale))
        .rejects.toMatchObject({ status_code: 404 })
    }
    expect(expectShape(await anonymous.getTeamInviteInfo(current), Wire.TeamInviteInfo, "invite info")).toMatchObject({ id: team.id })
    expect(await stranger.client.addToTeamFromInvite("", current)).toMatchObject({ team_id: team.id, user_id: stranger.user.id })
    await alice.client.removeFromTeam(team.id, stranger.user.id)
  })
})

describe("Team Statistics", () => {
  it("counts one team's channels, posts and posting users, for system admins only", async () => {
    type Row = { name: string; value: number }
    const standardOf = async () =>
      Object.fromEntries((await admin.client.getAnalytics("standard", team.id) as unknown as Array<Row>).map((r) => [r.name, r.value]))
    const today = new Date().toISOString().slice(0, 10)
    const todayOf = async (name: string) =>
      (await admin.client.getAnalytics(name, team.id) as unknown as Array<Row>).find((r) => r.name === today)?.value ?? 0
    // The team's system posts (its members' joins, as Mattermost writes them) are there before: count from here.
    const before = { standard: await standardOf(), posts: await todayOf("post_counts_day"), users: await todayOf("user_counts_with_posts_day") }
    const other = await bob.client.createTeam({ name: unique("other"), display_name: "Other", type: "O" } as Team)
    const otherTown = await bob.client.getChannelByName(other.id, "town-square")
    await bob.client.createPost({ channel_id: otherTown.id, message: "elsewhere" } as never)
    const town = await alice.client.getChannelByName(team.id, "town-square")
    await alice.client.createPost({ channel_id: town.id, message: "here" } as never)
    await alice.client.createPost({ channel_id: town.id, message: "here again" } as never)
    await alice.client.createChannel({ team_id: team.id, name: unique("priv"), display_name: "Private", type: "P" } as Channel)

    const rows = await admin.client.getAnalytics("standard", team.id) as unknown as Array<Row>
    rows.forEach((r, i) => expectShape(r, Wire.AnalyticsRow, `analytics[${i}]`))
    const standard = Object.fromEntries(rows.map((r) => [r.name, r.value]))
    expect(standard).toMatchObject({
      post_count: before.standard.post_count + 2,
      channel_private_count: before.standard.channel_private_count + 1,
      unique_user_count: 2
    })
    expect(await todayOf("post_counts_day")).toBe(before.posts + 2)
    // alice's posts add her at most once (she may have posted today already: the system posts of adding others); bob's
    // post in the other team adds nobody here.
    expect(await todayOf("user_counts_with_posts_day")).toBeGreaterThanOrEqual(Math.max(1, before.users))
    expect(await todayOf("user_counts_with_posts_day")).toBeLessThanOrEqual(before.users + 1)
    // The page's user lists: newest members and most recently active.
    expect((await admin.client.getProfilesInTeam(team.id, 0, 10, "create_at")).map((u) => u.id)).toEqual([gone.user.id, bob.user.id, alice.user.id])
    const active = await admin.client.getProfilesInTeam(team.id, 0, 10, "last_activity_at") as Array<UserProfile>
    expect(ids(active)).toEqual(sorted(alice, bob, gone))
    for (const u of active) expect(typeof u.last_activity_at).toBe("number")

    expect(await status(alice.client.getAnalytics("standard", team.id))).toBe(403)
    expect(await status(admin.client.getAnalytics("standard", "abcdefghijklmnopqrstuvwxyz"))).toBe(404)
    expect((await raw(server.url, `/api/v4/analytics/old?name=standard&team_id=bad`, { token: admin.client.getToken() })).status).toBe(400)
  })
})

describe("Authentication > OpenID Connect: the SSO switch", () => {
  it("turns single sign-on on and off through the configuration document once a provider exists", async () => {
    const created = await raw(server.url, "/api/v1/admin/sso", {
      method: "POST",
      token: admin.client.getToken(),
      body: { provider_key: "corp", provider_type: "oidc", display_name: "Corp", issuer_url: "http://127.0.0.1:9", client_id: "x", client_secret: "s-corp-1", is_active: true, auto_provision: true }
    })
    expect(created.status).toBe(201)
    const on = expectShape(await admin.client.patchConfig({ OpenIdSettings: { Enable: true } } as never), Wire.Config, "config after enabling OpenID")
    expect(on.OpenIdSettings.Enable).toBe(true)
    expect(expectShape(await admin.client.getConfig(), Wire.Config, "config").OpenIdSettings.Enable).toBe(true)
    expect((await client4(server.url).getClientConfig() as Record<string, string>).EnableSignUpWithOpenId).toBe("true")
    expect(await status(alice.client.patchConfig({ OpenIdSettings: { Enable: false } } as never))).toBe(403)
    const off = expectShape(await admin.client.patchConfig({ OpenIdSettings: { Enable: false } } as never), Wire.Config, "config after disabling OpenID")
    expect(off.OpenIdSettings.Enable).toBe(false)
    expect((await client4(server.url).getClientConfig() as Record<string, string>).EnableSignUpWithOpenId).toBe("false")
  })
})

import type { Channel } from "@mattermost/types/channels"
import type { Team } from "@mattermost/types/teams"
import type { UserProfile } from "@mattermost/types/users"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectShape, Wire } from "../compat/Shapes.ts"
import { raw } from "../compat/Raw.ts"
import { client4, newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * The user directory: lookups, bulk reads, lists with their filters, autocomplete, search, known users and group
 * channel members, under the visibility rule (shared team or channel; admins see everyone).
 */
type Member = Awaited<ReturnType<typeof newUser>>

let server: TestServer
let admin: Member
let alice: Member
let bob: Member
let carol: Member
let dave: Member
let team: Team
let privateChannel: Channel

beforeAll(async () => {
  server = await startServer()
  admin = await newUser(server.url, "admin")
  alice = await newUser(server.url, "alice")
  bob = await newUser(server.url, "bob")
  carol = await newUser(server.url, "carol")
  dave = await newUser(server.url, "dave")
  team = await alice.client.createTeam({ name: `team${Date.now()}`, display_name: "Directory", type: "O" } as Team)
  await alice.client.addToTeam(team.id, bob.user.id)
  privateChannel = await alice.client.createChannel({ team_id: team.id, name: `priv${Date.now()}`, display_name: "Private", type: "P" } as Channel)
  await alice.client.createDirectChannel([alice.user.id, dave.user.id])
})
afterAll(() => server?.close())

const ids = (users: ReadonlyArray<{ id: string }>) => users.map((u) => u.id).sort()

describe("single user lookups", () => {
  it("shows team mates and hides strangers with 403; unknown is 404, malformed 400", async () => {
    const seen = await bob.client.getUser(alice.user.id)
    expectShape(seen, Wire.User, "user")
    expect(seen.username).toBe(alice.username)
    expect(seen.email).toBe("")
    expect(seen).not.toHaveProperty("password")
    await expect(carol.client.getUser(alice.user.id)).rejects.toMatchObject({ status_code: 403, server_error_id: "api.context.permissions.app_error" })
    await expect(bob.client.getUser("abcdefghijklmnopqrstuvwxyz")).rejects.toMatchObject({ status_code: 404 })
    await expect(bob.client.getUser("nope")).rejects.toMatchObject({ status_code: 400 })
    const byAdmin = await admin.client.getUser(carol.user.id)
    expect(byAdmin.email).toBe(`${carol.username}@example.com`)
    expect((await carol.client.getUser("me")).id).toBe(carol.user.id)
  })

  it("keeps DM partners visible without a shared team", async () => {
    expect((await dave.client.getUser(alice.user.id)).id).toBe(alice.user.id)
    expect((await alice.client.getUserByUsername(dave.username)).id).toBe(dave.user.id)
  })

  it("looks users up by username and, for oneself and admins, by email", async () => {
    expect((await bob.client.getUserByUsername(alice.username.toUpperCase())).id).toBe(alice.user.id)
    await expect(carol.client.getUserByUsername(alice.username)).rejects.toMatchObject({ status_code: 403 })
    await expect(bob.client.getUserByUsername("nobody_here")).rejects.toMatchObject({ status_code: 404 })
    expect((await alice.client.getUserByEmail(`${alice.username}@example.com`)).id).toBe(alice.user.id)
    await expect(bob.client.getUserByEmail(`${alice.username}@example.com`)).rejects.toMatchObject({ status_code: 403 })
    await expect(bob.client.getUserByEmail("nobody@example.com")).rejects.toMatchObject({ status_code: 403 })
    await expect(admin.client.getUserByEmail("nobody@example.com")).rejects.toMatchObject({ status_code: 404 })
    expect((await admin.client.getUserByEmail(`${bob.username}@example.com`)).id).toBe(bob.user.id)
  })

  it("needs a session", async () => {
    await expect(client4(server.url).getUser(alice.user.id)).rejects.toMatchObject({ status_code: 401 })
  })
})

describe("bulk reads", () => {
  it("returns only visible users by ids, and with since only the ones updated after it", async () => {
    const users = await bob.client.getProfilesByIds([alice.user.id, carol.user.id, bob.user.id])
    expect(ids(users)).toEqual([alice.user.id, bob.user.id].sort())
    for (const u of users) expectShape(u, Wire.User, u.username)
    const before = Date.now()
    await alice.client.patchMe({ nickname: "Ally" })
    const changed = await bob.client.getProfilesByIds([alice.user.id, bob.user.id], { since: before - 1 } as never)
    expect(ids(changed)).toEqual([alice.user.id])
    await expect(bob.client.getProfilesByIds([])).rejects.toMatchObject({ status_code: 400 })
    await expect(bob.client.getProfilesByIds(["bad-id"])).rejects.toMatchObject({ status_code: 400 })
  })

  it("returns visible users by usernames", async () => {
    const users = await bob.client.getProfilesByUsernames([alice.username, carol.username, "ghost"])
    expect(ids(users)).toEqual([alice.user.id])
  })
})

describe("lists", () => {
  it("lists team members, non-members and channel members with paging", async () => {
    const inTeam = await bob.client.getProfilesInTeam(team.id, 0, 60)
    expect(ids(inTeam)).toEqual([alice.user.id, bob.user.id].sort())
    const firstPage = await bob.client.getProfilesInTeam(team.id, 0, 1)
    const secondPage = await bob.client.getProfilesInTeam(team.id, 1, 1)
    expect(firstPage).toHaveLength(1)
    expect(secondPage).toHaveLength(1)
    expect(firstPage[0].id).not.toBe(secondPage[0].id)
    const byCreate = await bob.client.getProfilesInTeam(team.id, 0, 60, "create_at")
    expect(byCreate[0].id).toBe(bob.user.id)
    const byActivity = await bob.client.getProfilesInTeam(team.id, 0, 60, "last_activity_at")
    for (const u of byActivity) expect(typeof u.last_activity_at).toBe("number")
    await bob.client.updateStatus({ user_id: bob.user.id, status: "online" } as never)
    await alice.client.updateStatus({ user_id: alice.user.id, status: "dnd" } as never)
    const townSquare = await bob.client.getChannelByName(team.id, "town-square")
    const byStatus = await bob.client.getProfilesInChannel(townSquare.id, 0, 60, "status")
    expect(byStatus.map((u) => u.id)).toEqual([bob.user.id, alice.user.id])

    const notInTeam = await admin.client.getProfilesNotInTeam(team.id, false, 0, 60)
    expect(ids(notInTeam)).toEqual(expect.arrayContaining([carol.user.id, dave.user.id, admin.user.id]))
    expect(ids(notInTeam)).not.toContain(alice.user.id)

    const inChannel = await alice.client.getProfilesInChannel(privateChannel.id, 0, 60)
    expect(ids(inChannel)).toEqual([alice.user.id])
    const notInChannel = await alice.client.getProfilesNotInChannel(team.id, privateChannel.id, false, 0, 60)
    expect(ids(notInChannel)).toEqual([bob.user.id])
  })

  it("sorts channel members admins first (the mobile app's Manage Members screen), then by username", async () => {
    const channel: Channel = await bob.client.createChannel({ team_id: team.id, name: `adm${Date.now()}`, display_name: "Admins", type: "O" } as Channel)
    await bob.client.addToChannel(alice.user.id, channel.id)
    // As the app sends it: sort=admin&active=true; bob created the channel, so he is its admin.
    const byAdmin = await alice.client.getProfilesInChannel(channel.id, 0, 60, "admin", { active: true })
    expect(byAdmin.map((u) => u.id)).toEqual([bob.user.id, alice.user.id])
    expect(byAdmin.map((u) => u.id)).not.toEqual((await alice.client.getProfilesInChannel(channel.id, 0, 60)).map((u) => u.id))

    await bob.client.updateChannelMemberSchemeRoles(channel.id, alice.user.id, true, true)
    await bob.client.updateChannelMemberSchemeRoles(channel.id, bob.user.id, true, false)
    expect((await alice.client.getProfilesInChannel(channel.id, 0, 60, "admin")).map((u) => u.id)).toEqual([alice.user.id, bob.user.id])
    expect((await alice.client.getProfilesInChannel(channel.id, 0, 1, "admin")).map((u) => u.id)).toEqual([alice.user.id])
    expect((await alice.client.getProfilesInChannel(channel.id, 1, 1, "admin")).map((u) => u.id)).toEqual([bob.user.id])
  })

  it("refuses a sort outside the scope Mattermost offers it in, naming what it needs", async () => {
    const townSquare = await bob.client.getChannelByName(team.id, "town-square")
    const refused = { status_code: 400, server_error_id: "api.context.invalid_url_param.app_error" }
    await expect(bob.client.getProfiles(0, 60, { sort: "admin" })).rejects.toMatchObject({ ...refused, message: expect.stringContaining("in_channel") })
    await expect(bob.client.getProfilesInTeam(team.id, 0, 60, "status")).rejects.toMatchObject(refused)
    await expect(bob.client.getProfilesInChannel(townSquare.id, 0, 60, "create_at")).rejects.toMatchObject({ ...refused, message: expect.stringContaining("in_team") })
    await expect(bob.client.getProfiles(0, 60, { sort: "last_activity_at" })).rejects.toMatchObject(refused)
    await expect(bob.client.getProfilesInTeam(team.id, 0, 60, "create_at", { in_channel: townSquare.id })).rejects.toMatchObject(refused)
  })

  it("says in plain words which parameter was wrong and what it accepts (the mobile app's 400s)", async () => {
    const townSquare = await bob.client.getChannelByName(team.id, "town-square")
    const error = await bob.client.getProfilesInChannel(townSquare.id, 0, 60, "by_mood").then(() => undefined, (e: { status_code: number; message: string; server_error_id: string }) => e)
    expect(error).toMatchObject({ status_code: 400, server_error_id: "api.context.invalid_param.app_error" })
    expect(error!.message).toMatch(/sort/)
    expect(error!.message).toMatch(/"by_mood"/)
    for (const accepted of ["create_at", "last_activity_at", "status", "admin"]) expect(error!.message).toContain(accepted)
    const page = await raw(server.url, `/api/v4/users?in_channel=${townSquare.id}&page=first`, { token: bob.client.getToken() })
    expect(page.body.message).toMatch(/page/)
    for (const body of [error!.message, page.body.message, page.body.detailed_error]) expect(body).not.toMatch(/Struct|Encoded|Transformation|<->|readonly|Literal/)
  })

  it("refuses filters on teams and channels the caller cannot see", async () => {
    await expect(carol.client.getProfilesInTeam(team.id, 0, 60)).rejects.toMatchObject({ status_code: 403 })
    await expect(bob.client.getProfilesInChannel(privateChannel.id, 0, 60)).rejects.toMatchObject({ status_code: 403 })
    await expect(bob.client.getProfilesWithoutTeam(0, 60)).rejects.toMatchObject({ status_code: 403 })
    const withoutTeam = await admin.client.getProfilesWithoutTeam(0, 60)
    expect(ids(withoutTeam)).toEqual(expect.arrayContaining([carol.user.id, dave.user.id]))
    expect(ids(withoutTeam)).not.toContain(alice.user.id)
  })

  it("lists only visible users without filters, bounds paging, and rejects bad paging", async () => {
    const visible = await bob.client.getProfiles(0, 1000)
    expect(ids(visible)).toEqual([alice.user.id, bob.user.id].sort())
    const everyone = await admin.client.getProfiles(0, 200)
    expect(everyone.length).toBeGreaterThanOrEqual(5)
    const badPage = await raw(server.url, "/api/v4/users?page=-1", { token: bob.client.getToken() })
    expect(badPage.status).toBe(400)
    expect(badPage.body.id).toBe("api.context.invalid_param.app_error")
    const badTeam = await raw(server.url, "/api/v4/users?in_team=xyz", { token: bob.client.getToken() })
    expect(badTeam.status).toBe(400)
  })

  it("filters active and inactive users", async () => {
    const extra = await newUser(server.url, "gone")
    await admin.client.addToTeam(team.id, extra.user.id).catch(() => alice.client.addToTeam(team.id, extra.user.id))
    await admin.client.updateUserActive(extra.user.id, false)
    const active = await bob.client.getProfilesInTeam(team.id, 0, 60, "", { active: true })
    expect(ids(active)).not.toContain(extra.user.id)
    const inactive = await bob.client.getProfilesInTeam(team.id, 0, 60, "", { inactive: true })
    expect(ids(inactive)).toEqual([extra.user.id])
  })
})

describe("autocomplete, search, known, group channels", () => {
  it("autocompletes in a channel with the team's other matches out of channel", async () => {
    const result = await alice.client.autocompleteUsers(bob.username.slice(0, 4), team.id, privateChannel.id) as { users: Array<UserProfile>; out_of_channel: Array<UserProfile> }
    expectShape(result, Wire.UserAutocomplete, "autocomplete in a channel")
    expect(ids(result.users)).toEqual([])
    expect(ids(result.out_of_channel)).toContain(bob.user.id)
    const inTeam = await alice.client.autocompleteUsers(`@${alice.username}`, team.id, "") as { users: Array<UserProfile> }
    expect(expectShape(inTeam, Wire.UserAutocomplete, "autocomplete in a team").out_of_channel).toBeUndefined()
    expect(ids(inTeam.users)).toEqual([alice.user.id])
    const stranger = await carol.client.autocompleteUsers("a", "", "") as { users: Array<UserProfile> }
    expect(ids(stranger.users)).toEqual([])
  })

  it("searches by username, name and nickname prefixes among visible users only", async () => {
    await bob.client.patchMe({ first_name: "Roberto", last_name: "Quux", nickname: "bobby_tables" })
    expect(ids(await alice.client.searchUsers("rober", {}))).toEqual([bob.user.id])
    expect(ids(await alice.client.searchUsers("roberto qu", {}))).toEqual([bob.user.id])
    expect(ids(await alice.client.searchUsers("bobby_", { team_id: team.id }))).toEqual([bob.user.id])
    expect(ids(await alice.client.searchUsers("%", {}))).toEqual([])
    expect(ids(await carol.client.searchUsers("rober", {}))).toEqual([])
    expect(ids(await admin.client.searchUsers(carol.username, {}))).toEqual([carol.user.id])
    await expect(carol.client.searchUsers("x", { team_id: team.id })).rejects.toMatchObject({ status_code: 403 })
  })

  it("lists known users (shared channels) and group channel members", async () => {
    expect(await dave.client.getKnownUsers()).toEqual([alice.user.id])
    expectShape(await dave.client.getKnownUsers(), Wire.UserIds, "known users")
    const gm = await alice.client.createGroupChannel([alice.user.id, bob.user.id, dave.user.id])
    const members = await alice.client.getProfilesInGroupChannels([gm.id]) as Record<string, Array<UserProfile>>
    expectShape(members, Wire.UsersByGroupChannel, "group channel members")
    expect(Object.keys(members)).toEqual([gm.id])
    expect(ids(members[gm.id])).toEqual([bob.user.id, dave.user.id].sort())
    expect(await carol.client.getProfilesInGroupChannels([gm.id])).toEqual({})
  })
})

import type { Channel } from "@mattermost/types/channels"
import type { Post } from "@mattermost/types/posts"
import type { Team, TeamMembership, TeamsWithCount } from "@mattermost/types/teams"
import { beforeAll, describe, expect, it } from "vitest"
import { raw } from "../compat/Raw.ts"
import { expectShape, Wire } from "../compat/Shapes.ts"
import { newUser, unique } from "../support/Clients.ts"
import { serverForFile } from "../support/FileServer.ts"
import { teamOfTwo } from "../support/Teams.ts"

const env = serverForFile()
let admin: Awaited<ReturnType<typeof newUser>>

beforeAll(async () => {
  // The first account of a server is its system admin.
  admin = await newUser(env.server.url, "admin")
})

const setup = (open = false) =>
  teamOfTwo(env.server.url, ["tmo", "tmm"], { type: open ? "O" : "I", allow_open_invite: open })

describe("team membership", () => {
  it("returns Team and TeamMembership shapes, with the email shown only to team admins", async () => {
    const { owner, member, team } = await setup()
    expectShape(await member.client.getTeam(team.id), Wire.Team, "team")
    expect((await member.client.getTeam(team.id)).email).toBe("")
    expect((await owner.client.getTeam(team.id)).email).toMatch(/@example\.com$/)
    for (const m of await member.client.getMyTeamMembers()) expectShape(m, Wire.TeamMember, "member")
    expectShape(await member.client.getTeamMember(team.id, "me"), Wire.TeamMember, "me")
  })

  it("patches and updates the team for team admins only, publishing update_team", async () => {
    const { owner, member, team } = await setup()
    await expect(member.client.patchTeam({ id: team.id, display_name: "Nope" })).rejects.toMatchObject({ status_code: 403 })
    env.log.clear()
    const patched = await owner.client.patchTeam({ id: team.id, display_name: "New Name", description: "About", allow_open_invite: true })
    expect(patched).toMatchObject({ display_name: "New Name", description: "About", allow_open_invite: true, type: "O", name: team.name })
    expect(JSON.parse(env.log.named("update_team")[0].data.team as string)).toMatchObject({ id: team.id, display_name: "New Name" })
    expect(env.log.named("update_team")[0].broadcast.team_id).toBe(team.id)
    await expect(owner.client.patchTeam({ id: team.id, display_name: "" })).rejects.toMatchObject({ status_code: 400 })
    const updated = await owner.client.updateTeam({ ...patched, display_name: "Full Update" })
    expect(updated.display_name).toBe("Full Update")
    expect(await owner.client.checkIfTeamExists(team.name)).toEqual({ exists: true })
    expect(await owner.client.checkIfTeamExists(unique("nope"))).toEqual({ exists: false })
    expectShape(await owner.client.checkIfTeamExists(team.name), Wire.TeamExists, "team exists")
  })

  it("lists open teams and the caller's own; system admins see all, with total counts", async () => {
    const { member, team: closed } = await setup()
    const { team: open } = await setup(true)
    const stranger = await newUser(env.server.url, "strg")
    const visible = (await stranger.client.getTeams(0, 200)) as Team[]
    expect(visible.map((t) => t.id)).toContain(open.id)
    expect(visible.map((t) => t.id)).not.toContain(closed.id)
    expect(((await member.client.getTeams(0, 200)) as Team[]).map((t) => t.id)).toContain(closed.id)
    const all = (await admin.client.getTeams(0, 1, true)) as TeamsWithCount
    expect(all.teams).toHaveLength(1)
    expect(all.total_count).toBeGreaterThanOrEqual(2)
  })

  it("lists members with paging, by ids, and gives team stats", async () => {
    const { owner, member, team } = await setup()
    const third = await newUser(env.server.url, "tm3")
    await member.client.addUsersToTeam(team.id, [third.user.id])
    const firstPage = await owner.client.getTeamMembers(team.id, 0, 2)
    const secondPage = await owner.client.getTeamMembers(team.id, 1, 2)
    expect(firstPage).toHaveLength(2)
    expect(secondPage).toHaveLength(1)
    expect([...firstPage, ...secondPage].map((m) => m.user_id).sort()).toEqual([owner.user.id, member.user.id, third.user.id].sort())
    expect((await owner.client.getTeamMembersByIds(team.id, [third.user.id])).map((m) => m.user_id)).toEqual([third.user.id])
    expect(await member.client.getTeamStats(team.id)).toEqual({ team_id: team.id, total_member_count: 3, active_member_count: 3 })
    expectShape(await member.client.getTeamStats(team.id), Wire.TeamStats, "team stats")

    const graceful = await owner.client.addUsersToTeamGracefully(team.id, [(await newUser(env.server.url, "tm4")).user.id, "abcdefghijklmnopqrstuvwxyz"])
    expect(graceful.filter((r) => r.member !== undefined)).toHaveLength(1)
    expect(graceful.find((r) => r.user_id === "abcdefghijklmnopqrstuvwxyz")!.error).toMatchObject({ id: "app.user.missing_account.const" })
    graceful.forEach((entry, i) => expectShape(entry, Wire.TeamMemberWithError, `graceful[${i}]`))
  })

  it("leaves a team and its channels; team admins remove others; leave_team goes to the team and the leaver", async () => {
    const { owner, member, team } = await setup()
    const extra: Channel = await owner.client.createChannel({ team_id: team.id, name: "extra", display_name: "Extra", type: "P" } as Channel)
    await owner.client.addToChannel(member.user.id, extra.id)
    const other = await newUser(env.server.url, "tmx")
    await owner.client.addToTeam(team.id, other.user.id)
    await expect(member.client.removeFromTeam(team.id, other.user.id)).rejects.toMatchObject({ status_code: 403 })

    env.log.clear()
    await member.client.removeFromTeam(team.id, member.user.id)
    expect(env.log.named("leave_team").map((e) => e.broadcast)).toEqual(expect.arrayContaining([
      expect.objectContaining({ team_id: team.id, omit_users: { [member.user.id]: true } }),
      expect.objectContaining({ user_id: member.user.id })
    ]))
    expect(env.log.named("user_removed").filter((e) => e.broadcast.channel_id !== "").length).toBe(3)
    expect((await member.client.getMyTeams()).map((t) => t.id)).not.toContain(team.id)
    await expect(member.client.getChannel(extra.id)).rejects.toMatchObject({ status_code: 403 })
    await expect(member.client.getMyChannels(team.id)).rejects.toMatchObject({ status_code: 403 })
    expect((await owner.client.getChannelMembers(extra.id)).map((m) => m.user_id)).toEqual([owner.user.id])

    await owner.client.removeFromTeam(team.id, other.user.id)
    expect(await owner.client.getTeamStats(team.id)).toMatchObject({ total_member_count: 1 })

    // Rejoining restores the membership and the default channels.
    await owner.client.addToTeam(team.id, member.user.id)
    expect((await member.client.getMyChannels(team.id)).map((c) => c.name).sort()).toEqual(["off-topic", "town-square"])
  })

  it("changes team roles for team admins only", async () => {
    const { owner, member, team } = await setup()
    // Client4 types the roles as an array but sends them as given; the server takes Mattermost's space-separated string.
    const roles = (value: string) => value as unknown as string[]
    await expect(member.client.updateTeamMemberRoles(team.id, member.user.id, roles("team_user team_admin"))).rejects.toMatchObject({ status_code: 403 })
    await owner.client.updateTeamMemberRoles(team.id, member.user.id, roles("team_user team_admin"))
    expect(await member.client.getTeamMember(team.id, member.user.id)).toMatchObject({ roles: "team_user team_admin", scheme_admin: true })
    expect(env.log.named("memberrole_updated").some((e) => e.broadcast.user_id === member.user.id)).toBe(true)
    await expect(owner.client.updateTeamMemberRoles(team.id, member.user.id, roles("system_admin"))).rejects.toMatchObject({ status_code: 400 })
  })

  it("joins through the team's invite id", async () => {
    const { owner, team } = await setup()
    const invited = await newUser(env.server.url, "inv")
    const { invite_id } = await owner.client.getTeam(team.id)
    const member = await invited.client.joinTeam(invite_id)
    expect(member).toMatchObject({ team_id: team.id, user_id: invited.user.id })
    await expect(invited.client.joinTeam("nonexistentinviteid")).rejects.toMatchObject({ status_code: 404 })
  })

  it("reports team unreads from channel totals and memberships, per team and for one team", async () => {
    const { owner, member, team } = await setup()
    const townSquare = await member.client.getChannelByName(team.id, "town-square")
    await member.client.viewMyChannel(townSquare.id)
    await owner.client.createPost({ channel_id: townSquare.id, message: `ping @${member.username}` } as Post)
    const unreads = await member.client.getMyTeamUnreads()
    unreads.forEach((u, i) => expectShape(u, Wire.TeamUnreadWithThreads, `unreads[${i}]`))
    // An explicit user id goes through the router (the fast path takes "me" only).
    const byId = await raw(env.server.url, `/api/v4/users/${member.user.id}/teams/unread?include_collapsed_threads=true`, { token: member.client.getToken() })
    expect(byId.status).toBe(200)
    ;(byId.body as Array<unknown>).forEach((u, i) => expectShape(u, Wire.TeamUnreadWithThreads, `unreads by id[${i}]`))
    expect(unreads.find((u) => u.team_id === team.id)).toEqual({ team_id: team.id, msg_count: 1, mention_count: 1, msg_count_root: 1, mention_count_root: 1 })
    const one = await raw(env.server.url, `/api/v4/users/me/teams/${team.id}/unread`, { token: member.client.getToken() })
    expect(one.body).toEqual({ team_id: team.id, msg_count: 1, mention_count: 1, msg_count_root: 1, mention_count_root: 1 })
    expect((await member.client.getTeamMember(team.id, "me")).mention_count).toBe(1)
    const other = await raw(env.server.url, `/api/v4/users/${owner.user.id}/teams/unread`, { token: member.client.getToken() })
    expect(other.status).toBe(403)
  })

  it("archives a team for team admins (delete_team) and restores it", async () => {
    const { owner, member, team } = await setup()
    await expect(member.client.deleteTeam(team.id)).rejects.toMatchObject({ status_code: 403 })
    env.log.clear()
    await owner.client.deleteTeam(team.id)
    expect(JSON.parse(env.log.named("delete_team")[0].data.team as string)).toMatchObject({ id: team.id })
    expect((await owner.client.getTeam(team.id)).delete_at).toBeGreaterThan(0)
    expect((await member.client.getMyTeams()).map((t) => t.id)).not.toContain(team.id)
    const restored = await owner.client.unarchiveTeam(team.id)
    expect(restored.delete_at).toBe(0)
    expect((await member.client.getMyTeams()).map((t) => t.id)).toContain(team.id)
  })
})

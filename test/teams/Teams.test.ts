import type { Channel, ChannelMembership } from "@mattermost/types/channels"
import type { Team, TeamMembership } from "@mattermost/types/teams"
import { describe, expect, it } from "vitest"
import { raw } from "../compat/Raw.ts"
import { newUser, unique } from "../support/Clients.ts"
import { serverForFile } from "../support/FileServer.ts"

const env = serverForFile()

describe("teams", () => {
  it("creates a team with town-square and off-topic; the creator is team admin and member of both", async () => {
    const { client, user } = await newUser(env.server.url, "owner")
    const name = unique("team")
    const team: Team = await client.createTeam({ name, display_name: "Team One", type: "O" } as Team)
    expect(team).toMatchObject({ name, display_name: "Team One", type: "O", delete_at: 0, allow_open_invite: false })
    expect(team.id).toMatch(/^[a-z0-9]{26}$/)

    expect(await client.getTeam(team.id)).toMatchObject({ id: team.id })
    expect(await client.getTeamByName(name)).toMatchObject({ id: team.id })

    const myTeams = await client.getMyTeams()
    expect(myTeams.map((t) => t.id)).toContain(team.id)
    const members: TeamMembership[] = await client.getMyTeamMembers()
    const mine = members.find((m) => m.team_id === team.id)!
    expect(mine).toMatchObject({ user_id: user.id, roles: "team_user team_admin", scheme_admin: true, scheme_user: true, delete_at: 0 })

    const channels: Channel[] = await client.getMyChannels(team.id)
    expect(channels.map((c) => c.name).sort()).toEqual(["off-topic", "town-square"])
    const memberships: ChannelMembership[] = await client.getMyChannelMembers(team.id)
    expect(memberships.map((m) => m.channel_id).sort()).toEqual(channels.map((c) => c.id).sort())
    expect(memberships[0]).toMatchObject({ user_id: user.id, roles: "channel_user", msg_count: 0, mention_count: 0 })
    expect(memberships[0].notify_props).toMatchObject({ desktop: "default", mark_unread: "all", push: "default" })

    expect(env.log.named("added_to_team").some((e) => e.data.team_id === team.id && e.broadcast.user_id === user.id)).toBe(true)
  })

  it("refuses a taken name and bad names with 400, writing nothing", async () => {
    const { client } = await newUser(env.server.url, "names")
    const name = unique("dup")
    await client.createTeam({ name, display_name: "Dup", type: "O" } as Team)
    await expect(client.createTeam({ name, display_name: "Dup 2", type: "O" } as Team)).rejects.toMatchObject({
      status_code: 400,
      server_error_id: "app.team.save.existing.app_error"
    })
    for (const bad of ["a", "Upper", "-dash", "has space", "admin"]) {
      await expect(client.createTeam({ name: bad, display_name: "Bad", type: "O" } as Team)).rejects.toMatchObject({ status_code: 400 })
    }
    await expect(client.createTeam({ name: unique("nodisplay"), display_name: " ", type: "O" } as Team)).rejects.toMatchObject({ status_code: 400 })
    expect((await client.getMyTeams()).length).toBe(1)
  })

  it("lets a user join an open team (joining its default channels) but not an invite-only one", async () => {
    const owner = await newUser(env.server.url, "opener")
    const open: Team = await owner.client.createTeam({ name: unique("open"), display_name: "Open", type: "O", allow_open_invite: true } as Team)
    const closed: Team = await owner.client.createTeam({ name: unique("closed"), display_name: "Closed", type: "I" } as Team)
    const joiner = await newUser(env.server.url, "joiner")

    const member = await joiner.client.addToTeam(open.id, joiner.user.id)
    expect(member).toMatchObject({ team_id: open.id, user_id: joiner.user.id, roles: "team_user", scheme_admin: false })
    const channels = await joiner.client.getMyChannels(open.id)
    expect(channels.map((c) => c.name).sort()).toEqual(["off-topic", "town-square"])
    expect(env.log.named("user_added").filter((e) => e.data.user_id === joiner.user.id).length).toBe(2)

    await expect(joiner.client.addToTeam(closed.id, joiner.user.id)).rejects.toMatchObject({ status_code: 403 })
    await expect(joiner.client.getTeam(closed.id)).rejects.toMatchObject({ status_code: 403 })

    // A member may add others (team_user carries add_user_to_team).
    const third = await newUser(env.server.url, "third")
    await owner.client.addToTeam(closed.id, third.user.id)
    expect((await third.client.getMyTeams()).map((t) => t.id)).toContain(closed.id)
  })

  it("changes a team's privacy: invitation-only to open and back, for its admins only", async () => {
    const owner = await newUser(env.server.url, "privowner")
    const team: Team = await owner.client.createTeam({ name: unique("priv"), display_name: "Private", type: "I" } as Team)
    const outsider = await newUser(env.server.url, "privout")
    const put = (token: string, privacy: unknown) =>
      fetch(`${env.server.url}/api/v4/teams/${team.id}/privacy`, {
        method: "PUT",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        body: JSON.stringify({ privacy })
      })
    const opened = await put(owner.client.getToken(), "O")
    expect(opened.status).toBe(200)
    expect(await opened.json()).toMatchObject({ id: team.id, type: "O", allow_open_invite: true })
    expect(env.log.named("update_team").some((e) => JSON.parse(String(e.data.team)).id === team.id)).toBe(true)
    await outsider.client.addToTeam(team.id, outsider.user.id)

    // A plain member may not; a bad value is a 400; the team stays open.
    expect((await put(outsider.client.getToken(), "I")).status).toBe(403)
    const bad = await put(owner.client.getToken(), "X")
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({ id: "api.team.update_team_privacy.privacy.app_error" })
    expect(await owner.client.getTeam(team.id)).toMatchObject({ type: "O", allow_open_invite: true })

    const closed = await put(owner.client.getToken(), "I")
    expect(await closed.json()).toMatchObject({ type: "I", allow_open_invite: false })
    const latecomer = await newUser(env.server.url, "privlate")
    await expect(latecomer.client.addToTeam(team.id, latecomer.user.id)).rejects.toMatchObject({ status_code: 403 })
  })

  it("answers 404 for unknown teams and 400 for malformed ids", async () => {
    const { client, password, username } = await newUser(env.server.url, "lost")
    void password
    void username
    await expect(client.getTeam("abcdefghijklmnopqrstuvwxyz")).rejects.toMatchObject({ status_code: 404 })
    const res = await raw(env.server.url, "/api/v4/teams/not-an-id", { token: client.getToken() })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ id: "api.context.invalid_param.app_error", status_code: 400 })
  })
})

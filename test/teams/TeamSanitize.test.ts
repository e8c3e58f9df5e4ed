import type { Team } from "@mattermost/types/teams"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MattermostSocket, wsUrl } from "../realtime/Sockets.ts"
import { newUser, unique } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * Who sees a team's invite id and email, as Mattermost's SanitizeTeam decides from permissions, not role flags:
 * manage_team sees both, invite_user (team members by default) the invite id, anyone else (a non-member looking at an
 * open team) neither; WebSocket events carry neither. Taking invite_user from team_user hides the invite id from
 * plain members at once.
 */
let server: TestServer
let admin: Awaited<ReturnType<typeof newUser>>
let socket: MattermostSocket | undefined

beforeAll(async () => {
  server = await startServer()
  admin = await newUser(server.url, "sysadmin")
}, 60_000)

afterAll(async () => {
  socket?.close()
  await server?.close()
})

describe("team sanitization", () => {
  it("shows the invite id by invite_user and the email by manage_team", async () => {
    const owner = await newUser(server.url, "owner")
    const member = await newUser(server.url, "member")
    const outsider = await newUser(server.url, "outsider")
    const team: Team = await owner.client.createTeam({ name: unique("open"), display_name: "Open", type: "O", allow_open_invite: true, email: "owner@example.com" } as Team)
    await owner.client.addToTeam(team.id, member.user.id)
    expect(team.invite_id).not.toBe("")

    expect(await owner.client.getTeam(team.id)).toMatchObject({ invite_id: team.invite_id, email: team.email })
    expect(await member.client.getTeam(team.id)).toMatchObject({ invite_id: team.invite_id, email: "" })
    expect((await member.client.getMyTeams()).find((t) => t.id === team.id)).toMatchObject({ invite_id: team.invite_id, email: "" })
    expect(await outsider.client.getTeam(team.id)).toMatchObject({ invite_id: "", email: "" })
    expect(await outsider.client.getTeamByName(team.name)).toMatchObject({ invite_id: "", email: "" })
    const listed = (await outsider.client.getTeams(0, 100) as Array<Team>).find((t) => t.id === team.id)
    expect(listed).toMatchObject({ invite_id: "", email: "" })
    const found = (await outsider.client.searchTeams(team.name, {}) as unknown as Array<Team>).find((t) => t.id === team.id)
    expect(found).toMatchObject({ invite_id: "", email: "" })
    // The owner's listing of the same teams keeps what their permissions there allow.
    expect((await owner.client.getTeams(0, 100) as Array<Team>).find((t) => t.id === team.id)).toMatchObject({ invite_id: team.invite_id })

    // Events go to every member whatever their permissions: sanitized.
    socket = new MattermostSocket(wsUrl(server.url), member.client.getToken())
    await socket.connect()
    await socket.hello()
    await owner.client.patchTeam({ id: team.id, display_name: "Open Doors" })
    const updated = await socket.waitFor((e) => e.event === "update_team", "update_team")
    expect(JSON.parse(String(updated.data?.team))).toMatchObject({ id: team.id, display_name: "Open Doors", invite_id: "", email: "" })

    // Without invite_user, a plain member no longer sees the invite id; the team admin still does (manage_team).
    const teamUser = await admin.client.getRoleByName("team_user")
    await admin.client.patchRole(teamUser.id, { permissions: teamUser.permissions.filter((p) => p !== "invite_user") })
    try {
      expect(await member.client.getTeam(team.id)).toMatchObject({ invite_id: "" })
      expect((await member.client.getMyTeams()).find((t) => t.id === team.id)).toMatchObject({ invite_id: "" })
      expect(await owner.client.getTeam(team.id)).toMatchObject({ invite_id: team.invite_id })
    } finally {
      await admin.client.patchRole(teamUser.id, { permissions: teamUser.permissions })
    }
    expect(await member.client.getTeam(team.id)).toMatchObject({ invite_id: team.invite_id })
  }, 30_000)
})

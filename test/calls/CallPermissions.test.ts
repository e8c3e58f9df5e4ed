import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, makeTeam, type Member } from "../push/support.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * Switching calls on or off in a channel follows manage_channel_roles in that channel (channel, team and system admins
 * by default), not a role flag: a plain member is refused, a channel admin or a team admin who is a member may, and
 * taking manage_channel_roles from channel_admin refuses the channel admin at once. In a DM any member may.
 */
const BASE = "/plugins/com.mattermost.calls"
let server: TestServer

beforeAll(async () => {
  server = await startServer()
}, 60_000)

afterAll(async () => {
  await server?.close()
})

describe("calls: who may switch calls on or off", () => {
  it("decides by manage_channel_roles in the channel", async () => {
    const { admin, team, members } = await makeTeam(server.url, ["carl", "dora", "eve"])
    const { carl, dora, eve } = members as Record<string, Member>
    const channel = await admin.client.createChannel({ team_id: team.id, name: "standup", display_name: "Standup", type: "O" } as never)
    for (const m of [carl, dora, eve]) await admin.client.addToChannel(m.id, channel.id)
    const toggle = (who: Member, enabled: boolean) => call(server.url, "POST", `${BASE}/${channel.id}`, who.token, { enabled })

    const refused = await toggle(carl, false)
    expect(refused.status).toBe(403)
    expect(refused.body).toMatchObject({ id: "api.context.permissions.app_error", status_code: 403 })

    await admin.client.updateChannelMemberSchemeRoles(channel.id, dora.id, true, true)
    expect((await toggle(dora, false)).body).toEqual({ channel_id: channel.id, enabled: false })

    await admin.client.updateTeamMemberSchemeRoles(team.id, eve.id, true, true)
    expect((await toggle(eve, true)).body).toEqual({ channel_id: channel.id, enabled: true })

    const channelAdmin = await admin.client.getRoleByName("channel_admin")
    await admin.client.patchRole(channelAdmin.id, { permissions: channelAdmin.permissions.filter((p) => p !== "manage_channel_roles") })
    try {
      expect((await toggle(dora, false)).status).toBe(403)
    } finally {
      await admin.client.patchRole(channelAdmin.id, { permissions: channelAdmin.permissions })
    }
    expect((await toggle(dora, false)).status).toBe(200)

    const dm = await carl.client.createDirectChannel([carl.id, dora.id])
    expect((await call(server.url, "POST", `${BASE}/${dm.id}`, carl.token, { enabled: false })).body).toEqual({ channel_id: dm.id, enabled: false })
  }, 30_000)
})

import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { newUser } from "../support/Clients.ts"
import { teamOfTwo } from "../support/Teams.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * /header and /kick decide by permissions in the channel, as PATCH /channels and DELETE .../members do: taking
 * manage_public_channel_properties (or manage_public_channel_members) from channel_user refuses a plain member at
 * once; given back, the member may again.
 */
let server: TestServer

beforeAll(async () => {
  server = await startServer()
}, 60_000)

afterAll(async () => {
  await server?.close()
})

describe("channel slash commands: permissions", () => {
  it("/header and /kick follow the channel roles' permissions", async () => {
    const admin = await newUser(server.url, "sysadmin")
    const { owner, member, team } = await teamOfTwo(server.url, ["owner", "member"])
    const third = await newUser(server.url, "third")
    await owner.client.addToTeam(team.id, third.user.id)
    const room = await owner.client.createChannel({ team_id: team.id, name: "room", display_name: "Room", type: "O" } as never)
    for (const u of [member, third]) await owner.client.addToChannel(u.user.id, room.id)
    const run = (who: typeof member, command: string) => who.client.executeCommand(command, { channel_id: room.id, team_id: team.id })
    const channelUser = await admin.client.getRoleByName("channel_user")
    const without = (permission: string) => admin.client.patchRole(channelUser.id, { permissions: channelUser.permissions.filter((p) => p !== permission) })
    const restore = () => admin.client.patchRole(channelUser.id, { permissions: channelUser.permissions })

    await run(member, "/header first")
    expect((await member.client.getChannel(room.id)).header).toBe("first")
    await without("manage_public_channel_properties")
    try {
      expect((await run(member, "/header second")).text).toBe("You don't have the appropriate permissions to edit the channel header.")
      expect((await member.client.getChannel(room.id)).header).toBe("first")
    } finally {
      await restore()
    }
    await run(member, "/header second")
    expect((await member.client.getChannel(room.id)).header).toBe("second")

    await without("manage_public_channel_members")
    try {
      expect((await run(member, `/kick @${third.username}`)).text).toBe("You don't have the appropriate permissions to remove the member.")
      expect((await owner.client.getChannelMembers(room.id)).map((m) => m.user_id)).toContain(third.user.id)
    } finally {
      await restore()
    }
    await run(member, `/kick @${third.username}`)
    expect((await owner.client.getChannelMembers(room.id)).map((m) => m.user_id)).not.toContain(third.user.id)
  }, 30_000)
})

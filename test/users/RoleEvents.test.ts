import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { newUser } from "../support/Clients.ts"
import { teamOfTwo } from "../support/Teams.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { MattermostSocket, wsUrl } from "../realtime/Sockets.ts"

/**
 * Role changes reach the person's own open clients as Mattermost sends them, so a web app shows or hides admin
 * controls without a reload: system roles as user_role_updated {user_id, roles}, team roles as memberrole_updated
 * with the team member, channel roles as channel_member_updated with the channel member. Read by the official
 * WebSocketClient; the other member of the team hears none of them.
 */
let server: TestServer
const sockets: Array<MattermostSocket> = []

beforeAll(async () => {
  server = await startServer()
}, 60_000)

afterAll(async () => {
  for (const s of sockets) s.close()
  await server?.close()
})

const socketOf = async (token: string) => {
  const socket = new MattermostSocket(wsUrl(server.url), token)
  sockets.push(socket)
  await socket.connect()
  await socket.hello()
  return socket
}

describe("role change events", () => {
  it("tells the user of new system, team and channel roles, and no one else", async () => {
    // The first account of the server is its system admin.
    const { owner: admin, member: ben, team } = await teamOfTwo(server.url, ["admin", "ben"])
    const cat = await newUser(server.url, "cat")
    await admin.client.addToTeam(team.id, cat.user.id)
    const benSocket = await socketOf(ben.client.getToken())
    const catSocket = await socketOf(cat.client.getToken())

    await admin.client.updateUserRoles(ben.user.id, "system_user system_admin")
    const promoted = await benSocket.waitFor((e) => e.event === "user_role_updated", "user_role_updated (promotion)")
    expect(promoted.data).toEqual({ user_id: ben.user.id, roles: "system_admin system_user" })
    expect(promoted.broadcast).toMatchObject({ user_id: ben.user.id })
    // Every session took the new roles: ben may now do what only system admins do.
    await expect(ben.client.getConfig()).resolves.toHaveProperty("ServiceSettings")

    const from = benSocket.events.length
    await admin.client.updateUserRoles(ben.user.id, "system_user")
    const demoted = await benSocket.waitFor((e) => e.event === "user_role_updated" && benSocket.events.indexOf(e) >= from, "user_role_updated (demotion)")
    expect(demoted.data).toEqual({ user_id: ben.user.id, roles: "system_user" })

    await admin.client.updateTeamMemberRoles(team.id, ben.user.id, "team_user team_admin" as never)
    const teamRole = await benSocket.waitFor((e) => e.event === "memberrole_updated", "memberrole_updated")
    expect(JSON.parse(String(teamRole.data?.member))).toMatchObject({ team_id: team.id, user_id: ben.user.id, roles: "team_user team_admin", scheme_admin: true })

    const town = await admin.client.getChannelByName(team.id, "town-square")
    await admin.client.updateChannelMemberSchemeRoles(town.id, ben.user.id, true, true)
    const channelRole = await benSocket.waitFor((e) => e.event === "channel_member_updated", "channel_member_updated")
    expect(JSON.parse(String(channelRole.data?.channelMember))).toMatchObject({ channel_id: town.id, user_id: ben.user.id, roles: "channel_user channel_admin" })

    // cat shares the team and the channel and hears of none of ben's roles (a marker event proves cat's socket is live).
    await admin.client.updateUserRoles(cat.user.id, "system_user system_admin")
    await catSocket.waitFor((e) => e.event === "user_role_updated", "cat's own user_role_updated")
    const roleEvents = catSocket.events.filter((e) => ["user_role_updated", "memberrole_updated", "channel_member_updated"].includes(e.event ?? ""))
    expect(roleEvents.map((e) => e.data?.user_id ?? "")).toEqual([cat.user.id])
  }, 30_000)
})

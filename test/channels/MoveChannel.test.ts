import type { Channel } from "@mattermost/types/channels"
import type { Team } from "@mattermost/types/teams"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { failureOf, newUser, unique } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * POST /api/v4/channels/{channel_id}/move, as Mattermost's: system admins give a public or private channel to another
 * team; members outside that team refuse the move unless `force` takes them out of the channel; the default channel,
 * direct messages, the same team, an archived team and a name already taken there are refused, nothing changed.
 */
let server: TestServer
let admin: Awaited<ReturnType<typeof newUser>>
let member: Awaited<ReturnType<typeof newUser>>
let outsider: Awaited<ReturnType<typeof newUser>>
let from: Team
let to: Team

/** The move as `who` asks for it: the channel on success; a failure's status and Mattermost error id otherwise. */
const moveAs = async (who: typeof admin, channelId: string, teamId: string, force?: boolean) => {
  const response = await fetch(`${server.url}/api/v4/channels/${channelId}/move`, {
    method: "POST",
    headers: { authorization: `Bearer ${who.client.getToken()}`, "content-type": "application/json" },
    body: JSON.stringify({ team_id: teamId, ...(force === undefined ? {} : { force }) })
  })
  const body = await response.json()
  if (!response.ok) throw Object.assign(new Error(body.message), { status_code: response.status, server_error_id: body.id })
  return body as Channel
}
const move = (channelId: string, teamId: string, force?: boolean) => moveAs(admin, channelId, teamId, force)

beforeAll(async () => {
  server = await startServer()
  admin = await newUser(server.url, "moveadmin")
  member = await newUser(server.url, "movemember")
  outsider = await newUser(server.url, "moveout")
  from = await admin.client.createTeam({ name: unique("from"), display_name: "From", type: "O" } as Team)
  to = await admin.client.createTeam({ name: unique("to"), display_name: "To", type: "O" } as Team)
  await admin.client.addToTeam(from.id, member.user.id)
  await admin.client.addToTeam(to.id, member.user.id)
  await admin.client.addToTeam(from.id, outsider.user.id)
})
afterAll(() => server?.close())

describe("POST /channels/{id}/move", () => {
  it("moves a channel whose members are all in the target team; it shows there in their sidebar, webhooks follow", async () => {
    const channel = await admin.client.createChannel({ team_id: from.id, name: unique("plans"), display_name: "Plans", type: "P" } as Channel)
    await admin.client.addToChannel(member.user.id, channel.id)
    const hook = await admin.client.createIncomingWebhook({ channel_id: channel.id, display_name: "hook" } as never)
    const moved = await move(channel.id, to.id)
    expect(moved).toMatchObject({ id: channel.id, team_id: to.id, type: "P" })
    expect((await admin.client.getChannel(channel.id)).team_id).toBe(to.id)
    expect((await member.client.getMyChannels(to.id)).map((c) => c.id)).toContain(channel.id)
    expect((await member.client.getMyChannels(from.id)).map((c) => c.id)).not.toContain(channel.id)
    const categories = await member.client.getChannelCategories(member.user.id, to.id)
    expect(categories.categories.flatMap((c) => c.channel_ids)).toContain(channel.id)
    expect((await admin.client.getIncomingWebhook(hook.id)).team_id).toBe(to.id)
  })

  it("refuses while a member is outside the target team; force removes them from the channel", async () => {
    const channel = await admin.client.createChannel({ team_id: from.id, name: unique("mixed"), display_name: "Mixed", type: "O" } as Channel)
    await admin.client.addToChannel(member.user.id, channel.id)
    await admin.client.addToChannel(outsider.user.id, channel.id)
    expect(await failureOf(move(channel.id, to.id))).toEqual({ status: 400, id: "app.channel.move_channel.members_do_not_match.error" })
    expect((await admin.client.getChannel(channel.id)).team_id).toBe(from.id)
    await move(channel.id, to.id, true)
    const members = (await admin.client.getChannelMembers(channel.id)).map((m) => m.user_id)
    expect(members).toContain(member.user.id)
    expect(members).not.toContain(outsider.user.id)
    expect((await admin.client.getChannel(channel.id)).team_id).toBe(to.id)
  })

  it("refuses the default channel, direct messages, the same team, a taken name, an archived team and a member", async () => {
    const townSquare = await admin.client.getChannelByName(from.id, "town-square")
    expect((await failureOf(move(townSquare.id, to.id))).status).toBe(400)
    const direct = await admin.client.createDirectChannel([admin.user.id, member.user.id])
    expect(await failureOf(move(direct.id, to.id))).toEqual({ status: 400, id: "api.channel.move_channel.type.invalid" })
    const name = unique("twin")
    const channel = await admin.client.createChannel({ team_id: from.id, name, display_name: "Twin", type: "O" } as Channel)
    expect((await failureOf(move(channel.id, from.id))).status).toBe(400)
    await admin.client.createChannel({ team_id: to.id, name, display_name: "Twin", type: "O" } as Channel)
    expect(await failureOf(move(channel.id, to.id))).toEqual({ status: 400, id: "store.sql_channel.save_channel.exists.app_error" })
    const archived = await admin.client.createTeam({ name: unique("gone"), display_name: "Gone", type: "O" } as Team)
    await admin.client.deleteTeam(archived.id)
    expect(await failureOf(move(channel.id, archived.id))).toEqual({ status: 400, id: "api.channel.move_channel.team.app_error" })
    expect((await failureOf(moveAs(member, channel.id, to.id))).status).toBe(403)
    expect((await failureOf(move("a".repeat(26), to.id))).status).toBe(404)
    expect((await admin.client.getChannel(channel.id)).team_id).toBe(from.id)
  })
})

import type { Channel } from "@mattermost/types/channels"
import { describe, expect, it } from "vitest"
import { newUser } from "../support/Clients.ts"
import { serverForFile } from "../support/FileServer.ts"
import { teamOfTwo } from "../support/Teams.ts"

const env = serverForFile()

describe("channels", () => {
  it("creates public and private channels; the creator is channel admin; others join public ones", async () => {
    const { owner, member: other, team } = await teamOfTwo(env.server.url, ["own", "oth"])
    const pub: Channel = await owner.client.createChannel({ team_id: team.id, name: "general-talk", display_name: "General Talk", type: "O" } as Channel)
    expect(pub).toMatchObject({ team_id: team.id, name: "general-talk", display_name: "General Talk", type: "O", creator_id: owner.user.id, delete_at: 0 })
    expect(env.log.named("channel_created").some((e) => e.data.channel_id === pub.id && e.broadcast.user_id === owner.user.id)).toBe(true)
    const mine = await owner.client.getMyChannelMember(pub.id)
    expect(mine).toMatchObject({ roles: "channel_user channel_admin", scheme_admin: true })

    const priv: Channel = await owner.client.createChannel({ team_id: team.id, name: "secret", display_name: "Secret", type: "P" } as Channel)
    expect(priv.type).toBe("P")

    // A team member reads and joins the public channel; the private one stays hidden.
    expect(await other.client.getChannel(pub.id)).toMatchObject({ id: pub.id })
    await expect(other.client.getChannel(priv.id)).rejects.toMatchObject({ status_code: 403 })
    const joined = await other.client.addToChannel(other.user.id, pub.id)
    expect(joined).toMatchObject({ channel_id: pub.id, user_id: other.user.id, roles: "channel_user" })
    expect(env.log.named("user_added").some((e) => e.broadcast.channel_id === pub.id && e.data.user_id === other.user.id && e.data.team_id === team.id)).toBe(true)
    await expect(other.client.addToChannel(other.user.id, priv.id)).rejects.toMatchObject({ status_code: 403 })

    // Members of the private channel add others.
    await owner.client.addToChannel(other.user.id, priv.id)
    expect(await other.client.getChannel(priv.id)).toMatchObject({ id: priv.id })

    await expect(owner.client.createChannel({ team_id: team.id, name: "general-talk", display_name: "Again", type: "O" } as Channel))
      .rejects.toMatchObject({ status_code: 400, server_error_id: "store.sql_channel.save_channel.exists.app_error" })
    await expect(owner.client.createChannel({ team_id: team.id, name: "Bad Name", display_name: "Bad", type: "O" } as Channel))
      .rejects.toMatchObject({ status_code: 400 })

    const names = (await other.client.getMyChannels(team.id)).map((c) => c.name).sort()
    expect(names).toEqual(["general-talk", "off-topic", "secret", "town-square"])
  })

  it("keeps outsiders of the team out of its channels", async () => {
    const { owner, team } = await teamOfTwo(env.server.url, ["own", "oth"])
    const outsider = await newUser(env.server.url, "out")
    const pub: Channel = await owner.client.createChannel({ team_id: team.id, name: "open-room", display_name: "Open", type: "O" } as Channel)
    await expect(outsider.client.getChannel(pub.id)).rejects.toMatchObject({ status_code: 403 })
    await expect(outsider.client.addToChannel(outsider.user.id, pub.id)).rejects.toMatchObject({ status_code: 403 })
    await expect(outsider.client.createChannel({ team_id: team.id, name: "mine", display_name: "Mine", type: "O" } as Channel))
      .rejects.toMatchObject({ status_code: 403 })
    await expect(outsider.client.getMyChannels(team.id)).rejects.toMatchObject({ status_code: 403 })
  })

  it("creates a DM (type D, ordered name, idempotent) listed in both users' team channels", async () => {
    const { owner, member: other, team } = await teamOfTwo(env.server.url, ["own", "oth"])
    const dm: Channel = await owner.client.createDirectChannel([owner.user.id, other.user.id])
    const expected = [owner.user.id, other.user.id].sort().join("__")
    expect(dm).toMatchObject({ type: "D", team_id: "", name: expected })
    const again: Channel = await other.client.createDirectChannel([other.user.id, owner.user.id])
    expect(again.id).toBe(dm.id)
    expect(env.log.named("direct_added").filter((e) => e.broadcast.channel_id === dm.id)).toHaveLength(1)
    expect(env.log.named("direct_added").find((e) => e.broadcast.channel_id === dm.id)!.data).toEqual({ creator_id: owner.user.id, teammate_id: other.user.id })

    expect((await other.client.getMyChannels(team.id)).map((c) => c.id)).toContain(dm.id)
    expect((await owner.client.getMyChannelMembers(team.id)).map((m) => m.channel_id)).toContain(dm.id)

    const stranger = await newUser(env.server.url, "str")
    await expect(stranger.client.getChannel(dm.id)).rejects.toMatchObject({ status_code: 403 })
    await expect(stranger.client.createDirectChannel([owner.user.id, other.user.id])).rejects.toMatchObject({ status_code: 403 })
  })

  it("creates a group message (type G) for 3 users with each as a member", async () => {
    const a = await newUser(env.server.url, "ga")
    const b = await newUser(env.server.url, "gb")
    const c = await newUser(env.server.url, "gc")
    const gm: Channel = await a.client.createGroupChannel([a.user.id, b.user.id, c.user.id])
    expect(gm).toMatchObject({ type: "G", team_id: "" })
    expect(gm.display_name).toBe([a.username, b.username, c.username].sort().join(", "))
    expect(gm.name).toMatch(/^[0-9a-f]{40}$/)
    expect((await c.client.createGroupChannel([b.user.id, a.user.id])).id).toBe(gm.id)
    expect(await b.client.getChannel(gm.id)).toMatchObject({ id: gm.id })
    const members = await c.client.getChannelMembers(gm.id)
    expect(members.map((m) => m.user_id).sort()).toEqual([a.user.id, b.user.id, c.user.id].sort())
    expect(JSON.parse(env.log.named("group_added").find((e) => e.broadcast.channel_id === gm.id)!.data.teammate_ids as string).sort())
      .toEqual([a.user.id, b.user.id, c.user.id].sort())
    await expect(a.client.createGroupChannel([a.user.id, b.user.id])).rejects.toMatchObject({ status_code: 400 })
  })
})

import type { Channel } from "@mattermost/types/channels"
import type { Team } from "@mattermost/types/teams"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectShape, Wire } from "../compat/Shapes.ts"
import { client4, newUser, unique } from "../support/Clients.ts"
import { teamOfTwo } from "../support/Teams.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/** POST /channels/search across teams through Client4's searchAllChannels. */
let server: TestServer
let admin: Awaited<ReturnType<typeof newUser>>

describe("channel search across teams", () => {
  beforeAll(async () => {
    server = await startServer()
    admin = await newUser(server.url, "searchadmin")
  })
  afterAll(async () => {
    await server?.close()
  })

  it("admins find every channel with its team; others only what they may see; paging answers a total", async () => {
    const { owner, member, team } = await teamOfTwo(server.url, ["allsearch", "allsearchm"])
    const other: Team = await owner.client.createTeam({ name: unique("other"), display_name: "Other", type: "O" } as Team)
    const word = unique("zeta")
    const open = await owner.client.createChannel({ team_id: team.id, name: `${word}-open`, display_name: `${word} open`, type: "O" } as Channel)
    const secret = await owner.client.createChannel({ team_id: team.id, name: `${word}-secret`, display_name: `${word} secret`, type: "P" } as Channel)
    const elsewhere = await owner.client.createChannel({ team_id: other.id, name: `${word}-else`, display_name: `${word} else`, type: "O" } as Channel)
    const names = (list: Array<{ id: string }>) => list.map((c) => c.id).sort()

    const all = await admin.client.searchAllChannels(word, {}) as unknown as Array<Channel & { team_name: string; team_display_name: string }>
    expect(names(all)).toEqual([open.id, secret.id, elsewhere.id].sort())
    all.forEach((c, i) => expectShape(c, Wire.ChannelWithTeamData, `all[${i}]`))
    expect(all.find((c) => c.id === elsewhere.id)).toMatchObject({ team_name: other.name, team_display_name: "Other" })
    expect(names(await owner.client.searchAllChannels(word, {}) as unknown as Array<Channel>)).toEqual([open.id, secret.id, elsewhere.id].sort())
    // The member is in the first team only and not in the private channel.
    expect(names(await member.client.searchAllChannels(word, {}) as unknown as Array<Channel>)).toEqual([open.id])
    expect(await newUser(server.url, "searchout").then((u) => u.client.searchAllChannels(word, {}))).toEqual([])
    const paged = await admin.client.searchAllChannels(word, { page: 0, per_page: 2 }) as unknown as { channels: Array<Channel>; total_count: number }
    expect(paged.channels).toHaveLength(2)
    expect(paged.total_count).toBe(3)
    expectShape(paged, Wire.ChannelsWithTotalCount, "paged")
    expect(await admin.client.searchAllChannels(word, { page: 5, per_page: 2 })).toEqual({ channels: [], total_count: 3 })
    expect(names(await admin.client.searchAllChannels(word, { private: true }) as unknown as Array<Channel>)).toEqual([secret.id])
    expect(names(await admin.client.searchAllChannels(word, { team_ids: [other.id] }) as unknown as Array<Channel>)).toEqual([elsewhere.id])
    await expect(client4(server.url).searchAllChannels(word, {})).rejects.toMatchObject({ status_code: 401 })
    for (const bad of [{ per_page: 1000, page: 0 }, { team_ids: ["bad"] }]) {
      await expect(admin.client.searchAllChannels(word, bad as never)).rejects.toMatchObject({ status_code: 400 })
    }
    await expect(admin.client.searchAllChannels("x".repeat(300), {})).rejects.toMatchObject({ status_code: 400 })
  })
})

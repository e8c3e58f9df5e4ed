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

    // Browse channels' form (nonAdminSearch: ?system_console=false): a system admin sees only what anyone could join.
    expect(names(await admin.client.searchAllChannels(word, { team_ids: [team.id], nonAdminSearch: true }) as unknown as Array<Channel>)).toEqual([])
    await admin.client.addToTeam(team.id, admin.user.id)
    expect(names(await admin.client.searchAllChannels(word, { team_ids: [team.id], nonAdminSearch: true }) as unknown as Array<Channel>)).toEqual([open.id])
    // deleted: archived channels only; a purpose matches too.
    const gone = await owner.client.createChannel({ team_id: team.id, name: `${word}-gone`, display_name: `${word} gone`, type: "O" } as Channel)
    await owner.client.deleteChannel(gone.id)
    expect(names(await member.client.searchAllChannels(word, { team_ids: [team.id], nonAdminSearch: true }) as unknown as Array<Channel>)).toEqual([open.id])
    expect(names(await member.client.searchAllChannels(word, { team_ids: [team.id], nonAdminSearch: true, deleted: true, include_deleted: true }) as unknown as Array<Channel>)).toEqual([gone.id])
    await owner.client.patchChannel(open.id, { purpose: `${word}purpose for planning` })
    expect(names(await member.client.searchAllChannels(`${word}purpose`, { team_ids: [team.id], nonAdminSearch: true }) as unknown as Array<Channel>)).toEqual([open.id])
    for (const bad of [{ per_page: 1000, page: 0 }, { team_ids: ["bad"] }]) {
      await expect(admin.client.searchAllChannels(word, bad as never)).rejects.toMatchObject({ status_code: 400 })
    }
    await expect(admin.client.searchAllChannels("x".repeat(300), {})).rejects.toMatchObject({ status_code: 400 })
  })
  it("GET /channels lists every team channel for admins (the System Console), with paging, a total and filters", async () => {
    const { owner, member, team } = await teamOfTwo(server.url, ["alllist", "alllistm"])
    const word = unique("omega")
    const open = await owner.client.createChannel({ team_id: team.id, name: `${word}-open`, display_name: `${word} open`, type: "O" } as Channel)
    const secret = await owner.client.createChannel({ team_id: team.id, name: `${word}-secret`, display_name: `${word} secret`, type: "P" } as Channel)
    const gone = await owner.client.createChannel({ team_id: team.id, name: `${word}-gone`, display_name: `${word} gone`, type: "O" } as Channel)
    await owner.client.deleteChannel(gone.id)
    const dm = await owner.client.createDirectChannel([owner.user.id, member.user.id])
    type Listed = Channel & { team_name: string; team_display_name: string }
    // Client4.getAllChannels with its nine positional arguments named.
    const list = (client: typeof admin.client, page: number, perPage: number, o: { excludeDefault?: boolean; total?: boolean; deleted?: boolean } = {}) =>
      (o.total === true
        ? client.getAllChannels(page, perPage, "", o.excludeDefault ?? false, true, o.deleted ?? false, false, false, false)
        : client.getAllChannels(page, perPage, "", o.excludeDefault ?? false, false, o.deleted ?? false, false, false, false)) as Promise<unknown>

    const all = await list(admin.client, 0, 200) as unknown as Array<Listed>
    all.forEach((c, i) => expectShape(c, Wire.ChannelWithTeamData, `all[${i}]`))
    const ids = all.map((c) => c.id)
    expect(ids).toEqual(expect.arrayContaining([open.id, secret.id]))
    expect(ids).not.toContain(gone.id)
    expect(ids).not.toContain(dm.id)
    expect(all.find((c) => c.id === secret.id)).toMatchObject({ type: "P", team_name: team.name })
    expect(all.some((c) => c.name === "town-square")).toBe(true)
    // Sorted by display name ("… open" before "… secret", whatever the database's collation).
    expect(ids.indexOf(open.id)).toBeLessThan(ids.indexOf(secret.id))

    const withDeleted = await list(admin.client, 0, 200, { deleted: true }) as unknown as Array<Listed>
    expect(withDeleted.map((c) => c.id)).toContain(gone.id)
    const noDefaults = await list(admin.client, 0, 200, { excludeDefault: true }) as unknown as Array<Listed>
    expect(noDefaults.some((c) => c.name === "town-square" || c.name === "off-topic")).toBe(false)
    const counted = await list(admin.client, 0, 2, { total: true }) as unknown as { channels: Array<Listed>; total_count: number }
    expectShape(counted, Wire.ChannelsWithTotalCount, "counted")
    expect(counted.channels).toHaveLength(2)
    expect(counted.total_count).toBe(all.length)
    expect(await list(admin.client, 500, 2, { total: true })).toEqual({ channels: [], total_count: all.length })

    await expect(list(owner.client, 0, 10)).rejects.toMatchObject({ status_code: 403 })
    await expect(list(admin.client, -1, 10)).rejects.toMatchObject({ status_code: 400 })
  })
})

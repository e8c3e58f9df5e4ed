import type { Channel } from "@mattermost/types/channels"
import type { Team } from "@mattermost/types/teams"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { newUser } from "../support/Clients.ts"
import { queriesDuring } from "../support/QueryCount.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * The list endpoints of teams, channels and categories must cost the same number of queries whatever the number of
 * teams, channels or members (no query per row).
 */
let server: TestServer

beforeAll(async () => {
  server = await startServer()
  await newUser(server.url, "sysadmin")
})
afterAll(async () => {
  await server?.close()
})

const countedOnce = async (token: string, path: string) => {
  const { value: res, queries } = await queriesDuring(async () => {
    const res = await fetch(`${server.url}/api/v4${path}`, { headers: { Authorization: `Bearer ${token}` } })
    await res.arrayBuffer()
    return res
  })
  expect(res.status, path).toBe(200)
  return queries.length
}

/**
 * The statements of one request: the server's background jobs (sweeps, batching) run on the same pool and may be
 * counted too, and they only ever add, so the fewest over three tries is the request's own count.
 */
const countedGet = async (token: string, path: string) => {
  const counts = []
  for (let i = 0; i < 3; i++) counts.push(await countedOnce(token, path))
  return Math.min(...counts)
}

/** A user in a team with `channels` extra channels, `members` extra team members and a DM per extra member. */
const world = async (channels: number, members: number) => {
  const me = await newUser(server.url, "qc")
  const team: Team = await me.client.createTeam({ name: `qc${Date.now().toString(36)}${channels}`, display_name: "QC", type: "O" } as Team)
  const others = await Promise.all(Array.from({ length: members }, () => newUser(server.url, "qm")))
  if (others.length > 0) await me.client.addUsersToTeam(team.id, others.map((o) => o.user.id))
  let last: Channel | undefined
  for (let i = 0; i < channels; i++) {
    last = await me.client.createChannel({ team_id: team.id, name: `c${i}`, display_name: `C ${i}`, type: i % 2 === 0 ? "O" : "P" } as Channel)
  }
  for (const other of others) await me.client.createDirectChannel([me.user.id, other.user.id])
  const channel = last ?? (await me.client.getChannelByName(team.id, "town-square"))
  for (const other of others) await me.client.addToChannel(other.user.id, channel.id)
  return { token: me.client.getToken(), team, channel }
}

const paths = (w: Awaited<ReturnType<typeof world>>) => [
  "/users/me/teams",
  "/users/me/teams/members",
  "/users/me/teams/unread",
  `/users/me/teams/${w.team.id}/channels`,
  `/users/me/teams/${w.team.id}/channels/members`,
  `/users/me/teams/${w.team.id}/channels/categories`,
  "/users/me/channels",
  "/users/me/channel_members?page=0&per_page=200",
  `/teams/${w.team.id}/members`,
  `/teams/${w.team.id}/channels`,
  `/channels/${w.channel.id}/members`,
  `/channels/${w.channel.id}/stats`
]

describe("list endpoint cost", () => {
  it("does not grow with the number of channels, members and DMs", async () => {
    const small = await world(1, 1)
    const large = await world(8, 5)
    // The first read of categories creates them; compare steady-state reads.
    for (const w of [small, large]) await countedGet(w.token, `/users/me/teams/${w.team.id}/channels/categories`)
    const smallPaths = paths(small)
    const largePaths = paths(large)
    for (let i = 0; i < smallPaths.length; i++) {
      const few = await countedGet(small.token, smallPaths[i])
      const many = await countedGet(large.token, largePaths[i])
      expect(many, largePaths[i]).toBe(few)
    }
  })
})

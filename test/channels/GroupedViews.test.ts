import type { Channel } from "@mattermost/types/channels"
import type { Post } from "@mattermost/types/posts"
import type { Team } from "@mattermost/types/teams"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { newUser, unique } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * POST /channels/members/me/view under concurrency (src/channels/ChannelViews.ts, layers/Grouped.ts): views of
 * different users that arrive together share statements, at most one membership per channel in each, and every
 * view is written and answered as if it had been alone.
 */
const USERS = 24
const CHANNELS = 4

let server: TestServer
let owner: Awaited<ReturnType<typeof newUser>>
let users: Array<Awaited<ReturnType<typeof newUser>>>
let channels: Array<Channel>

const view = async (i: number, channelId: string, prevChannelId = "") => {
  const response = await fetch(`${server.url}/api/v4/channels/members/me/view`, {
    method: "POST",
    headers: { Authorization: `Bearer ${users[i].client.getToken()}`, "Content-Type": "application/json" },
    body: JSON.stringify({ channel_id: channelId, prev_channel_id: prevChannelId })
  })
  expect(response.status).toBe(200)
  return await response.json() as { status: string; last_viewed_at_times: Record<string, number> }
}

/** The user's membership of the channel as Client4 reads it. */
const member = (i: number, channelId: string) => users[i].client.getMyChannelMember(channelId)

const grouped = async (unit: "requests" | "statements") => {
  const text = await (await fetch(`${server.url}/api/v1/health/metrics`)).text()
  const line = text.split("\n").find((l) => l.startsWith(`service_grouped_requests_total{kind="channel_views",unit="${unit}"}`))
  expect(line, text.slice(0, 2000)).toBeDefined()
  return Number(line!.split(" ")[1])
}

/** Something unread for every user in every channel, with a mention of each. */
const postEverywhere = async (round: number) => {
  for (const channel of channels) {
    await owner.client.createPost({ channel_id: channel.id, message: `round ${round} ${users.map((u) => `@${u.username}`).join(" ")}` } as Post)
  }
}

beforeAll(async () => {
  server = await startServer()
  owner = await newUser(server.url, "gvo")
  users = await Promise.all(Array.from({ length: USERS }, () => newUser(server.url, "gvm")))
  const team: Team = await owner.client.createTeam({ name: unique("gv"), display_name: "GV", type: "O" } as Team)
  await owner.client.addUsersToTeam(team.id, users.map((u) => u.user.id))
  channels = []
  for (let c = 0; c < CHANNELS; c++) {
    const channel = await owner.client.createChannel({ team_id: team.id, name: unique(`gv${c}`), display_name: `GV ${c}`, type: "O" } as Channel)
    for (const u of users) await owner.client.addToChannel(u.user.id, channel.id)
    channels.push(channel)
  }
}, 120_000)

afterAll(async () => {
  await server?.close()
})

describe("channel views written together", () => {
  it("marks each of many simultaneous views read, answers each with its own channels, in fewer statements than views", async () => {
    await postEverywhere(0)
    for (let i = 0; i < USERS; i++) expect((await member(i, channels[i % CHANNELS].id)).mention_count).toBeGreaterThan(0)
    const requests0 = await grouped("requests")
    const statements0 = await grouped("statements")
    const before = Date.now()
    // User i switches from channel (i + 1) % 4 to channel i % 4: many views name the same channels.
    const answers = await Promise.all(users.map((_, i) => view(i, channels[i % CHANNELS].id, channels[(i + 1) % CHANNELS].id)))
    for (let i = 0; i < USERS; i++) {
      const current = channels[i % CHANNELS].id
      const previous = channels[(i + 1) % CHANNELS].id
      expect(answers[i].status).toBe("OK")
      expect(Object.keys(answers[i].last_viewed_at_times).sort(), `user ${i}`).toEqual([current, previous].sort())
      for (const id of [current, previous]) {
        const row = await member(i, id)
        expect(row.mention_count, `user ${i}`).toBe(0)
        expect(row.msg_count, `user ${i}`).toBe((await owner.client.getChannel(id)).total_msg_count)
        expect(row.last_viewed_at, `user ${i}`).toBe(answers[i].last_viewed_at_times[id])
        expect(row.last_viewed_at).toBeGreaterThanOrEqual(before)
      }
      // The channels the user did not view stay unread.
      for (const other of channels.filter((c) => c.id !== current && c.id !== previous)) {
        expect((await member(i, other.id)).mention_count, `user ${i}`).toBeGreaterThan(0)
      }
    }
    const requests = (await grouped("requests")) - requests0
    const statements = (await grouped("statements")) - statements0
    expect(requests).toBe(USERS)
    // Each view names two of the four channels and a statement takes each channel once: two views at most.
    expect(statements).toBeGreaterThanOrEqual(USERS / 2)
    expect(statements).toBeLessThan(requests)
  })

  it("answers a view of a channel already read with its kept time, and leaves out a channel the user is not in", async () => {
    const first = await view(0, channels[0].id)
    const again = await Promise.all([view(0, channels[0].id), view(1, channels[1].id)])
    expect(again[0].last_viewed_at_times).toEqual(first.last_viewed_at_times)
    const outsider = await newUser(server.url, "gvx")
    const response = await fetch(`${server.url}/api/v4/channels/members/me/view`, {
      method: "POST",
      headers: { Authorization: `Bearer ${outsider.client.getToken()}`, "Content-Type": "application/json" },
      body: JSON.stringify({ channel_id: channels[2].id })
    })
    expect(response.status).toBe(200)
    expect((await response.json()).last_viewed_at_times).toEqual({})
  })

  it("keeps every view of a burst where all users switch into one channel", async () => {
    await postEverywhere(1)
    const answers = await Promise.all(users.map((_, i) => view(i, channels[3].id)))
    for (let i = 0; i < USERS; i++) {
      expect(Object.keys(answers[i].last_viewed_at_times)).toEqual([channels[3].id])
      expect((await member(i, channels[3].id)).mention_count).toBe(0)
    }
  })
})

import type { Channel } from "@mattermost/types/channels"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectShape, Wire } from "../compat/Shapes.ts"
import { client4, newUser, unique } from "../support/Clients.ts"
import { teamOfTwo } from "../support/Teams.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * Scheduled messages through Client4, and the job that sends them running on two nodes of one database: every
 * message is posted exactly once; one that cannot be posted keeps its row with the reason.
 */
let nodeA: TestServer
let nodeB: TestServer

type Scheduled = { id: string; message: string; scheduled_at: number; error_code: string; channel_id: string }
const list = async (client: ReturnType<typeof client4>, teamId: string) =>
  expectShape((await client.getScheduledPosts(teamId, true)).data, Wire.ScheduledPostsByTeam, "scheduled posts") as unknown as Record<string, Array<Scheduled>>

describe("scheduled messages", () => {
  beforeAll(async () => {
    nodeA = await startServer()
    nodeB = await startServer({ databaseUrl: nodeA.databaseUrl })
    await newUser(nodeA.url, "schedadmin")
  })
  afterAll(async () => {
    await nodeB?.close()
    await nodeA?.close()
  })

  it("two nodes post each due message exactly once, then forget it", async () => {
    const { owner, team } = await teamOfTwo(nodeA.url, ["schedowner", "schedmember"])
    expect((await owner.client.getClientConfig() as Record<string, string>).ScheduledPosts).toBe("true")
    const channel = await owner.client.createChannel({ team_id: team.id, name: unique("ch"), display_name: "Later", type: "O" } as Channel)
    // Far enough ahead for twelve creations on a loaded machine (each must be in the future when made).
    const due = Date.now() + 4000
    const messages = Array.from({ length: 12 }, (_, i) => `later ${i} ${unique("m")}`)
    for (const message of messages) {
      const { data, response } = await owner.client.createScheduledPost({ channel_id: channel.id, message, scheduled_at: due } as never, "")
      expect(response.status).toBe(201)
      expect(data).toMatchObject({ message, scheduled_at: due, processed_at: 0, error_code: "" })
      expectShape(data, Wire.ScheduledPost, "created scheduled post")
    }
    expect((await list(owner.client, team.id))[team.id]).toHaveLength(12)
    const posted = async () => Object.values((await owner.client.getPosts(channel.id, 0, 200)).posts).map((p) => p.message)
    await expect.poll(async () => (await posted()).filter((m) => messages.includes(m)).length, { timeout: 15_000 }).toBe(12)
    await expect.poll(async () => (await list(owner.client, team.id))[team.id].length, { timeout: 5_000 }).toBe(0)
    const all = await posted()
    for (const message of messages) expect(all.filter((m) => m === message)).toHaveLength(1)
    const first = Object.values((await owner.client.getPosts(channel.id)).posts).find((p) => p.message === messages[0])!
    expect(first.user_id).toBe(owner.user.id)
    expect(first.create_at).toBeGreaterThanOrEqual(due)
  })

  it("records why a message could not be sent (its channel was archived)", async () => {
    const { owner, team } = await teamOfTwo(nodeA.url, ["scherr", "scherrm"])
    const channel = await owner.client.createChannel({ team_id: team.id, name: unique("gone"), display_name: "Gone", type: "O" } as Channel)
    const { data } = await owner.client.createScheduledPost({ channel_id: channel.id, message: "too late", scheduled_at: Date.now() + 2500 } as never, "")
    await owner.client.deleteChannel(channel.id)
    await expect.poll(async () => (await list(owner.client, team.id))[team.id].find((s) => s.id === (data as unknown as Scheduled).id)?.error_code, { timeout: 10_000 })
      .toBe("channel_archived")
  })

  it("lists, edits and deletes one's own scheduled messages; direct messages are listed apart", async () => {
    const { owner, member, team } = await teamOfTwo(nodeB.url, ["schedcrud", "schedcrudm"])
    const town = (await owner.client.getMyChannels(team.id)).find((c) => c.name === "town-square")!
    const dm = await owner.client.createDirectChannel([owner.user.id, member.user.id])
    const later = Date.now() + 3_600_000
    const inTeam = (await owner.client.createScheduledPost({ channel_id: town.id, message: "team note", scheduled_at: later } as never, "")).data as unknown as Scheduled
    const inDm = (await owner.client.createScheduledPost({ channel_id: dm.id, message: "dm note", scheduled_at: later } as never, "")).data as unknown as Scheduled
    const both = await list(owner.client, team.id)
    expect(both[team.id].map((s) => s.id)).toEqual([inTeam.id])
    expect(both.directChannels.map((s) => s.id)).toEqual([inDm.id])
    expect(Object.keys((await owner.client.getScheduledPosts(team.id, false)).data)).toEqual([team.id])
    const edited = (await owner.client.updateScheduledPost({ ...inTeam, message: "edited note", scheduled_at: later + 60_000 } as never, "")).data as unknown as Scheduled
    expect(edited).toMatchObject({ id: inTeam.id, message: "edited note", scheduled_at: later + 60_000 })
    expectShape(edited, Wire.ScheduledPost, "updated scheduled post")
    // Someone else's scheduled message: 403 for editing and deleting; a missing one 404.
    await expect(member.client.updateScheduledPost({ ...inTeam, message: "hijack" } as never, "")).rejects.toMatchObject({ status_code: 403 })
    await expect(member.client.deleteScheduledPost(member.user.id, inTeam.id, "")).rejects.toMatchObject({ status_code: 403 })
    await expect(owner.client.deleteScheduledPost(owner.user.id, "a".repeat(26), "")).rejects.toMatchObject({ status_code: 404 })
    expect(expectShape((await owner.client.deleteScheduledPost(owner.user.id, inTeam.id, "")).data, Wire.ScheduledPost, "deleted scheduled post").id).toBe(inTeam.id)
    expect((await list(owner.client, team.id))[team.id]).toEqual([])
    expect((await list(member.client, team.id)).directChannels).toEqual([])
  })

  it("authorization and bad input", async () => {
    const { owner, team } = await teamOfTwo(nodeA.url, ["schedauth", "schedauthm"])
    const privateChannel = await owner.client.createChannel({ team_id: team.id, name: unique("p"), display_name: "P", type: "P" } as Channel)
    const outsider = await newUser(nodeA.url, "schedout")
    const later = Date.now() + 3_600_000
    await expect(outsider.client.createScheduledPost({ channel_id: privateChannel.id, message: "x", scheduled_at: later } as never, ""))
      .rejects.toMatchObject({ status_code: 403 })
    await expect(outsider.client.getScheduledPosts(team.id, true)).rejects.toMatchObject({ status_code: 403 })
    await expect(client4(nodeA.url).getScheduledPosts(team.id, true)).rejects.toMatchObject({ status_code: 401 })
    const post = (body: string) =>
      fetch(`${nodeA.url}/api/v4/posts/schedule`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${owner.client.getToken()}` },
        body
      })
    for (const body of [
      "{}",
      JSON.stringify({ channel_id: privateChannel.id, message: "past", scheduled_at: Date.now() - 1000 }),
      JSON.stringify({ channel_id: privateChannel.id, message: "", scheduled_at: later }),
      JSON.stringify({ channel_id: privateChannel.id, message: "x".repeat(20_000), scheduled_at: later }),
      JSON.stringify({ channel_id: privateChannel.id, message: "x", scheduled_at: "tomorrow" }),
      JSON.stringify({ channel_id: "nope", message: "x", scheduled_at: later }),
      "not json"
    ]) {
      const response = await post(body)
      expect(response.status, body.slice(0, 60)).toBe(400)
      const error = await response.json()
      expect(Object.keys(error).sort()).toEqual(["detailed_error", "id", "message", "request_id", "status_code"])
      expect(JSON.stringify(error)).not.toContain("x".repeat(300))
    }
    await expect(owner.client.getScheduledPosts("bad", true)).rejects.toMatchObject({ status_code: 400 })
  })
})

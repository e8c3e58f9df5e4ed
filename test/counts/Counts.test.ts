import type { Channel } from "@mattermost/types/channels"
import type { Post } from "@mattermost/types/posts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectShape, Wire } from "../compat/Shapes.ts"
import { client4, newUser, unique } from "../support/Clients.ts"
import { teamOfTwo } from "../support/Teams.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/** Channel member counts (Client4) and unread thread mentions per channel (raw fetch: Client4 has no call). */
let server: TestServer
let admin: Awaited<ReturnType<typeof newUser>>

describe("counts the apps show", () => {
  beforeAll(async () => {
    server = await startServer()
    admin = await newUser(server.url, "countadmin")
  })
  afterAll(async () => {
    await server?.close()
  })

  it("POST /channels/stats/member_count counts active members of channels the caller may read", async () => {
    const { owner, member, team } = await teamOfTwo(server.url, ["countowner", "countmember"])
    const open = await owner.client.createChannel({ team_id: team.id, name: unique("o"), display_name: "O", type: "O" } as Channel)
    const closed = await owner.client.createChannel({ team_id: team.id, name: unique("p"), display_name: "P", type: "P" } as Channel)
    await owner.client.addToChannel(member.user.id, open.id)
    const town = (await owner.client.getMyChannels(team.id)).find((c) => c.name === "town-square")!
    expect(expectShape(await owner.client.getChannelsMemberCount([open.id, closed.id, town.id]), Wire.CountsByChannel, "member counts")).toEqual({ [open.id]: 2, [closed.id]: 1, [town.id]: 2 })
    // A public channel the member has not joined is readable; a private one is not: the whole request is refused.
    expect(await member.client.getChannelsMemberCount([open.id, town.id])).toEqual({ [open.id]: 2, [town.id]: 2 })
    await expect(member.client.getChannelsMemberCount([open.id, closed.id])).rejects.toMatchObject({ status_code: 403 })
    const outsider = await newUser(server.url, "countout")
    await expect(outsider.client.getChannelsMemberCount([open.id])).rejects.toMatchObject({ status_code: 403 })
    expect(await admin.client.getChannelsMemberCount([closed.id])).toEqual({ [closed.id]: 1 })
    await expect(client4(server.url).getChannelsMemberCount([open.id])).rejects.toMatchObject({ status_code: 401 })
    await expect(owner.client.getChannelsMemberCount(["a".repeat(26)])).rejects.toMatchObject({ status_code: 403 })
    for (const bad of [[], ["bad"], Array.from({ length: 201 }, (_, i) => `${"a".repeat(23)}${String(i).padStart(3, "0")}`)]) {
      await expect(owner.client.getChannelsMemberCount(bad)).rejects.toMatchObject({ status_code: 400 })
    }
  })

  it("GET /users/{id}/teams/{team_id}/threads/mention_counts sums unread mentions of followed threads per channel", async () => {
    const { owner, member, team } = await teamOfTwo(server.url, ["threadowner", "threadmember"])
    const town = (await owner.client.getMyChannels(team.id)).find((c) => c.name === "town-square")!
    const root: Post = await member.client.createPost({ channel_id: town.id, message: "a question" } as Post)
    await owner.client.createPost({ channel_id: town.id, root_id: root.id, message: `@${member.username} an answer` } as Post)
    await owner.client.createPost({ channel_id: town.id, root_id: root.id, message: `@${member.username} and more` } as Post)
    const counts = (userId: string, token: string, teamId = team.id) =>
      fetch(`${server.url}/api/v4/users/${userId}/teams/${teamId}/threads/mention_counts`, { headers: { Authorization: `Bearer ${token}` } })
    const mine = await counts("me", member.client.getToken())
    expect(mine.status).toBe(200)
    expect(expectShape(await mine.json(), Wire.CountsByChannel, "thread mention counts")).toEqual({ [town.id]: 2 })
    expect(await (await counts(owner.user.id, owner.client.getToken())).json()).toEqual({})
    // Only one's own counts, in a team one belongs to.
    expect((await counts(member.user.id, owner.client.getToken())).status).toBe(403)
    const outsider = await newUser(server.url, "threadout")
    expect((await counts("me", outsider.client.getToken())).status).toBe(403)
    expect((await counts("me", outsider.client.getToken(), "bad")).status).toBe(400)
    expect((await fetch(`${server.url}/api/v4/users/me/teams/${team.id}/threads/mention_counts`)).status).toBe(401)
  })

  it("team unreads with include_collapsed_threads carry the thread badges", async () => {
    const { owner, member, team } = await teamOfTwo(server.url, ["crtowner", "crtmember"])
    const town = (await owner.client.getMyChannels(team.id)).find((c) => c.name === "town-square")!
    const first: Post = await member.client.createPost({ channel_id: town.id, message: "first thread" } as Post)
    const second: Post = await member.client.createPost({ channel_id: town.id, message: "second thread" } as Post)
    await owner.client.createPost({ channel_id: town.id, root_id: first.id, message: `@${member.username} look` } as Post)
    await owner.client.createPost({ channel_id: town.id, root_id: second.id, message: "no mention" } as Post)
    const unreads = await member.client.getMyTeamUnreads(true)
    expect(unreads.find((u) => u.team_id === team.id)).toMatchObject({
      team_id: team.id,
      thread_count: 2,
      thread_mention_count: 1,
      thread_urgent_mention_count: 0
    })
    // Without the flag the answer stays as before.
    const plain = await member.client.getMyTeamUnreads(false)
    expect(Object.keys(plain.find((u) => u.team_id === team.id)!)).not.toContain("thread_count")
    expect((await owner.client.getMyTeamUnreads(true)).find((u) => u.team_id === team.id)).toMatchObject({ thread_count: 0, thread_mention_count: 0 })
  })
})

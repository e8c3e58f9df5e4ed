import type { Channel } from "@mattermost/types/channels"
import type { Post } from "@mattermost/types/posts"
import type { Team } from "@mattermost/types/teams"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectShape, Wire } from "../compat/Shapes.ts"
import { client4, newUser, unique } from "../support/Clients.ts"
import { teamOfTwo } from "../support/Teams.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/** Edit history of a post (earlier versions, to the author only) and the permalink info of a post, through Client4. */
let server: TestServer

const channelIn = async (client: ReturnType<typeof client4>, teamId: string, type: "O" | "P") =>
  client.createChannel({ team_id: teamId, name: unique("ch"), display_name: "Somewhere", type } as Channel)

describe("edit history and post info", () => {
  beforeAll(async () => {
    server = await startServer()
    await newUser(server.url, "histadmin")
  })
  afterAll(async () => {
    await server?.close()
  })

  it("keeps each earlier version of an edited message, newest first, to the author only", async () => {
    const { owner, member, team } = await teamOfTwo(server.url, ["histowner", "histmember"])
    const channel = await channelIn(owner.client, team.id, "O")
    await member.client.addToChannel(member.user.id, channel.id)
    const post: Post = await owner.client.createPost({ channel_id: channel.id, message: "first words" } as Post)
    await expect(owner.client.getPostEditHistory(post.id)).rejects.toMatchObject({ status_code: 404 })
    await owner.client.patchPost({ id: post.id, message: "second words" } as Post)
    await owner.client.patchPost({ id: post.id, is_pinned: true } as Post) // no message change: no version
    await owner.client.patchPost({ id: post.id, message: "second words" } as Post) // same message: no version
    await owner.client.updatePost({ ...post, message: "third words" } as Post)
    const history: Array<Post> = await owner.client.getPostEditHistory(post.id)
    history.forEach((version, i) => expectShape(version, Wire.PostEditVersion, `history[${i}]`))
    expect(history.map((p) => p.message)).toEqual(["second words", "first words"])
    for (const version of history) {
      expect(version.original_id).toBe(post.id)
      expect(version.id).not.toBe(post.id)
      expect(version.delete_at).toBeGreaterThan(0)
      expect(version.channel_id).toBe(channel.id)
    }
    expect(history[0].edit_at).toBeGreaterThan(0)
    expect(history[1].edit_at).toBe(0)
    // The versions stay out of the channel: lists and since-syncs show the post once, with its current message.
    const list = await member.client.getPosts(channel.id)
    // (The member's own join post is there too: the channel's system posts are not this post's versions.)
    expect(Object.values(list.posts).filter((p) => !p.type.startsWith("system_")).map((p) => p.message)).toEqual(["third words"])
    const since = await member.client.getPostsSince(channel.id, post.create_at - 1)
    expect(Object.keys(since.posts)).toEqual([post.id])
    // Authorization: only the author; others get 403, no session 401; bad ids 400.
    await expect(member.client.getPostEditHistory(post.id)).rejects.toMatchObject({ status_code: 403 })
    const outsider = await newUser(server.url, "histout")
    await expect(outsider.client.getPostEditHistory(post.id)).rejects.toMatchObject({ status_code: 403 })
    await expect(client4(server.url).getPostEditHistory(post.id)).rejects.toMatchObject({ status_code: 401 })
    await expect(owner.client.getPostEditHistory("not-an-id")).rejects.toMatchObject({ status_code: 400 })
    await expect(owner.client.getPostEditHistory("a".repeat(26))).rejects.toMatchObject({ status_code: 404 })
  })

  it("post info tells where a permalink leads, to those who may follow it", async () => {
    const { owner, member, team } = await teamOfTwo(server.url, ["infoowner", "infomember"], { allow_open_invite: true })
    const closed: Team = await owner.client.createTeam({ name: unique("closed"), display_name: "Closed", type: "I" } as Team)
    const publicChannel = await channelIn(owner.client, team.id, "O")
    const privateChannel = await channelIn(owner.client, team.id, "P")
    const closedChannel = await channelIn(owner.client, closed.id, "O")
    const inPublic: Post = await owner.client.createPost({ channel_id: publicChannel.id, message: "public" } as Post)
    const inPrivate: Post = await owner.client.createPost({ channel_id: privateChannel.id, message: "private" } as Post)
    const inClosed: Post = await owner.client.createPost({ channel_id: closedChannel.id, message: "closed" } as Post)
    const dm = await owner.client.createDirectChannel([owner.user.id, member.user.id])
    const inDm: Post = await owner.client.createPost({ channel_id: dm.id, message: "direct" } as Post)
    const outsider = await newUser(server.url, "infoout")

    expect(expectShape(await owner.client.getPostInfo(inPublic.id), Wire.PostInfo, "post info")).toEqual({
      channel_id: publicChannel.id,
      channel_type: "O",
      channel_display_name: "Somewhere",
      has_joined_channel: true,
      team_id: team.id,
      team_type: "O",
      team_display_name: team.display_name,
      has_joined_team: true
    })
    // A team member who has not joined the public channel, and an outsider of an open team, may follow the link.
    expect(await member.client.getPostInfo(inPublic.id)).toMatchObject({ has_joined_channel: false, has_joined_team: true })
    expect(await outsider.client.getPostInfo(inPublic.id)).toMatchObject({ has_joined_channel: false, has_joined_team: false })
    // Private channels, closed teams and direct messages need membership.
    await expect(member.client.getPostInfo(inPrivate.id)).rejects.toMatchObject({ status_code: 403 })
    await expect(outsider.client.getPostInfo(inClosed.id)).rejects.toMatchObject({ status_code: 403 })
    expect(await member.client.getPostInfo(inDm.id)).toMatchObject({ channel_type: "D", has_joined_channel: true, team_id: "" })
    await expect(outsider.client.getPostInfo(inDm.id)).rejects.toMatchObject({ status_code: 403 })
    await expect(client4(server.url).getPostInfo(inPublic.id)).rejects.toMatchObject({ status_code: 401 })
    await expect(owner.client.getPostInfo("a".repeat(26))).rejects.toMatchObject({ status_code: 404 })
    await expect(owner.client.getPostInfo("bad")).rejects.toMatchObject({ status_code: 400 })
  })
})

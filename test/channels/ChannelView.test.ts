import type { Channel } from "@mattermost/types/channels"
import type { Post } from "@mattermost/types/posts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectShape, Wire } from "../compat/Shapes.ts"
import { unique } from "../support/Clients.ts"
import { teamOfTwo } from "../support/Teams.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * Viewing a channel marks it read; viewing a channel that is already read again (a client switching back to it)
 * changes nothing and answers the stored time.
 */
let server: TestServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(async () => {
  await server?.close()
})

describe("channel views", () => {
  it("leave a channel that is already read as it is, and catch up once something was posted", async () => {
    const { owner, member, team } = await teamOfTwo(server.url, ["viewowner", "viewmember"])
    const channel: Channel = await owner.client.createChannel({ team_id: team.id, name: unique("view"), display_name: "View", type: "O" } as Channel)
    await owner.client.addToChannel(member.user.id, channel.id)
    const first: Post = await owner.client.createPost({ channel_id: channel.id, message: "one" } as Post)

    const viewed = await member.client.viewMyChannel(channel.id)
    const at = viewed.last_viewed_at_times[channel.id]
    expectShape(viewed, Wire.ChannelViewResponse, "view")
    expect(at).toBeGreaterThanOrEqual(first.create_at)
    const read = await member.client.getMyChannelMember(channel.id)
    expect(read).toMatchObject({ msg_count: 1, last_viewed_at: at })

    // Nothing new: the same answer, and the membership is not rewritten (its last_update_at stays).
    const again = await member.client.viewMyChannel(channel.id)
    expect(again.last_viewed_at_times).toEqual({ [channel.id]: at })
    expect(await member.client.getMyChannelMember(channel.id)).toMatchObject({ last_viewed_at: at, last_update_at: read.last_update_at })

    // A new post: the next view catches up.
    const second: Post = await owner.client.createPost({ channel_id: channel.id, message: "two" } as Post)
    const later = await member.client.viewMyChannel(channel.id)
    expect(later.last_viewed_at_times[channel.id]).toBeGreaterThanOrEqual(second.create_at)
    expect(await member.client.getMyChannelMember(channel.id)).toMatchObject({ msg_count: 2, last_viewed_at: later.last_viewed_at_times[channel.id] })
  })
})

import type { Channel } from "@mattermost/types/channels"
import type { Post } from "@mattermost/types/posts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectShape, Wire } from "../compat/Shapes.ts"
import { failureOf, newUser, unique } from "../support/Clients.ts"
import { teamOfTwo } from "../support/Teams.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/** Post priority through Client4: stored and returned in metadata, urgent mention counts, the admin's switch. */
let server: TestServer
let admin: Awaited<ReturnType<typeof newUser>>
let team: Awaited<ReturnType<typeof teamOfTwo>>
let channel: Channel

const withPriority = (message: string, priority: Record<string, unknown>, root_id = "") =>
  ({ channel_id: channel.id, message, root_id, metadata: { priority } }) as unknown as Post

describe("post priority", () => {
  beforeAll(async () => {
    server = await startServer()
    admin = await newUser(server.url, "prioadmin")
    team = await teamOfTwo(server.url, ["prioowner", "priomember"])
    channel = await team.owner.client.createChannel({ team_id: team.team.id, name: unique("prio"), display_name: "Prio", type: "O" } as Channel)
    await team.owner.client.addToChannel(team.member.user.id, channel.id)
  })
  afterAll(async () => {
    await server?.close()
  })

  it("is on by default (Mattermost's default): stored, returned by create, get and lists; absent when not set", async () => {
    const { owner } = team
    expect((await owner.client.getClientConfig() as Record<string, string>).PostPriority).toBe("true")
    const important = await owner.client.createPost(withPriority("deploy at noon", { priority: "important", requested_ack: true }))
    expect(important.metadata.priority).toEqual({ priority: "important", requested_ack: true, persistent_notifications: false })
    expect((await owner.client.getPost(important.id)).metadata.priority).toEqual(important.metadata.priority)
    const plain = await owner.client.createPost({ channel_id: channel.id, message: "nothing special" } as Post)
    expect(plain.metadata.priority).toBeUndefined()
    // An empty label without flags, as clients may send with every post, is no priority.
    const empty = await owner.client.createPost(withPriority("also plain", { priority: "" }))
    expect(empty.metadata.priority).toBeUndefined()
    for (const metadata of [null, { priority: null }, { embeds: [], files: [] }]) {
      const post = await owner.client.createPost({ channel_id: channel.id, message: "no priority", metadata } as never)
      expect(post.metadata.priority).toBeUndefined()
    }
    const list = await team.member.client.getPosts(channel.id, 0, 10)
    expect(list.posts[important.id].metadata.priority).toEqual(important.metadata.priority)
    expect(list.posts[plain.id].metadata.priority).toBeUndefined()
    // A reply is listed with its root; the ack request is honoured by the acknowledgement routes as before.
    const reply = await owner.client.createPost({ channel_id: channel.id, message: "noted", root_id: important.id } as Post)
    const thread = await owner.client.getPostThread(reply.id)
    expect(thread.posts[important.id].metadata.priority?.priority).toBe("important")
  })

  it("counts urgent mentions for the channel and for followed threads in team unreads", async () => {
    const { owner, member } = team
    const urgent = await owner.client.createPost(withPriority(`@${member.username} the site is down`, { priority: "urgent" }))
    expect(urgent.metadata.priority?.priority).toBe("urgent")
    const membership = await member.client.getChannelMember(channel.id, member.user.id)
    expect(membership.urgent_mention_count).toBe(1)
    expect(membership.mention_count).toBeGreaterThanOrEqual(1)
    await owner.client.createPost(withPriority(`@${member.username} just important`, { priority: "important" }))
    expect((await member.client.getChannelMember(channel.id, member.user.id)).urgent_mention_count).toBe(1)

    // Mentioned in a reply of the urgent thread, which the member follows (mentioned by its root).
    await owner.client.createPost({ channel_id: channel.id, message: `@${member.username} any news?`, root_id: urgent.id } as Post)
    const unreads = await member.client.getMyTeamUnreads(true)
    const mine = unreads.find((u) => u.team_id === team.team.id)!
    expect(mine.thread_mention_count).toBeGreaterThanOrEqual(1)
    expect(mine.thread_urgent_mention_count).toBe(mine.thread_mention_count)
    // The threads list marks the thread urgent and totals its urgent mentions.
    const threads = await member.client.getUserThreads(member.user.id, team.team.id, { perPage: 50 } as never)
    expect(threads.threads.find((t) => t.id === urgent.id)?.is_urgent).toBe(true)
    expect(threads.total_unread_urgent_mentions).toBe(mine.thread_urgent_mention_count)
    // Viewing the channel clears the urgent count with the others.
    await member.client.viewMyChannel(channel.id)
    expect((await member.client.getChannelMember(channel.id, member.user.id)).urgent_mention_count).toBe(0)
  })

  it("drafts keep a priority, and a scheduled post is posted with its own", async () => {
    const { owner } = team
    const draft = await owner.client.upsertDraft({ channel_id: channel.id, root_id: "", message: "draft", priority: { priority: "urgent", requested_ack: true } } as never, "")
    expect(draft.priority).toEqual({ priority: "urgent", requested_ack: true, persistent_notifications: false })
    expect((await owner.client.getUserDrafts(team.team.id)).find((d) => d.channel_id === channel.id)?.priority?.priority).toBe("urgent")
    // Saved again without one, the draft has none.
    const plain = await owner.client.upsertDraft({ channel_id: channel.id, root_id: "", message: "draft again" } as never, "")
    expect(plain.priority).toBeUndefined()
    expect(await failureOf(owner.client.upsertDraft({ channel_id: channel.id, root_id: "", message: "x", priority: { priority: "loud" } } as never, ""))).toMatchObject({
      status: 400
    })

    const marker = unique("scheduled")
    const { data } = await owner.client.createScheduledPost(
      { channel_id: channel.id, message: marker, scheduled_at: Date.now() + 500, priority: { priority: "important" } } as never,
      ""
    )
    expect(data.priority?.priority).toBe("important")
    let sent: Post | undefined
    await expect.poll(async () => {
      const list = await owner.client.getPosts(channel.id, 0, 20)
      sent = Object.values(list.posts).find((p) => p.message === marker)
      return sent !== undefined
    }, { timeout: 10_000 }).toBe(true)
    expect(sent!.metadata.priority?.priority).toBe("important")
    // Scheduling checks the priority as posting does.
    expect(await failureOf(owner.client.createScheduledPost(
      { channel_id: channel.id, message: "later", root_id: sent!.id, scheduled_at: Date.now() + 60_000, priority: { priority: "urgent" } } as never,
      ""
    ))).toMatchObject({ status: 400, id: "api.post.post_priority.priority_post_only_allowed_for_root_post.request_error" })
  })

  it("refuses a priority on a reply, an unknown label and persistent notifications", async () => {
    const { owner } = team
    const root = await owner.client.createPost({ channel_id: channel.id, message: "root" } as Post)
    expect(await failureOf(owner.client.createPost(withPriority("reply", { priority: "urgent" }, root.id)))).toEqual({
      status: 400,
      id: "api.post.post_priority.priority_post_only_allowed_for_root_post.request_error"
    })
    expect(await failureOf(owner.client.createPost(withPriority("what", { priority: "critical" })))).toMatchObject({ status: 400 })
    expect(await failureOf(owner.client.createPost(withPriority("what", { priority: 5 })))).toMatchObject({ status: 400 })
    expect(await failureOf(owner.client.createPost(withPriority("loud", { priority: "urgent", persistent_notifications: true })))).toMatchObject({ status: 403 })
  })

  it("an admin can switch it off: config/client follows and a priority is refused", async () => {
    const { owner } = team
    expect(await failureOf(owner.client.patchConfig({ ServiceSettings: { PostPriority: false } } as never))).toMatchObject({ status: 403 })
    await admin.client.patchConfig({ ServiceSettings: { PostPriority: false } } as never)
    try {
      expect(expectShape(await admin.client.getConfig(), Wire.Config, "config").ServiceSettings.PostPriority).toBe(false)
      expect((await owner.client.getClientConfig() as Record<string, string>).PostPriority).toBe("false")
      expect(await failureOf(owner.client.createPost(withPriority("urgent!", { priority: "urgent" })))).toEqual({
        status: 403,
        id: "api.post.post_priority.priority_post_not_allowed_for_user.request_error"
      })
      expect((await owner.client.createPost({ channel_id: channel.id, message: "still fine" } as Post)).id).toBeTruthy()
    } finally {
      await admin.client.patchConfig({ ServiceSettings: { PostPriority: true } } as never)
    }
    expect((await owner.client.getClientConfig() as Record<string, string>).PostPriority).toBe("true")
  })
})

import type { Channel } from "@mattermost/types/channels"
import type { Post } from "@mattermost/types/posts"
import type { Team } from "@mattermost/types/teams"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MattermostSocket, wsUrl } from "../realtime/Sockets.ts"
import { client4, failureOf, newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { type Member, unique } from "./Fixture.ts"

/**
 * Mattermost's system posts (channel.go, team.go): joins, leaves, adds and removals, header/purpose/name changes,
 * archive, restore and privacy, written in the channel (team ones in Town Square) by the acting user with Mattermost's
 * type, message and props, and delivered live as `posted`. Join/leave posts do not make channels unread; none counts
 * as a mention. DMs and GMs get no join posts; the
 * ExperimentalEnableDefaultChannelLeaveJoinMessages switch turns off the team/default-channel ones.
 */
let server: TestServer
let admin: Member
const sockets: Array<MattermostSocket> = []

beforeAll(async () => {
  server = await startServer()
  // The first account is the system admin.
  admin = await newUser(server.url, "sysadmin")
}, 60_000)

afterAll(async () => {
  for (const s of sockets) s.close()
  await server?.close()
})

const socketOf = async (member: Member) => {
  const socket = new MattermostSocket(wsUrl(server.url), member.client.getToken())
  sockets.push(socket)
  await socket.connect()
  await socket.hello()
  return socket
}

/** The channel's posts, oldest first. */
const postsOf = async (member: Member, channelId: string): Promise<Array<Post>> => {
  const list = await member.client.getPosts(channelId)
  return [...list.order].reverse().map((id) => list.posts[id])
}

const systemPosts = async (member: Member, channelId: string) =>
  (await postsOf(member, channelId)).filter((p) => p.type.startsWith("system_")).map((p) => ({ type: p.type, message: p.message, user_id: p.user_id, props: p.props }))

/** Waits for the socket's `posted` of a system post of that type in that channel. */
const livePost = async (socket: MattermostSocket, channelId: string, type: string) => {
  const frame = await socket.waitFor((e) => {
    if (e.event !== "posted") return false
    const post = JSON.parse(String(e.data?.post)) as Post
    return post.channel_id === channelId && post.type === type
  }, `posted ${type}`, 15_000)
  return JSON.parse(String(frame.data?.post)) as Post
}

/** GET /users/{id}/channels/{id}/unread, Mattermost's unread counts of one member (Client4 has no method for it). */
const unreadOf = async (member: Member, channelId: string) => {
  const response = await fetch(`${server.url}/api/v4/users/${member.user.id}/channels/${channelId}/unread`, {
    headers: { Authorization: `Bearer ${member.client.getToken()}` }
  })
  expect(response.status).toBe(200)
  return await response.json() as { msg_count: number; mention_count: number }
}

const teamOf = async (owner: Member, ...members: ReadonlyArray<Member>) => {
  const team: Team = await owner.client.createTeam({ name: unique("t"), display_name: "Team", type: "O" } as Team)
  for (const m of members) await owner.client.addToTeam(team.id, m.user.id)
  return team
}

describe("channel system posts", () => {
  it("joins, adds, leaves and removals, with Mattermost's type, message and props, live, not unread", async () => {
    const owner = await newUser(server.url, "own")
    const ben = await newUser(server.url, "ben")
    const cat = await newUser(server.url, "cat")
    const team = await teamOf(owner, ben, cat)
    const channel: Channel = await owner.client.createChannel({ team_id: team.id, name: unique("c"), display_name: "Chan", type: "O" } as Channel)
    const ownerSocket = await socketOf(owner)

    await ben.client.addToChannel(ben.user.id, channel.id)
    const joined = await livePost(ownerSocket, channel.id, "system_join_channel")
    expect(joined).toMatchObject({ user_id: ben.user.id, message: `${ben.username} joined the channel.`, props: { username: ben.username } })

    await owner.client.addToChannel(cat.user.id, channel.id)
    const added = await livePost(ownerSocket, channel.id, "system_add_to_channel")
    expect(added).toMatchObject({
      user_id: owner.user.id,
      message: `${cat.username} added to the channel by ${owner.username}.`,
      props: { userId: owner.user.id, username: owner.username, addedUserId: cat.user.id, addedUsername: cat.username }
    })

    await ben.client.removeFromChannel(ben.user.id, channel.id)
    const left = await livePost(ownerSocket, channel.id, "system_leave_channel")
    expect(left).toMatchObject({ user_id: ben.user.id, message: `@${ben.username} left the channel.`, props: { username: ben.username } })

    await owner.client.removeFromChannel(cat.user.id, channel.id)
    const removed = await livePost(ownerSocket, channel.id, "system_remove_from_channel")
    expect(removed).toMatchObject({
      user_id: owner.user.id,
      message: `@${cat.username} removed from the channel.`,
      props: { removedUserId: cat.user.id, removedUsername: cat.username }
    })

    // Stored in the channel, in order, as any member reads them.
    expect((await systemPosts(owner, channel.id)).map((p) => p.type)).toEqual([
      "system_join_channel",
      "system_add_to_channel",
      "system_leave_channel",
      "system_remove_from_channel"
    ])
    // Join/leave posts are not counted (Mattermost's IsJoinLeaveMessage), so the channel stays read for its owner, and
    // "@ben left" mentions nobody.
    const unread = await unreadOf(owner, channel.id)
    expect(unread).toMatchObject({ msg_count: 0, mention_count: 0 })
  }, 60_000)

  it("the user added to a channel counts the add post as a mention (Mattermost's implicit mention); nobody else does", async () => {
    const owner = await newUser(server.url, "own")
    const ben = await newUser(server.url, "ben")
    const cat = await newUser(server.url, "cat")
    const team = await teamOf(owner, ben, cat)
    const channel: Channel = await owner.client.createChannel({ team_id: team.id, name: unique("c"), display_name: "Chan", type: "P" } as Channel)
    await owner.client.addToChannel(ben.user.id, channel.id)
    await owner.client.addToChannel(cat.user.id, channel.id)
    await owner.client.removeFromChannel(cat.user.id, channel.id)
    expect((await systemPosts(owner, channel.id)).map((p) => p.type)).toEqual(["system_add_to_channel", "system_add_to_channel", "system_remove_from_channel"])
    // ben was added: one mention, no unread message (adds are join/leave posts). cat's add does not mention ben, and
    // "@cat removed from the channel." names cat but counts as no one's mention.
    expect(await unreadOf(ben, channel.id)).toMatchObject({ mention_count: 1, msg_count: 0 })
    expect(await unreadOf(owner, channel.id)).toMatchObject({ mention_count: 0, msg_count: 0 })
  }, 60_000)

  it("header, purpose and display name changes, archive, restore and privacy", async () => {
    const owner = await newUser(server.url, "own")
    const ben = await newUser(server.url, "ben")
    const team = await teamOf(owner, ben)
    const channel: Channel = await owner.client.createChannel({ team_id: team.id, name: unique("c"), display_name: "Chan", type: "O" } as Channel)
    await owner.client.addToChannel(ben.user.id, channel.id)
    const benSocket = await socketOf(ben)

    await owner.client.patchChannel(channel.id, { header: "First header", purpose: "Why", display_name: "Renamed" })
    const header = await livePost(benSocket, channel.id, "system_header_change")
    expect(header).toMatchObject({
      user_id: owner.user.id,
      message: `${owner.username} updated the channel header to: First header`,
      props: { username: owner.username, old_header: "", new_header: "First header" }
    })
    await owner.client.patchChannel(channel.id, { header: "Second" })
    await owner.client.patchChannel(channel.id, { header: "" })
    // Patching to the same values writes nothing.
    await owner.client.patchChannel(channel.id, { purpose: "Why" })
    await owner.client.updateChannelPrivacy(channel.id, "P")
    await livePost(benSocket, channel.id, "system_change_chan_privacy")
    await owner.client.deleteChannel(channel.id)
    await livePost(benSocket, channel.id, "system_channel_deleted")
    await admin.client.unarchiveChannel(channel.id)
    await livePost(benSocket, channel.id, "system_channel_restored")

    const posts = await systemPosts(ben, channel.id)
    expect(posts.map(({ type, message, props }) => ({ type, message, props }))).toEqual([
      { type: "system_add_to_channel", message: `${ben.username} added to the channel by ${owner.username}.`, props: expect.any(Object) },
      { type: "system_header_change", message: `${owner.username} updated the channel header to: First header`, props: { username: owner.username, old_header: "", new_header: "First header" } },
      { type: "system_purpose_change", message: `${owner.username} updated the channel purpose to: Why`, props: { username: owner.username, old_purpose: "", new_purpose: "Why" } },
      {
        type: "system_displayname_change",
        message: `${owner.username} updated the channel display name from: Chan to: Renamed`,
        props: { username: owner.username, old_displayname: "Chan", new_displayname: "Renamed" }
      },
      {
        type: "system_header_change",
        message: `${owner.username} updated the channel header from: First header to: Second`,
        props: { username: owner.username, old_header: "First header", new_header: "Second" }
      },
      { type: "system_header_change", message: `${owner.username} removed the channel header (was: Second)`, props: { username: owner.username, old_header: "Second", new_header: "" } },
      { type: "system_change_chan_privacy", message: "This channel has been converted to a Private Channel.", props: { username: owner.username } },
      { type: "system_channel_deleted", message: `${owner.username} archived the channel.`, props: { username: owner.username } },
      { type: "system_channel_restored", message: `${admin.username} unarchived the channel.`, props: { username: admin.username } }
    ])
    // Property changes are counted (unlike joins): ben has the 8 unread; his one mention is his own add.
    expect(await unreadOf(ben, channel.id)).toMatchObject({ msg_count: 8, mention_count: 1 })
  }, 60_000)

  it("no join posts in direct and group channels", async () => {
    const ann = await newUser(server.url, "ann")
    const bob = await newUser(server.url, "bob")
    const cy = await newUser(server.url, "cy")
    await teamOf(ann, bob, cy)
    const direct = await ann.client.createDirectChannel([ann.user.id, bob.user.id])
    const group = await ann.client.createGroupChannel([ann.user.id, bob.user.id, cy.user.id])
    await ann.client.createPost({ channel_id: group.id, message: "hello" } as Post)
    expect(await postsOf(ann, direct.id)).toEqual([])
    expect((await postsOf(ann, group.id)).map((p) => p.type)).toEqual([""])
  }, 60_000)
})

describe("team system posts", () => {
  it("creation, joins (by oneself or the single add), batch adds, leaves and removals; the config switch", async () => {
    const owner = await newUser(server.url, "own")
    const ben = await newUser(server.url, "ben")
    const cat = await newUser(server.url, "cat")
    const dan = await newUser(server.url, "dan")
    const team: Team = await owner.client.createTeam({ name: unique("t"), display_name: "Team", type: "O", allow_open_invite: true } as Team)
    const town = await owner.client.getChannelByName(team.id, "town-square")
    const offTopic = await owner.client.getChannelByName(team.id, "off-topic")
    // The creator joins as anyone joining on their own (CreateTeamWithUser: JoinUserToTeam with no requestor).
    expect(await systemPosts(owner, town.id)).toEqual([
      { type: "system_join_team", message: `${owner.username} joined the team.`, user_id: owner.user.id, props: { username: owner.username } }
    ])
    expect(await systemPosts(owner, offTopic.id)).toEqual([
      { type: "system_join_channel", message: `${owner.username} joined the channel.`, user_id: owner.user.id, props: { username: owner.username } }
    ])
    const ownerSocket = await socketOf(owner)

    // The single add passes Mattermost no requestor: ben "joined the team", though the owner added him.
    await owner.client.addToTeam(team.id, ben.user.id)
    const benJoined = await livePost(ownerSocket, town.id, "system_join_team")
    expect(benJoined).toMatchObject({ user_id: ben.user.id, message: `${ben.username} joined the team.`, props: { username: ben.username } })
    await livePost(ownerSocket, offTopic.id, "system_join_channel")
    await cat.client.addToTeam(team.id, cat.user.id)
    await expect.poll(async () => (await systemPosts(owner, town.id)).map((p) => p.props.username)).toEqual([owner.username, ben.username, cat.username])

    // The batch add passes the caller: system_add_to_team in Town Square, system_add_to_channel in Off-Topic, where
    // the added user is mentioned.
    await owner.client.addUsersToTeamGracefully(team.id, [dan.user.id])
    const danAdded = await livePost(ownerSocket, town.id, "system_add_to_team")
    expect(danAdded).toMatchObject({
      user_id: owner.user.id,
      message: `${dan.username} added to the team by ${owner.username}.`,
      props: { userId: owner.user.id, username: owner.username, addedUserId: dan.user.id, addedUsername: dan.username }
    })
    const danInOffTopic = await livePost(ownerSocket, offTopic.id, "system_add_to_channel")
    expect(danInOffTopic).toMatchObject({
      user_id: owner.user.id,
      message: `${dan.username} added to the channel by ${owner.username}.`,
      props: { userId: owner.user.id, username: owner.username, addedUserId: dan.user.id, addedUsername: dan.username }
    })
    expect(await unreadOf(dan, offTopic.id)).toMatchObject({ msg_count: 0, mention_count: 1 })
    expect(await unreadOf(dan, town.id)).toMatchObject({ msg_count: 0, mention_count: 0 })

    await cat.client.removeFromTeam(team.id, cat.user.id)
    const left = await livePost(ownerSocket, town.id, "system_leave_team")
    expect(left).toMatchObject({ user_id: cat.user.id, message: `${cat.username} left the team.`, props: { username: cat.username } })
    await owner.client.removeFromTeam(team.id, ben.user.id)
    const removed = await livePost(ownerSocket, town.id, "system_remove_from_team")
    expect(removed).toMatchObject({ user_id: ben.user.id, message: `${ben.username} removed from the team.`, props: { username: ben.username } })

    expect((await systemPosts(owner, town.id)).map((p) => p.type)).toEqual([
      "system_join_team",
      "system_join_team",
      "system_join_team",
      "system_add_to_team",
      "system_leave_team",
      "system_remove_from_team"
    ])
    expect((await systemPosts(owner, offTopic.id)).map((p) => p.type)).toEqual([
      "system_join_channel",
      "system_join_channel",
      "system_join_channel",
      "system_add_to_channel"
    ])
    // None of them made Town Square unread for the owner.
    expect(await unreadOf(owner, town.id)).toMatchObject({ msg_count: 0, mention_count: 0 })

    // Off: no team or default-channel join/leave posts; other channels keep theirs.
    await admin.client.patchConfig({ ServiceSettings: { ExperimentalEnableDefaultChannelLeaveJoinMessages: false } } as never)
    try {
      expect((await admin.client.getConfig()).ServiceSettings.ExperimentalEnableDefaultChannelLeaveJoinMessages).toBe(false)
      await owner.client.addToTeam(team.id, ben.user.id)
      await owner.client.removeFromTeam(team.id, ben.user.id)
      await owner.client.addUsersToTeamGracefully(team.id, [ben.user.id])
      const quiet: Team = await owner.client.createTeam({ name: unique("t"), display_name: "Quiet", type: "O" } as Team)
      const channel: Channel = await owner.client.createChannel({ team_id: team.id, name: unique("c"), display_name: "Chan", type: "O" } as Channel)
      await ben.client.addToChannel(ben.user.id, channel.id)
      await livePost(ownerSocket, channel.id, "system_join_channel")
      expect((await systemPosts(owner, town.id)).length).toBe(6)
      expect((await systemPosts(owner, offTopic.id)).length).toBe(4)
      expect(await systemPosts(owner, (await owner.client.getChannelByName(quiet.id, "town-square")).id)).toEqual([])
    } finally {
      await admin.client.patchConfig({ ServiceSettings: { ExperimentalEnableDefaultChannelLeaveJoinMessages: true } } as never)
    }
  }, 60_000)

  it("joining by the team's invite link and signing up with its invite id post system_join_team", async () => {
    const owner = await newUser(server.url, "own")
    const ben = await newUser(server.url, "ben")
    const team: Team = await owner.client.createTeam({ name: unique("t"), display_name: "Team", type: "I" } as Team)
    const inviteId = (await owner.client.getTeam(team.id)).invite_id
    const town = await owner.client.getChannelByName(team.id, "town-square")

    await ben.client.addToTeamFromInvite("", inviteId)
    const username = unique("signup").slice(0, 20)
    const signup = client4(server.url)
    const created = await signup.createUser({ username, email: `${username}@example.com`, password: "correct-horse-battery" } as never, "", inviteId)

    await expect.poll(async () => (await systemPosts(owner, town.id)).map(({ type, user_id, message }) => ({ type, user_id, message }))).toEqual([
      { type: "system_join_team", user_id: owner.user.id, message: `${owner.username} joined the team.` },
      { type: "system_join_team", user_id: ben.user.id, message: `${ben.username} joined the team.` },
      { type: "system_join_team", user_id: created.id, message: `${username} joined the team.` }
    ])
  }, 60_000)
})

describe("adds in a thread, the channel move", () => {
  it("an add with post_root_id goes in that thread; the added user is mentioned there and follows it", async () => {
    const owner = await newUser(server.url, "own")
    const ben = await newUser(server.url, "ben")
    const cat = await newUser(server.url, "cat")
    const team = await teamOf(owner, ben, cat)
    const channel: Channel = await owner.client.createChannel({ team_id: team.id, name: unique("c"), display_name: "Chan", type: "O" } as Channel)
    const other: Channel = await owner.client.createChannel({ team_id: team.id, name: unique("c"), display_name: "Other", type: "O" } as Channel)
    const root = await owner.client.createPost({ channel_id: channel.id, message: "who should see this?" } as Post)
    const reply = await owner.client.createPost({ channel_id: channel.id, root_id: root.id, message: "cat should" } as Post)
    const ownerSocket = await socketOf(owner)

    // Refused before anyone is added: a malformed id, a missing post, a post of another channel.
    const otherRoot = await owner.client.createPost({ channel_id: other.id, message: "elsewhere" } as Post)
    expect(await failureOf(owner.client.addToChannel(cat.user.id, channel.id, "not-an-id"))).toMatchObject({ status: 400 })
    expect(await failureOf(owner.client.addToChannel(cat.user.id, channel.id, "a".repeat(26)))).toMatchObject({ status: 404 })
    expect(await failureOf(owner.client.addToChannel(cat.user.id, channel.id, otherRoot.id))).toMatchObject({ status: 400 })
    expect(await failureOf(cat.client.getChannelMember(channel.id, cat.user.id))).toMatchObject({ status: 404 })

    // A reply's id stands for its thread.
    await owner.client.addToChannel(cat.user.id, channel.id, reply.id)
    const frame = await ownerSocket.waitFor((e) => e.event === "posted" && String(e.data?.post).includes("system_add_to_channel"), "posted add", 15_000)
    const added = JSON.parse(String(frame.data?.post)) as Post
    expect(added).toMatchObject({ root_id: root.id, type: "system_add_to_channel", user_id: owner.user.id, props: { addedUserId: cat.user.id } })
    expect(JSON.parse(String(frame.data?.mentions))).toEqual([cat.user.id])

    const thread = await owner.client.getPostThread(root.id)
    expect(thread.order).toContain(added.id)
    expect(thread.posts[root.id].reply_count).toBe(2)
    // cat: one mention, in the thread, which cat now follows with that mention unread. The add itself is not counted:
    // the unread messages are the two written before cat came in.
    expect(await unreadOf(cat, channel.id)).toMatchObject({ mention_count: 1, msg_count: 2 })
    const catThread = await cat.client.getUserThread(cat.user.id, team.id, root.id, false)
    expect(catThread).toMatchObject({ id: root.id, unread_mentions: 1 })

    // Added at the channel's root (no post_root_id): a root post.
    await owner.client.addToChannel(ben.user.id, channel.id)
    await expect.poll(async () => (await postsOf(owner, channel.id)).filter((p) => p.props.addedUserId === ben.user.id).map((p) => p.root_id)).toEqual([""])
  }, 60_000)

  it("/invite typed in a thread puts the add post in that thread", async () => {
    const owner = await newUser(server.url, "own")
    const ben = await newUser(server.url, "ben")
    const team = await teamOf(owner, ben)
    const channel: Channel = await owner.client.createChannel({ team_id: team.id, name: unique("c"), display_name: "Chan", type: "O" } as Channel)
    const root = await owner.client.createPost({ channel_id: channel.id, message: "thread" } as Post)
    await owner.client.executeCommand(`/invite @${ben.username}`, { channel_id: channel.id, team_id: team.id, root_id: root.id } as never)
    await expect.poll(async () => (await postsOf(owner, channel.id)).filter((p) => p.type === "system_add_to_channel").map((p) => p.root_id)).toEqual([root.id])
  }, 60_000)

  it("moving a channel to another team writes system_move_channel naming the team it came from", async () => {
    const owner = await newUser(server.url, "own")
    const from = await teamOf(admin, owner)
    const to = await teamOf(admin, owner)
    const channel: Channel = await owner.client.createChannel({ team_id: from.id, name: unique("c"), display_name: "Moving", type: "O" } as Channel)
    const ownerSocket = await socketOf(owner)
    const response = await fetch(`${server.url}/api/v4/channels/${channel.id}/move`, {
      method: "POST",
      headers: { Authorization: `Bearer ${admin.client.getToken()}`, "Content-Type": "application/json" },
      body: JSON.stringify({ team_id: to.id })
    })
    expect(response.status).toBe(200)
    const moved = await livePost(ownerSocket, channel.id, "system_move_channel")
    expect(moved).toMatchObject({
      user_id: admin.user.id,
      message: `This channel has been moved to this team from ${from.name}.`,
      props: { username: admin.username }
    })
    // Not a join/leave post: counted, so the channel is unread for its members.
    expect(await unreadOf(owner, channel.id)).toMatchObject({ msg_count: 1, mention_count: 0 })
  }, 60_000)
})

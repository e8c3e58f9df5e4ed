import type { Post } from "@mattermost/types/posts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectShape, Wire } from "../compat/Shapes.ts"
import { client4, newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { type EventLog, recordEvents } from "../teams/EventLog.ts"
import { channelIn, say, teamWith } from "./Fixture.ts"
import { expectPost, expectPostList } from "./Shapes.ts"

let server: TestServer
let log: EventLog

beforeAll(async () => {
  server = await startServer()
  // The first account is the system admin; the scenarios run as ordinary users.
  await newUser(server.url, "sysadmin")
  log = await recordEvents(server)
})
afterAll(async () => {
  await log?.stop()
  await server?.close()
})

/** A page's posts but the system posts (the fixture's joins and adds write Mattermost's system_add_to_channel). */
const ownPosts = (list: { order: Array<string>; posts: Record<string, Post> }) => list.order.filter((id) => !list.posts[id].type.startsWith("system_"))

const raw = (token: string, method: string, path: string, body?: string) =>
  fetch(`${server.url}/api/v4${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body
  })

const tokenOf = (m: { client: { getToken(): string } }) => m.client.getToken()

describe("creating posts", () => {
  it("answers 201 with the post, echoes pending_post_id, counts the channel and publishes posted", async () => {
    const { owner, members: [bob], team } = await teamWith(server, 1)
    const channel = await channelIn(owner, team, "O", [bob])
    log.clear()
    const post = await owner.client.createPost({ channel_id: channel.id, message: "hello #greeting world", pending_post_id: `${owner.user.id}:123` } as Post)
    expectPost(post)
    expect(post).toMatchObject({ channel_id: channel.id, user_id: owner.user.id, message: "hello #greeting world", pending_post_id: `${owner.user.id}:123`, root_id: "", reply_count: 0, hashtags: "#greeting", type: "" })
    expect(post.metadata).toMatchObject({ embeds: [], emojis: [], files: [], reactions: [] })

    const after = await owner.client.getChannel(channel.id)
    expect(after.last_post_at).toBe(post.create_at)
    expect(after.last_root_post_at).toBe(post.create_at)
    expect(after.total_msg_count).toBe(1)
    // The author has read their own post; the other member has not.
    expect(await owner.client.getMyChannelMember(channel.id)).toMatchObject({ msg_count: 1, msg_count_root: 1, last_viewed_at: post.create_at })
    expect(await bob.client.getMyChannelMember(channel.id)).toMatchObject({ msg_count: 0, mention_count: 0 })

    const posted = log.named("posted").find((e) => JSON.parse(e.data.post as string).id === post.id)!
    expect(posted.broadcast.channel_id).toBe(channel.id)
    expect(posted.data).toMatchObject({
      channel_display_name: channel.display_name,
      channel_name: channel.name,
      channel_type: "O",
      sender_name: `@${owner.username}`,
      team_id: team.id,
      set_online: true
    })
    expect(posted.data.mentions).toBeUndefined()
    expect(JSON.parse(posted.data.post as string)).toMatchObject({ id: post.id, pending_post_id: `${owner.user.id}:123`, metadata: { files: [] } })
  })

  it("answers and publishes the same post a read returns, for root posts (built from the write) and replies (read back)", async () => {
    const { owner, members: [bob], team } = await teamWith(server, 1)
    const channel = await channelIn(owner, team, "O", [bob])
    log.clear()
    const props = { zeta: 1, a: { nested: [true, null] }, from_bot: "x" }
    const sameAsRead = async (created: Post) => {
      const read = await owner.client.getPost(created.id)
      expect(created).toStrictEqual(read)
      const posted = log.named("posted").find((e) => JSON.parse(e.data.post as string).id === created.id)!
      expect(JSON.parse(posted.data.post as string)).toStrictEqual(read)
    }
    const root = await owner.client.createPost({ channel_id: channel.id, message: "first #tag and #other", props } as unknown as Post)
    await sameAsRead(root)
    await sameAsRead(await bob.client.createPost({ channel_id: channel.id, message: "a reply", root_id: root.id } as Post))
    // from_bot and from_webhook are the server's to set: a client cannot pass its post off as a bot's.
    const { from_bot: _dropped, ...kept } = props
    expect(root.props).toStrictEqual(kept)
    expect(root.hashtags).toBe("#tag #other")
  })

  it("counts @username, @channel and @all mentions for members other than the author, never @here for offline users", async () => {
    const { owner, members: [bob, carol, dave], team } = await teamWith(server, 3)
    const channel = await channelIn(owner, team, "O", [bob, carol])
    log.clear()
    const p1 = await say(owner, channel.id, `hi @${bob.username}, and @${owner.username} myself`)
    const mentions = JSON.parse(log.named("posted").find((e) => JSON.parse(e.data.post as string).id === p1.id)!.data.mentions as string)
    expect(mentions).toEqual([bob.user.id])
    expect(await bob.client.getMyChannelMember(channel.id)).toMatchObject({ mention_count: 1, mention_count_root: 1, msg_count: 0 })
    expect(await carol.client.getMyChannelMember(channel.id)).toMatchObject({ mention_count: 0 })

    await say(owner, channel.id, "@channel meeting")
    await say(owner, channel.id, "also @all.")
    await say(owner, channel.id, "@here anyone?")
    await say(owner, channel.id, "mail me at someone@example.com and `@carol` in code")
    expect(await bob.client.getMyChannelMember(channel.id)).toMatchObject({ mention_count: 3, mention_count_root: 3 })
    expect(await carol.client.getMyChannelMember(channel.id)).toMatchObject({ mention_count: 2 })
    expect(await owner.client.getMyChannelMember(channel.id)).toMatchObject({ mention_count: 0, msg_count: 5 })

    // A named team member outside the channel is told to the author, not counted.
    log.clear()
    await say(owner, channel.id, `ping @${dave.username}`)
    const notice = log.named("ephemeral_message").find((e) => e.broadcast.user_id === owner.user.id)!
    expect(JSON.parse(notice.data.post as string).props.add_channel_member.not_in_channel_user_ids).toEqual([dave.user.id])
  })

  it("counts @here for online members only", async () => {
    const { owner, members: [bob, carol], team } = await teamWith(server, 2)
    const channel = await channelIn(owner, team, "O", [bob, carol])
    await bob.client.updateStatus({ user_id: bob.user.id, status: "online" } as never)
    await carol.client.updateStatus({ user_id: carol.user.id, status: "offline" } as never)
    await say(owner, channel.id, "@here standup")
    expect(await bob.client.getMyChannelMember(channel.id)).toMatchObject({ mention_count: 1 })
    expect(await carol.client.getMyChannelMember(channel.id)).toMatchObject({ mention_count: 0 })
  })

  it("counts every post as a mention in a DM", async () => {
    const a = await newUser(server.url, "dma")
    const b = await newUser(server.url, "dmb")
    const dm = await a.client.createDirectChannel([a.user.id, b.user.id])
    await say(a, dm.id, "hey")
    await say(a, dm.id, "there")
    expect(await b.client.getMyChannelMember(dm.id)).toMatchObject({ mention_count: 2, msg_count: 0 })
    expect(await a.client.getMyChannelMember(dm.id)).toMatchObject({ mention_count: 0, msg_count: 2 })
  })

  it("moves unread and mention counts as users post and view", async () => {
    const { owner, members: [bob], team } = await teamWith(server, 1)
    const channel = await channelIn(owner, team, "O", [bob])
    await say(owner, channel.id, `one @${bob.username}`)
    await say(owner, channel.id, "two")
    const c1 = await bob.client.getChannel(channel.id)
    const m1 = await bob.client.getMyChannelMember(channel.id)
    expect(c1.total_msg_count - m1.msg_count).toBe(2)
    expect(m1.mention_count).toBe(1)
    await bob.client.viewMyChannel(channel.id)
    const m2 = await bob.client.getMyChannelMember(channel.id)
    expect(m2).toMatchObject({ msg_count: 2, mention_count: 0 })
    await say(bob, channel.id, `back @${owner.username}`)
    expect(await bob.client.getMyChannelMember(channel.id)).toMatchObject({ msg_count: 3, mention_count: 0 })
    expect(await owner.client.getMyChannelMember(channel.id)).toMatchObject({ msg_count: 2, mention_count: 1 })
  })

  it("refuses bad input with the error body and writes nothing", async () => {
    const { owner, members: [bob], team } = await teamWith(server, 1)
    const channel = await channelIn(owner, team, "O", [bob])
    const other = await channelIn(owner, team, "O", [])
    const root = await say(owner, channel.id, "root")
    const reply = await say(owner, channel.id, "reply", root.id)
    const token = tokenOf(owner)
    const cases: Array<[string, number, string]> = [
      ["{not json", 400, "api.context.invalid_body_param.app_error"],
      [JSON.stringify({ channel_id: channel.id, message: "x".repeat(16384) }), 400, "model.post.is_valid.message_length.app_error"],
      [JSON.stringify({ channel_id: "nope", message: "x" }), 400, "model.post.is_valid.channel_id.app_error"],
      [JSON.stringify({ channel_id: channel.id, message: "x", root_id: "a".repeat(26) }), 400, "api.post.create_post.root_id.app_error"],
      [JSON.stringify({ channel_id: channel.id, message: "x", root_id: reply.id }), 400, "api.post.create_post.root_id.app_error"],
      [JSON.stringify({ channel_id: other.id, message: "x", root_id: root.id }), 400, "api.post.create_post.root_id.app_error"],
      [JSON.stringify({ channel_id: channel.id, message: 42 }), 400, "api.context.invalid_param.app_error"],
      [JSON.stringify({ channel_id: channel.id, message: "x", type: "system_join_channel" }), 400, "api.context.invalid_param.app_error"],
      [JSON.stringify({ channel_id: "b".repeat(26), message: "x" }), 404, "app.channel.get.existing.app_error"]
    ]
    for (const [body, status, id] of cases) {
      const res = await raw(token, "POST", "/posts", body)
      expect(res.status, body.slice(0, 60)).toBe(status)
      expect(res.headers.get("content-type")).toBe("application/json")
      expect(await res.json()).toMatchObject({ id, status_code: status })
    }
    // 16383 code points (astral characters count once) are accepted.
    expect((await say(owner, channel.id, "😀".repeat(16383))).message).toHaveLength(16383 * 2)
    const list = await owner.client.getPosts(channel.id)
    expect(ownPosts(list)).toHaveLength(3)
    expect((await owner.client.getChannel(channel.id)).total_msg_count).toBe(3)
  })

  it("attaches the caller's own unattached files of the channel only", async () => {
    const { owner, members: [bob], team } = await teamWith(server, 1)
    const channel = await channelIn(owner, team, "O", [bob])
    const upload = async (who: typeof owner) => {
      const form = new FormData()
      form.append("channel_id", channel.id)
      form.append("files", new Blob(["hello file"], { type: "text/plain" }), "note.txt")
      const res = await fetch(`${server.url}/api/v4/files`, { method: "POST", headers: { Authorization: `Bearer ${tokenOf(who)}` }, body: form })
      expect(res.status).toBe(201)
      return ((await res.json()) as { file_infos: Array<{ id: string }> }).file_infos[0].id
    }
    const mine = await upload(owner)
    const bobs = await upload(bob)
    const post = await owner.client.createPost({ channel_id: channel.id, message: "files", file_ids: [mine, bobs] } as Post)
    expect(post.file_ids).toEqual([mine])
    expect(post.metadata.files.map((f) => f.id)).toEqual([mine])
    expect(post.metadata.files[0]).toMatchObject({ name: "note.txt", post_id: post.id, channel_id: channel.id, user_id: owner.user.id })
    // Already attached: a second post cannot take it.
    const again = await owner.client.createPost({ channel_id: channel.id, message: "again", file_ids: [mine] } as Post)
    expect(again.file_ids ?? []).toEqual([])
  })
})

describe("authorization", () => {
  it("lets members read and write, team members read public channels, and outsiders nothing", async () => {
    const { owner, members: [member, teamOnly], team } = await teamWith(server, 2)
    const outsider = await newUser(server.url, "out")
    const pub = await channelIn(owner, team, "O", [member])
    const priv = await channelIn(owner, team, "P", [member])
    const pubPost = await say(member, pub.id, "public")
    const privPost = await say(member, priv.id, "private")

    // Team member outside the channels: reads public posts, cannot post; private ones are closed.
    expect((await teamOnly.client.getPost(pubPost.id)).id).toBe(pubPost.id)
    expect(ownPosts(await teamOnly.client.getPosts(pub.id))).toEqual([pubPost.id])
    await expect(say(teamOnly, pub.id, "x")).rejects.toMatchObject({ status_code: 403 })
    await expect(teamOnly.client.getPost(privPost.id)).rejects.toMatchObject({ status_code: 403 })
    await expect(teamOnly.client.getPosts(priv.id)).rejects.toMatchObject({ status_code: 403 })
    expect(await teamOnly.client.getPostsByIds([pubPost.id, privPost.id])).toHaveLength(1)

    // Outsider of the team: nothing.
    for (const attempt of [
      () => outsider.client.getPost(pubPost.id),
      () => outsider.client.getPosts(pub.id),
      () => outsider.client.getPostThread(pubPost.id),
      () => outsider.client.getPinnedPosts(pub.id),
      () => say(outsider, pub.id, "x"),
      () => outsider.client.pinPost(pubPost.id),
      () => outsider.client.deletePost(pubPost.id),
      () => outsider.client.patchPost({ id: pubPost.id, message: "x" })
    ]) {
      await expect(attempt()).rejects.toMatchObject({ status_code: 403, server_error_id: "api.context.permissions.app_error" })
    }
    expect(await outsider.client.getPostsByIds([pubPost.id])).toEqual([])
    // Unknown posts are 404, not 403.
    await expect(member.client.getPost("z".repeat(26))).rejects.toMatchObject({ status_code: 404 })
    // Anonymous is 401 only.
    const anonymous = await fetch(`${server.url}/api/v4/posts/${pubPost.id}`)
    expect(anonymous.status).toBe(401)
  })
})

describe("editing and deleting", () => {
  it("lets the author edit and patch, sets edit_at, publishes post_edited; others get 403", async () => {
    const { owner, members: [bob], team } = await teamWith(server, 1)
    const channel = await channelIn(owner, team, "O", [bob])
    const post = await say(bob, channel.id, "first")
    log.clear()
    const edited = await bob.client.updatePost({ ...post, message: "second #tag" })
    expect(edited).toMatchObject({ id: post.id, message: "second #tag", hashtags: "#tag" })
    expect(edited.edit_at).toBeGreaterThan(0)
    expect(edited.update_at).toBeGreaterThanOrEqual(edited.edit_at)
    const event = log.named("post_edited").find((e) => e.broadcast.channel_id === channel.id)!
    expect(JSON.parse(event.data.post as string)).toMatchObject({ id: post.id, message: "second #tag" })

    const patched = await bob.client.patchPost({ id: post.id, props: { custom: "yes" } })
    expect(patched).toMatchObject({ message: "second #tag", props: { custom: "yes" }, edit_at: edited.edit_at })
    await expect(owner.client.patchPost({ id: post.id, message: "hijack" })).rejects.toMatchObject({ status_code: 403 })
    await expect(bob.client.patchPost({ id: post.id, message: "y".repeat(16384) })).rejects.toMatchObject({ status_code: 400 })
    const mismatched = await raw(tokenOf(bob), "PUT", `/posts/${post.id}`, JSON.stringify({ id: "c".repeat(26), message: "x" }))
    expect(mismatched.status).toBe(400)
    expect((await bob.client.getPost(post.id)).message).toBe("second #tag")
  })

  it("soft-deletes a thread by the author or a channel admin, and `since` reports the deletion", async () => {
    const { owner, members: [bob, carol], team } = await teamWith(server, 2)
    const channel = await channelIn(owner, team, "O", [bob, carol])
    const root = await say(bob, channel.id, "root")
    const reply = await say(carol, channel.id, "reply", root.id)
    const since = Date.now() - 1
    await expect(carol.client.deletePost(root.id)).rejects.toMatchObject({ status_code: 403 })
    log.clear()
    // The owner created the channel, so administers it.
    expect(await owner.client.deletePost(root.id)).toMatchObject({ status: "OK" })
    const event = log.named("post_deleted")[0]
    expect(event.broadcast.channel_id).toBe(channel.id)
    expect(event.data.delete_by).toBe(owner.user.id)
    expect(JSON.parse(event.data.post as string)).toMatchObject({ id: root.id })
    expect(JSON.parse(event.data.post as string).delete_at).toBeGreaterThan(0)

    await expect(bob.client.getPost(root.id)).rejects.toMatchObject({ status_code: 404 })
    await expect(bob.client.getPost(reply.id)).rejects.toMatchObject({ status_code: 404 })
    expect(ownPosts(await bob.client.getPosts(channel.id))).toEqual([])
    const sinceList = expectPostList(await bob.client.getPostsSince(channel.id, since))
    expect(sinceList.order.sort()).toEqual([root.id, reply.id].sort())
    expect(sinceList.posts[root.id].delete_at).toBeGreaterThan(0)
    expect(sinceList.posts[reply.id].delete_at).toBeGreaterThan(0)

    const own = await say(carol, channel.id, "mine")
    expect(await carol.client.deletePost(own.id)).toMatchObject({ status: "OK" })
  })
})

describe("channel pages", () => {
  it("brings whole threads with a page unless the client skips them or reads collapsed threads", async () => {
    const { owner, members: [bob], team } = await teamWith(server, 1)
    const channel = await channelIn(owner, team, "O", [bob])
    const root = await say(owner, channel.id, "root")
    const early = await bob.client.createPost({ channel_id: channel.id, root_id: root.id, message: "early reply" } as Post)
    const gone = await bob.client.createPost({ channel_id: channel.id, root_id: root.id, message: "deleted reply" } as Post)
    await bob.client.deletePost(gone.id)
    const other = await say(owner, channel.id, "other root")
    const late = await bob.client.createPost({ channel_id: channel.id, root_id: root.id, message: "late reply" } as Post)
    const newest = await say(owner, channel.id, "newest")

    // The page is the two newest posts; the thread of the reply on it comes along, its deleted reply does not.
    const full = expectPostList(await bob.client.getPosts(channel.id, 0, 2))
    expect(full.order).toEqual([newest.id, late.id])
    expect(Object.keys(full.posts).sort()).toEqual([newest.id, late.id, root.id, early.id].sort())
    const skipped = expectPostList(await bob.client.getPosts(channel.id, 0, 2, false))
    expect(Object.keys(skipped.posts).sort()).toEqual([newest.id, late.id, root.id].sort())
    const collapsed = expectPostList(await bob.client.getPosts(channel.id, 0, 2, true, true))
    expect(collapsed.order).toEqual([newest.id, other.id])
    expect(Object.keys(collapsed.posts).sort()).toEqual([newest.id, other.id].sort())
  })

  it("pages newest first with before/after cursors, next/prev ids and since", async () => {
    const { owner, members: [bob], team } = await teamWith(server, 1)
    const channel = await channelIn(owner, team, "O", [bob])
    // The first of the seven is the system post of bob's being added (Mattermost's system_add_to_channel).
    const ids: Array<string> = [...(await bob.client.getPosts(channel.id)).order]
    expect(ids).toHaveLength(1)
    for (let i = 1; i < 7; i++) ids.push((await say(i % 2 === 0 ? owner : bob, channel.id, `m${i}`)).id)
    const newest = [...ids].reverse()

    const p0 = expectPostList(await bob.client.getPosts(channel.id, 0, 3))
    expect(p0.order).toEqual(newest.slice(0, 3))
    expect(p0).toMatchObject({ next_post_id: "", prev_post_id: newest[3] })
    expect(Object.keys(p0.posts).sort()).toEqual(newest.slice(0, 3).sort())
    const p2 = await bob.client.getPosts(channel.id, 2, 3)
    expect(p2.order).toEqual(newest.slice(6))
    expect(p2).toMatchObject({ next_post_id: newest[5], prev_post_id: "" })
    expect((await bob.client.getPosts(channel.id, 5, 3)).order).toEqual([])

    const before = await bob.client.getPostsBefore(channel.id, ids[4], 0, 2)
    expect(before.order).toEqual([ids[3], ids[2]])
    expect(before).toMatchObject({ next_post_id: ids[4], prev_post_id: ids[1] })
    const after = await bob.client.getPostsAfter(channel.id, ids[2], 0, 2)
    expect(after.order).toEqual([ids[4], ids[3]])
    expect(after).toMatchObject({ prev_post_id: ids[2], next_post_id: ids[5] })
    const afterPage1 = await bob.client.getPostsAfter(channel.id, ids[2], 1, 2)
    expect(afterPage1.order).toEqual([ids[6], ids[5]])

    const third = await bob.client.getPost(ids[3])
    const since = await bob.client.getPostsSince(channel.id, third.create_at)
    expect(since.order).toEqual(newest.slice(0, 4))

    for (const query of ["page=-1", "per_page=abc", "before=notanid", "since=yesterday"]) {
      const res = await raw(tokenOf(bob), "GET", `/channels/${channel.id}/posts?${query}`)
      expect(res.status, query).toBe(400)
      expect(await res.json()).toMatchObject({ id: "api.context.invalid_param.app_error" })
    }
    // Clients send empty cursors.
    const tolerant = await raw(tokenOf(bob), "GET", `/channels/${channel.id}/posts?page=0&per_page=2&before=&after=`)
    expect(((await tolerant.json()) as { order: Array<string> }).order).toEqual(newest.slice(0, 2))
  })

  it("returns posts by ids, pins and unpins, lists pinned posts", async () => {
    const { owner, members: [bob], team } = await teamWith(server, 1)
    const channel = await channelIn(owner, team, "O", [bob])
    const a = await say(owner, channel.id, "a")
    const b = await say(bob, channel.id, "b")
    const byIds = await bob.client.getPostsByIds([b.id, a.id, "y".repeat(26)])
    expect(byIds.map((p) => expectPost(p).id)).toEqual([b.id, a.id])
    const bad = await raw(tokenOf(bob), "POST", "/posts/ids", JSON.stringify(["short"]))
    expect(bad.status).toBe(400)

    log.clear()
    expect(await bob.client.pinPost(a.id)).toMatchObject({ status: "OK" })
    const pinnedPost = await bob.client.getPost(a.id)
    expect(pinnedPost).toMatchObject({ is_pinned: true, edit_at: 0 })
    expect(JSON.parse(log.named("post_edited")[0].data.post as string)).toMatchObject({ id: a.id, is_pinned: true })
    const pinned = expectPostList(await owner.client.getPinnedPosts(channel.id))
    expect(pinned.order).toEqual([a.id])
    await bob.client.unpinPost(a.id)
    expect((await owner.client.getPinnedPosts(channel.id)).order).toEqual([])
  })

  it("lists saved posts from the flagged_post preferences, only in channels the user still reads", async () => {
    const { owner, members: [bob], team } = await teamWith(server, 1)
    const channel = await channelIn(owner, team, "O", [bob])
    const priv = await channelIn(owner, team, "P", [bob])
    const a = await say(owner, channel.id, "save me")
    const b = await say(owner, priv.id, "save me too")
    const c = await say(owner, channel.id, "not saved")
    await bob.client.savePreferences(bob.user.id, [a, b].map((p) => ({ user_id: bob.user.id, category: "flagged_post", name: p.id, value: "true" })))
    const saved = expectPostList(await bob.client.getFlaggedPosts(bob.user.id))
    expect(saved.order).toEqual([b.id, a.id])
    expect(Object.keys(saved.posts)).not.toContain(c.id)
    expect((await bob.client.getFlaggedPosts(bob.user.id, channel.id)).order).toEqual([a.id])
    expect((await bob.client.getFlaggedPosts(bob.user.id, "", team.id, 0, 1)).order).toEqual([b.id])
    await owner.client.removeFromChannel(bob.user.id, priv.id)
    expect((await bob.client.getFlaggedPosts(bob.user.id)).order).toEqual([a.id])
    await expect(owner.client.getFlaggedPosts(bob.user.id)).rejects.toMatchObject({ status_code: 403 })
  })

  it("marks a post unread and returns the posts around the last read one", async () => {
    const { owner, members: [bob], team } = await teamWith(server, 1)
    const channel = await channelIn(owner, team, "O", [bob])
    const ids: Array<string> = []
    for (let i = 0; i < 6; i++) ids.push((await say(owner, channel.id, i === 4 ? `hey @${bob.username}` : `p${i}`)).id)
    await bob.client.viewMyChannel(channel.id)
    log.clear()
    const unread = expectShape(await bob.client.markPostAsUnread(bob.user.id, ids[3]), Wire.ChannelUnreadAt, "set_unread")
    const p3 = await bob.client.getPost(ids[3])
    expect(unread).toMatchObject({ channel_id: channel.id, team_id: team.id, msg_count: 3, msg_count_root: 3, mention_count: 1, mention_count_root: 1, last_viewed_at: p3.create_at - 1 })
    expect(await bob.client.getMyChannelMember(channel.id)).toMatchObject({ msg_count: 3, mention_count: 1, last_viewed_at: p3.create_at - 1 })
    const event = log.named("post_unread")[0]
    expect(event.broadcast.user_id).toBe(bob.user.id)
    expect(event.data).toMatchObject({ msg_count: 3, mention_count: 1, post_id: ids[3] })
    await expect(owner.client.markPostAsUnread(bob.user.id, ids[3])).rejects.toMatchObject({ status_code: 403 })

    const around = expectPostList(await bob.client.getPostsUnread(channel.id, bob.user.id, 2, 2))
    expect(around.order).toEqual([ids[4], ids[3], ids[2], ids[1]])
    expect(around).toMatchObject({ next_post_id: ids[5], prev_post_id: ids[0] })
    const zero = await raw(tokenOf(bob), "GET", `/users/${bob.user.id}/channels/${channel.id}/posts/unread?limit_after=0`)
    expect(zero.status).toBe(400)
  })
})

describe("bad input on every route", () => {
  it("answers 400 with the Mattermost error body and changes nothing", async () => {
    const { owner, members: [bob], team } = await teamWith(server, 1)
    const channel = await channelIn(owner, team, "O", [bob])
    const root = await say(owner, channel.id, "root")
    await say(bob, channel.id, "reply", root.id)
    const token = tokenOf(bob)
    const own = await say(bob, channel.id, "mine")
    const threads = `/users/me/teams/${team.id}/threads`
    const cases: Array<[string, string, string?]> = [
      ["GET", "/posts/notanid"],
      ["PUT", `/posts/${own.id}`, "{oops"],
      ["PUT", `/posts/${own.id}`, JSON.stringify({ id: own.id })],
      ["PUT", `/posts/${own.id}/patch`, JSON.stringify({ message: 5 })],
      ["DELETE", "/posts/short"],
      ["POST", "/posts/ids", "{}"],
      ["POST", "/posts/ids", "[]"],
      ["POST", `/posts/${own.id}/pin`.replace(own.id, "x")],
      ["GET", `/posts/${root.id}/thread?direction=sideways`],
      ["GET", `/posts/${root.id}/thread?fromCreateAt=soon`],
      ["GET", "/channels/bad/pinned"],
      ["GET", `/channels/${channel.id}/posts?after=${"A".repeat(26)}`],
      ["GET", "/users/me/posts/flagged?per_page=x"],
      ["POST", "/users/me/posts/bad/set_unread", "{}"],
      ["GET", `/users/me/channels/${channel.id}/posts/unread?limit_before=-1`],
      ["POST", "/reactions", "{}"],
      ["POST", "/reactions", JSON.stringify({ user_id: bob.user.id, post_id: own.id, emoji_name: "" })],
      ["DELETE", `/users/me/posts/${own.id}/reactions/BAD!`],
      ["POST", "/posts/ids/reactions", "\"x\""],
      ["GET", `${threads}?per_page=abc`],
      ["GET", `${threads}?before=${root.id}&after=${root.id}`],
      ["GET", `${threads}/nope`],
      ["PUT", `${threads}/${root.id}/read/-5`],
      ["POST", `${threads}/${root.id}/set_unread/bad`],
      ["PUT", `/users/me/teams/bad/threads/read`]
    ]
    for (const [method, path, body] of cases) {
      const res = await raw(token, method, path, body)
      expect(res.status, `${method} ${path}`).toBe(400)
      expect(res.headers.get("content-type")).toBe("application/json")
      const error = (await res.json()) as { id: string; message: string; status_code: number }
      expect(error.status_code, `${method} ${path}`).toBe(400)
      expect(error.id).toMatch(/\.app_error$|\.error$/)
    }
    const after = await bob.client.getPost(own.id)
    expect(after).toMatchObject({ message: "mine", edit_at: 0, is_pinned: false })
    expect(await bob.client.getReactionsForPost(own.id)).toEqual([])
    expect(ownPosts(await bob.client.getPosts(channel.id))).toHaveLength(3)
  })
})

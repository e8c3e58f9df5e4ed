import { describe, expect, it } from "vitest"
import { newUser } from "../support/Clients.ts"
import { serverForFile } from "../support/FileServer.ts"
import { channelIn, say, teamWith } from "../posts/Fixture.ts"
import { expectPost, expectPostList, expectShape, Wire } from "../posts/Shapes.ts"

const env = serverForFile({ sysadmin: true })

const threadEvents = (name: string, userId: string) => env.log.named(name).filter((e) => e.broadcast.user_id === userId)

describe("collapsed reply threads", () => {
  it("keeps reply counts, participants and followers; collapsed channel pages show roots with thread data", async () => {
    const { owner: alice, members: [bob, carol], team } = await teamWith(env.server, 2)
    const channel = await channelIn(alice, team, "O", [bob, carol])
    const root = await say(alice, channel.id, "root question")
    const other = await say(carol, channel.id, "unrelated root")
    env.log.clear()
    const r1 = await say(bob, channel.id, "first answer", root.id)
    expect(r1.root_id).toBe(root.id)
    expect(r1.reply_count).toBe(1)
    const r2 = await say(bob, channel.id, `second, cc @${carol.username}`, root.id)
    expect(r2.reply_count).toBe(2)

    // Everyone following got thread_updated with the thread as a JSON string.
    const aliceUpdate = threadEvents("thread_updated", alice.user.id).at(-1)!
    const thread = expectShape(JSON.parse(aliceUpdate.data.thread as string), Wire.Thread)
    expect(thread).toMatchObject({ id: root.id, reply_count: 2, unread_replies: 2, unread_mentions: 0, is_following: true })
    expect(thread.participants.map((p) => p.id)).toEqual([bob.user.id])
    expect(aliceUpdate.data).toMatchObject({ previous_unread_replies: 1, previous_unread_mentions: 0 })
    const carolUpdate = threadEvents("thread_updated", carol.user.id).at(-1)!
    expect(JSON.parse(carolUpdate.data.thread as string)).toMatchObject({ unread_mentions: 1, is_following: true })
    expect(threadEvents("thread_updated", bob.user.id).length).toBe(2)

    // The root post carries the thread; CRT pages list only roots, with reply_count, participants and is_following.
    const collapsed = await alice.client.getPosts(channel.id, 0, 60, false, true, true)
    // Less the system post of the fixture's adding members (system_add_to_channel).
    expect(collapsed.order.filter((id) => !collapsed.posts[id].type.startsWith("system_"))).toEqual([other.id, root.id])
    const rootInPage = collapsed.posts[root.id]
    expectPost(rootInPage)
    expect(rootInPage).toMatchObject({ reply_count: 2, is_following: true, last_reply_at: r2.create_at })
    expect((rootInPage.participants as Array<{ id: string; username: string }>).map((p) => p.username)).toEqual([bob.username])
    const flat = await alice.client.getPosts(channel.id, 0, 60)
    expect(flat.order.filter((id) => !flat.posts[id].type.startsWith("system_"))).toEqual([r2.id, r1.id, other.id, root.id])
    expect(flat.posts[r1.id].reply_count).toBe(2)
    expect(flat.posts[root.id].participants).toBeUndefined()

    // Unread counts of the channel: replies do not count into the _root counters.
    const aliceMember = await alice.client.getMyChannelMember(channel.id)
    const channelNow = await alice.client.getChannel(channel.id)
    expect(channelNow.total_msg_count_root - aliceMember.msg_count_root).toBe(1)
    expect(await carol.client.getMyChannelMember(channel.id)).toMatchObject({ mention_count: 1, mention_count_root: 0 })
  })

  it("serves the thread with paging in both directions, root always included", async () => {
    const { owner: alice, members: [bob], team } = await teamWith(env.server, 1)
    const channel = await channelIn(alice, team, "O", [bob])
    const root = await say(alice, channel.id, "root")
    const replies: Array<string> = []
    for (let i = 0; i < 5; i++) replies.push((await say(i % 2 ? alice : bob, channel.id, `r${i}`, root.id)).id)

    const all = await bob.client.getPostThread(replies[2])
    expectPostList(all)
    expect(all.order).toEqual([...replies].reverse().concat(root.id))
    expect(all.has_next).toBe(false)

    const page = async (query: string) => {
      const res = await fetch(`${env.server.url}/api/v4/posts/${root.id}/thread?${query}`, { headers: { Authorization: `Bearer ${bob.client.getToken()}` } })
      expect(res.status, query).toBe(200)
      return res.json() as Promise<{ order: Array<string>; posts: Record<string, { create_at: number }>; has_next: boolean }>
    }
    const first = await page("perPage=2&direction=down&collapsedThreads=true&collapsedThreadsExtended=true")
    expect(first.order).toEqual([replies[1], replies[0], root.id])
    expect(first.has_next).toBe(true)
    const last = first.posts[replies[1]]
    const second = await page(`perPage=2&direction=down&fromPost=${replies[1]}&fromCreateAt=${last.create_at}`)
    expect(second.order).toEqual([replies[3], replies[2], root.id])
    const third = await page(`perPage=2&direction=down&fromPost=${replies[3]}`)
    expect(third.order).toEqual([replies[4], root.id])
    expect(third.has_next).toBe(false)
    const up = await page("perPage=2&direction=up")
    expect(up.order).toEqual([replies[4], replies[3], root.id])
    expect(up.has_next).toBe(true)

    const bad = await fetch(`${env.server.url}/api/v4/posts/${root.id}/thread?perPage=-3`, { headers: { Authorization: `Bearer ${bob.client.getToken()}` } })
    expect(bad.status).toBe(400)
  })

  it("lists a user's threads with totals, reads, sets unread, follows and unfollows, marks all read", async () => {
    const { owner: alice, members: [bob], team } = await teamWith(env.server, 1)
    const channel = await channelIn(alice, team, "O", [bob])
    const t1 = await say(alice, channel.id, "thread one")
    const t2 = await say(alice, channel.id, "thread two")
    await say(bob, channel.id, "a", t1.id)
    const t1r2 = await say(bob, channel.id, `b @${alice.username}`, t1.id)
    await say(bob, channel.id, "c", t2.id)

    const list = expectShape(await alice.client.getUserThreads(alice.user.id, team.id, { perPage: 25, extended: true }), Wire.ThreadList)
    for (const t of list.threads) expectPost(expectShape(t, Wire.Thread).post)
    expect(list).toMatchObject({ total: 2, total_unread_threads: 2, total_unread_mentions: 1, total_unread_urgent_mentions: 0 })
    expect(list.threads.map((t) => t.id)).toEqual([t2.id, t1.id])
    const one = list.threads[1]
    expect(one).toMatchObject({ reply_count: 2, unread_replies: 2, unread_mentions: 1, is_following: true, last_viewed_at: 0 })
    expect(one.post).toMatchObject({ id: t1.id, channel_id: channel.id, user_id: alice.user.id })
    expect((one.participants[0] as { username: string }).username).toBe(bob.username)
    const totals = await alice.client.getUserThreads(alice.user.id, team.id, { totalsOnly: true })
    expect(totals).toMatchObject({ total: 2, threads: [] })
    const paged = await alice.client.getUserThreads(alice.user.id, team.id, { before: t2.id, perPage: 25 })
    expect(paged.threads.map((t) => t.id)).toEqual([t1.id])

    env.log.clear()
    const read = await alice.client.updateThreadReadForUser(alice.user.id, team.id, t1.id, t1r2.create_at)
    expect(read).toMatchObject({ id: t1.id, unread_replies: 0, unread_mentions: 0, last_viewed_at: t1r2.create_at })
    const readEvent = threadEvents("thread_read_changed", alice.user.id)[0]
    expect(readEvent.data).toMatchObject({ thread_id: t1.id, unread_replies: 0, unread_mentions: 0, previous_unread_replies: 2, previous_unread_mentions: 1, channel_id: channel.id })
    expect(await alice.client.getUserThreads(alice.user.id, team.id, { unread: true })).toMatchObject({ total_unread_threads: 1, total_unread_mentions: 0 })

    const unread = await alice.client.markThreadAsUnreadForUser(alice.user.id, team.id, t1.id, t1r2.id)
    expect(unread).toMatchObject({ unread_replies: 1, unread_mentions: 1 })
    expect((await alice.client.getUserThread(alice.user.id, team.id, t1.id)).unread_mentions).toBe(1)

    env.log.clear()
    await alice.client.updateThreadFollowForUser(alice.user.id, team.id, t2.id, false)
    expect(threadEvents("thread_follow_changed", alice.user.id)[0].data).toMatchObject({ thread_id: t2.id, state: false, reply_count: 1 })
    expect((await alice.client.getUserThreads(alice.user.id, team.id, {})).threads.map((t) => t.id)).toEqual([t1.id])
    // An unfollowed thread stays unfollowed on new replies, unless the user is mentioned.
    await say(bob, channel.id, "d", t2.id)
    expect((await alice.client.getUserThread(alice.user.id, team.id, t2.id)).is_following).toBe(false)
    await say(bob, channel.id, `e @${alice.username}`, t2.id)
    expect((await alice.client.getUserThread(alice.user.id, team.id, t2.id)).is_following).toBe(true)

    await alice.client.updateThreadsReadForUser(alice.user.id, team.id)
    expect(threadEvents("thread_read_changed", alice.user.id).at(-1)!.data.timestamp).toBeTypeOf("number")
    expect(await alice.client.getUserThreads(alice.user.id, team.id, {})).toMatchObject({ total: 2, total_unread_threads: 0, total_unread_mentions: 0 })
  })

  it("keeps threads private to their user and their channel's readers", async () => {
    const { owner: alice, members: [bob, eve], team } = await teamWith(env.server, 2)
    const priv = await channelIn(alice, team, "P", [bob])
    const root = await say(alice, priv.id, "secret")
    await say(bob, priv.id, "reply", root.id)
    await expect(bob.client.getUserThreads(alice.user.id, team.id, {})).rejects.toMatchObject({ status_code: 403 })
    await expect(eve.client.getUserThread(eve.user.id, team.id, root.id)).rejects.toMatchObject({ status_code: 403 })
    await expect(eve.client.updateThreadFollowForUser(eve.user.id, team.id, root.id, true)).rejects.toMatchObject({ status_code: 403 })
    await expect(bob.client.getUserThread(bob.user.id, team.id, "q".repeat(26))).rejects.toMatchObject({ status_code: 404 })
    const outsider = await newUser(env.server.url, "outs")
    await expect(outsider.client.getUserThreads(outsider.user.id, team.id, {})).rejects.toMatchObject({ status_code: 403 })
    const res = await fetch(`${env.server.url}/api/v4/users/${bob.user.id}/teams/${team.id}/threads/${root.id}/read/notatime`, {
      method: "PUT",
      headers: { Authorization: `Bearer ${bob.client.getToken()}` }
    })
    expect(res.status).toBe(400)
  })
})

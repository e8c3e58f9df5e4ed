import { describe, expect, it } from "vitest"
import { serverForFile } from "../support/FileServer.ts"
import { channelIn, say, teamWith } from "../posts/Fixture.ts"

const env = serverForFile({ sysadmin: true })

const threadEvents = (name: string, userId: string) => env.log.named(name).filter((e) => e.broadcast.user_id === userId)

/**
 * Issue 28: one's own reply never makes a thread unread for oneself. Replying reads the thread up to the reply, as
 * Mattermost marks it: unread replies and unread mentions of the author drop to 0, others' counts grow by one.
 */
describe("one's own reply in a followed thread", () => {
  it("leaves the author's thread read, through the list, the single thread, the totals and thread_updated", async () => {
    const { owner: alice, members: [bob], team } = await teamWith(env.server, 1)
    const channel = await channelIn(alice, team, "O", [bob])

    // A thread of alice's own with only her replies is never unread for her.
    const mine = await say(alice, channel.id, "my own thread")
    await say(alice, channel.id, "my own reply", mine.id)
    await say(alice, channel.id, "and another", mine.id)
    expect(await alice.client.getUserThread(alice.user.id, team.id, mine.id)).toMatchObject({ reply_count: 2, unread_replies: 0, unread_mentions: 0, is_following: true })
    expect(await alice.client.getUserThreads(alice.user.id, team.id, { totalsOnly: true })).toMatchObject({ total_unread_threads: 0, total_unread_mentions: 0 })

    // bob's replies (one mentioning her) make it unread for alice; her reply reads it, mention included.
    const root = await say(alice, channel.id, "a question")
    await say(bob, channel.id, "an answer", root.id)
    await say(bob, channel.id, `@${alice.username} see above`, root.id)
    expect(await alice.client.getUserThread(alice.user.id, team.id, root.id)).toMatchObject({ unread_replies: 2, unread_mentions: 1 })
    env.log.clear()
    const reply = await say(alice, channel.id, "thanks", root.id)
    const after = await alice.client.getUserThread(alice.user.id, team.id, root.id)
    expect(after).toMatchObject({ reply_count: 3, unread_replies: 0, unread_mentions: 0, last_viewed_at: reply.create_at })
    expect(await alice.client.getUserThreads(alice.user.id, team.id, { totalsOnly: true })).toMatchObject({ total_unread_threads: 0, total_unread_mentions: 0 })
    const unreadList = await alice.client.getUserThreads(alice.user.id, team.id, { unread: true })
    expect(unreadList.threads.map((t) => t.id)).not.toContain(root.id)
    // The event alice's own devices get says the same.
    const own = threadEvents("thread_updated", alice.user.id).at(-1)!
    expect(JSON.parse(own.data.thread as string)).toMatchObject({ id: root.id, unread_replies: 0, unread_mentions: 0 })

    // bob follows too: alice's reply is one unread reply for him and not a mention.
    expect(await bob.client.getUserThread(bob.user.id, team.id, root.id)).toMatchObject({ unread_replies: 1, unread_mentions: 0 })

    // Another reply of bob's after hers: exactly one unread reply for alice, none of her own counted.
    await say(bob, channel.id, "one more thing", root.id)
    expect(await alice.client.getUserThread(alice.user.id, team.id, root.id)).toMatchObject({ reply_count: 4, unread_replies: 1, unread_mentions: 0 })
  })
})

import { describe, expect, it } from "vitest"
import { type Candidate, decide, parseMentions, type PostContext } from "../../src/push/Decide.ts"
import { messagePush, preview } from "../../src/push/PushTemplate.ts"

/** The push decision rules one by one, and the message content rules. */

const member = (overrides: Partial<Candidate> = {}): Candidate => ({
  username: "bob",
  userProps: { push: "mention", push_status: "away", channel: "true", push_threads: "all" },
  channelProps: { push: "default", mark_unread: "all", ignore_channel_mentions: "default" },
  status: "offline",
  followsThread: false,
  ...overrides
})

const post = (message: string, overrides: Partial<PostContext> = {}): PostContext => ({
  channelType: "O",
  isReply: false,
  mentions: parseMentions(message),
  ...overrides
})

describe("mentions", () => {
  it("finds @username, @channel, @all and @here, not e-mail addresses, and forgives trailing punctuation", () => {
    const m = parseMentions("hi @Bob. and @carol_, see @here; mail dave@example.com @all @channel")
    expect([...m.usernames]).toEqual(expect.arrayContaining(["bob", "carol"]))
    expect(m.usernames.has("example.com")).toBe(false)
    expect(m.usernames.has("dave")).toBe(false)
    expect([m.here, m.all, m.channel]).toEqual([true, true, true])
  })
})

describe("who gets a message push", () => {
  it("pushes a forced post (a test notification) whatever the settings, status and mentions", () => {
    const unwilling = member({ userProps: { push: "none" }, channelProps: { mark_unread: "mention", push: "none" }, status: "dnd" })
    expect(decide(unwilling, post("hello", { forced: true }))).toBe("push")
    expect(decide(unwilling, post("hello"))).not.toBe("push")
  })

  it("pushes DMs and GMs without a mention, channel posts only when mentioned", () => {
    expect(decide(member(), post("hello", { channelType: "D" }))).toBe("push")
    expect(decide(member(), post("hello", { channelType: "G" }))).toBe("push")
    expect(decide(member(), post("hello"))).toBe("not_mentioned")
    expect(decide(member(), post("hello @bob"))).toBe("push")
    expect(decide(member(), post("hello @bobby"))).toBe("not_mentioned")
  })

  it("pushes @channel and @all unless the member ignores channel mentions; @here only to online members", () => {
    expect(decide(member(), post("@channel lunch"))).toBe("push")
    expect(decide(member(), post("@all lunch"))).toBe("push")
    expect(decide(member({ channelProps: { ignore_channel_mentions: "on" } }), post("@all lunch"))).toBe("not_mentioned")
    expect(decide(member({ userProps: { channel: "false" } }), post("@channel lunch"))).toBe("not_mentioned")
    expect(decide(member(), post("@here lunch"))).toBe("not_mentioned")
    expect(decide(member({ status: "online", userProps: { push_status: "online" } }), post("@here lunch"))).toBe("push")
  })

  it("pushes replies in threads the member follows, unless they want thread pushes only for mentions", () => {
    expect(decide(member({ followsThread: true }), post("a reply", { isReply: true }))).toBe("push")
    expect(decide(member({ followsThread: false }), post("a reply", { isReply: true }))).toBe("not_mentioned")
    expect(decide(member({ followsThread: true, userProps: { push_threads: "mention" } }), post("a reply", { isReply: true }))).toBe("not_mentioned")
  })

  it("never pushes muted channels or members on do-not-disturb", () => {
    expect(decide(member({ channelProps: { mark_unread: "mention" } }), post("hi", { channelType: "D" }))).toBe("muted")
    expect(decide(member({ status: "dnd" }), post("hi", { channelType: "D" }))).toBe("dnd")
  })

  it("follows the channel's push level over the user's, and the user's push status", () => {
    expect(decide(member({ channelProps: { push: "none" } }), post("@bob hi"))).toBe("push_off")
    expect(decide(member({ userProps: { push: "none" } }), post("hi", { channelType: "D" }))).toBe("push_off")
    expect(decide(member({ channelProps: { push: "all" } }), post("no mention"))).toBe("push")
    expect(decide(member({ userProps: { push: "all" } }), post("no mention"))).toBe("push")
    expect(decide(member({ status: "online" }), post("@bob hi"))).toBe("status")
    expect(decide(member({ status: "online", userProps: { push_status: "online" } }), post("@bob hi"))).toBe("push")
    expect(decide(member({ status: "away", userProps: { push_status: "offline" } }), post("@bob hi"))).toBe("status")
  })
})

describe("message content", () => {
  const base = {
    post: { id: "p", root_id: "", message: "x".repeat(150), hasFiles: false },
    channel: { id: "c", type: "O", team_id: "t", display_name: "Town Square" },
    sender: { id: "u", name: "alice" },
    badge: 2
  }

  it("titles a DM with the sender and a channel post with sender and channel; the body is the first 100 characters", () => {
    expect(messagePush({ ...base, channel: { ...base.channel, type: "D" } }).title).toBe("alice")
    const channel = messagePush(base)
    expect(channel.title).toBe("alice in Town Square")
    expect(channel.body).toBe("x".repeat(100))
    expect(channel.priority).toBe("normal")
    expect(channel.data).toMatchObject({ channel_id: "c", sender_name: "alice", type: "message", badge: "2" })
  })

  it("never cuts a character in half", () => {
    expect(preview("😀".repeat(120))).toBe("😀".repeat(100))
  })
})

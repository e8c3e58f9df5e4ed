import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { ChannelViewResponse } from "../../schemas/wire/ChannelMember.ts"
import { Post } from "../../schemas/wire/Post.ts"
import { PostList, PostSearchResults } from "../../schemas/wire/PostList.ts"
import { User } from "../../schemas/wire/User.ts"
import { toViewResponse } from "../../src/channels/ChannelWire.ts"
import { postList, type PostRow, postSearchResults, toWire as postToWire } from "../../src/posts/PostWire.ts"
import type { UserRow } from "../../src/users/UserRow.ts"
import { toWire as userToWire } from "../../src/users/UserWire.ts"
import { expectShape } from "./Shapes.ts"

/**
 * The hot paths (GET /users/me, a channel's posts, POST /posts; src/http/FastPath.ts) answer with their hand-written
 * mappers rather than Schema.encode: these are precompiled encoders of the wire Schemas, and their output must decode
 * with them (no field missing, none undeclared) and come out of Schema.encode unchanged, key order included, so the
 * routes that do encode send the same bytes.
 */
const id = (c: string) => c.repeat(26)

const userRow: UserRow = {
  id: id("u"),
  create_at: 1700000000000,
  update_at: 1700000000001,
  delete_at: 0,
  username: "alice",
  password: "$argon2id$secret",
  auth_data: null,
  auth_service: "",
  email: "alice@example.com",
  email_verified: true,
  nickname: "",
  first_name: "Alice",
  last_name: "Liddell",
  position: "",
  roles: "system_user",
  locale: "en",
  timezone: { useAutomaticTimezone: "true", automaticTimezone: "", manualTimezone: "" },
  notify_props: { email: "true", push: "mention" },
  props: {},
  last_password_update: 1700000000000,
  last_picture_update: 0,
  failed_attempts: 0,
  mfa_active: false,
  last_login: 1700000000002,
  is_bot: false
}

const file = {
  id: id("f"), user_id: id("u"), post_id: id("p"), channel_id: id("c"), create_at: 1, update_at: 1, delete_at: 0,
  name: "a.png", extension: "png", size: 10, mime_type: "image/png", width: 1, height: 1, has_preview_image: true,
  mini_preview: "AAAA", archived: false
}

const postRow = (overrides: Partial<PostRow> = {}): PostRow => ({
  id: id("p"),
  create_at: "1700000000000",
  update_at: "1700000000000",
  edit_at: "0",
  delete_at: "0",
  is_pinned: false,
  user_id: id("u"),
  channel_id: id("c"),
  root_id: "",
  original_id: "",
  message: "hello",
  type: "",
  props: { attachments: [{ actions: [{ id: "a1", name: "Go", integration: { url: "http://x" } }] }] },
  hashtags: "",
  file_ids: [],
  pending_post_id: "",
  has_reactions: false,
  reply_count: "2",
  last_reply_at: "1700000000005",
  participants: [id("u")],
  is_following: true,
  reactions: [],
  emojis: [],
  files: [],
  acknowledgements: [],
  participant_users: null,
  priority: null,
  ...overrides
})

const viewer = { userId: id("u"), isSystemAdmin: false }

/** Decodes strictly and encodes back to the same JSON text. */
const sameThroughSchema = <A, I>(schema: Schema.Schema<A, I, never>, value: A, what: string) => {
  expectShape(value, schema, what)
  const encoded = Schema.encodeSync(schema, { propertyOrder: "original", onExcessProperty: "error" })(value)
  expect(JSON.stringify(encoded), what).toBe(JSON.stringify(value))
}

describe("hot-path mappers encode their wire Schemas", () => {
  it("UserWire.toWire, for the user themself and for another viewer", () => {
    sameThroughSchema(User, userToWire(userRow, "self"), "self")
    sameThroughSchema(User, userToWire(userRow, { userId: id("v"), isSystemAdmin: false }), "other")
    sameThroughSchema(User, userToWire({ ...userRow, auth_data: "ext", is_bot: true }, { userId: id("v"), isSystemAdmin: true }), "admin")
  })

  it("PostWire.toWire and postList, plain, with metadata, and with collapsed threads (ids and whole users)", () => {
    const rich = postRow({
      file_ids: [id("f")],
      files: [file],
      has_reactions: true,
      reactions: [{ user_id: id("u"), post_id: id("p"), emoji_name: "smile", create_at: 2, update_at: 2, delete_at: 0, remote_id: "", channel_id: id("c") }],
      emojis: [{ id: id("e"), create_at: 1, update_at: 1, delete_at: 0, creator_id: id("u"), name: "party" }],
      acknowledgements: [{ user_id: id("u"), post_id: id("p"), acknowledged_at: 3 }],
      priority: { priority: "urgent", requested_ack: true, persistent_notifications: false },
      participant_users: [userRow]
    })
    const reply = postRow({ id: id("r"), root_id: id("p") })
    const plain = postToWire(postRow(), { viewer, collapsedThreads: false, extended: false })
    sameThroughSchema(Post, plain, "plain")
    sameThroughSchema(Post, postToWire(rich, { viewer, collapsedThreads: false, extended: false }), "rich")
    sameThroughSchema(Post, postToWire(rich, { viewer, collapsedThreads: true, extended: false }), "collapsed")
    const extended = postToWire(rich, { viewer, collapsedThreads: true, extended: true })
    expect(extended.participants).toHaveLength(1)
    sameThroughSchema(Post, extended, "extended")
    sameThroughSchema(Post, postToWire(reply, { viewer, collapsedThreads: true, extended: true }), "reply")
    const withoutSecrets = JSON.stringify(plain)
    expect(withoutSecrets).not.toContain("integration")
    sameThroughSchema(PostList, postList([id("r"), id("p")], [postToWire(reply, { viewer, collapsedThreads: false, extended: false }), plain], { prev_post_id: id("q"), has_next: true }), "list")
  })

  it("postSearchResults: a page of results with the words each one matched", () => {
    const rich = postToWire(postRow({ message: "deploy the server" }), { viewer, collapsedThreads: false, extended: false })
    const results = postSearchResults(postList([id("p")], [rich], { has_next: true }), { [id("p")]: ["deploy", "server"] })
    sameThroughSchema(PostSearchResults, results, "search results")
    sameThroughSchema(PostSearchResults, postSearchResults(postList([], []), {}), "no results")
  })

  it("ChannelWire.toViewResponse, with channels viewed and with none", () => {
    sameThroughSchema(ChannelViewResponse, toViewResponse([{ channel_id: id("c"), last_viewed_at: "1700000000000" }, { channel_id: id("d"), last_viewed_at: "1" }]), "two")
    sameThroughSchema(ChannelViewResponse, toViewResponse([]), "none")
  })
})

import type { Post } from "@mattermost/types/posts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Fixtures } from "../files/Fixtures.ts"
import { MattermostSocket, wsUrl } from "../realtime/Sockets.ts"
import { hasRedis, redisUrl } from "../support/Databases.ts"
import { client4, newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { channelIn, type Member, teamWith } from "./Fixture.ts"

/**
 * POST /posts is idempotent per author and pending_post_id, as every app relies on when it sends a post again after a
 * network error: two nodes on one database and one Redis, the retries sent to either node, one after the other and
 * all at once; the posts counted through the API and the `posted` events on a member's official WebSocket client.
 */
const cluster = hasRedis() ? describe : describe.skip
if (!hasRedis()) console.log("[posts] Redis is not reachable: the idempotent post tests are skipped")

let nodeA: TestServer
let nodeB: TestServer
let db: Fixtures
const sockets: Array<MattermostSocket> = []

const pendingId = (author: Member) => `${author.user.id}:${Date.now()}${Math.floor(Math.random() * 1000)}`

/** The author's Client4 on the other node (same session: the nodes share the database). */
const onNodeB = (member: Member) => client4(nodeB.url, member.client.getToken())

/** A member's socket on node A, recording every event. */
const watch = async (member: Member) => {
  const socket = new MattermostSocket(wsUrl(nodeA.url), member.client.getToken())
  sockets.push(socket)
  await socket.connect()
  await socket.hello()
  return socket
}

/**
 * The `posted` events the socket received for posts with this pending id, once a later marker post has arrived
 * (events of one channel arrive in order, so nothing of the retries is still on its way).
 */
const postedFor = async (socket: MattermostSocket, author: Member, channelId: string, pending: string) => {
  const marker = await author.client.createPost({ channel_id: channelId, message: `marker ${pending}` } as Post)
  await socket.waitFor((e) => e.event === "posted" && JSON.parse(e.data!.post as string).id === marker.id, "the marker post", 10_000)
  return socket.named("posted").map((e) => JSON.parse(e.data!.post as string) as Post).filter((p) => p.pending_post_id === pending)
}

/** The posts of a channel (or of a thread) holding `message`, through the API. */
const postsWith = async (member: Member, channelId: string, message: string) => {
  const list = await member.client.getPosts(channelId, 0, 200)
  return list.order.map((id) => list.posts[id]).filter((p) => p.message === message)
}

cluster("idempotent posts", () => {
  beforeAll(async () => {
    const env = { SERVICE_CACHE_URL: redisUrl() }
    nodeA = await startServer({ env })
    nodeB = await startServer({ env, databaseUrl: nodeA.databaseUrl })
    db = await Fixtures.open(nodeA.databaseUrl)
    await newUser(nodeA.url, "idemadmin")
  })
  afterAll(async () => {
    for (const s of sockets) s.close()
    await db?.close()
    await nodeB?.close()
    await nodeA?.close()
  })

  it("answers a retried root post and a retried reply with the first post: same id, 201, one row, one event", async () => {
    const { owner, members: [bob], team } = await teamWith(nodeA, 1)
    const channel = await channelIn(owner, team, "O", [bob])
    const socket = await watch(bob)
    const ownerB = onNodeB(owner)

    for (const rootId of ["", "reply"]) {
      const root = rootId === "" ? "" : (await owner.client.createPost({ channel_id: channel.id, message: "the thread" } as Post)).id
      const pending = pendingId(owner)
      const message = `hello once ${pending}`
      const body = { channel_id: channel.id, message, root_id: root, pending_post_id: pending } as Post
      const first = await owner.client.createPost(body)
      expect(first.pending_post_id).toBe(pending)
      // The app retries, on the other node, then again on the first.
      const second = await ownerB.createPost(body)
      const third = await owner.client.createPost(body)
      const raw = await fetch(`${nodeB.url}/api/v4/posts`, {
        method: "POST",
        headers: { Authorization: `Bearer ${owner.client.getToken()}`, "Content-Type": "application/json" },
        body: JSON.stringify(body)
      })
      expect(raw.status).toBe(201)
      expect(((await raw.json()) as Post).id).toBe(first.id)
      expect(second).toStrictEqual(first)
      expect(third).toStrictEqual(first)
      expect((await postsWith(owner, channel.id, message)).map((p) => p.id)).toEqual([first.id])
      const events = await postedFor(socket, owner, channel.id, pending)
      expect(events.map((p) => p.id)).toEqual([first.id])
      if (root !== "") expect((await owner.client.getPostThread(root)).order).toHaveLength(2)
    }
  })

  it("writes one post when the same pending id arrives many times at once on both nodes, root or reply", async () => {
    const { owner, members: [bob], team } = await teamWith(nodeA, 1)
    const channel = await channelIn(owner, team, "O", [bob])
    const socket = await watch(bob)
    const ownerB = onNodeB(owner)
    const thread = await owner.client.createPost({ channel_id: channel.id, message: "a thread" } as Post)

    // A root post that names nobody (one batched statement), one naming a member (mentions first), and a reply.
    for (const [rootId, text] of [["", "plain"], ["", `for @${bob.username}`], [thread.id, "reply"]] as const) {
      const pending = pendingId(owner)
      const message = `${text} ${pending}`
      const body = { channel_id: channel.id, message, root_id: rootId, pending_post_id: pending } as Post
      const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? owner.client : ownerB).createPost(body)))
      const ids = new Set(answers.map((p) => p.id))
      expect(ids.size).toBe(1)
      for (const answer of answers) expect(answer).toStrictEqual(answers[0])
      expect((await postsWith(owner, channel.id, message)).map((p) => p.id)).toEqual([...ids])
      expect((await postedFor(socket, owner, channel.id, pending)).map((p) => p.id)).toEqual([...ids])
    }
    expect((await owner.client.getPostThread(thread.id)).order).toHaveLength(2)
    // The channel counted each post once: the thread, three posts and three markers.
    expect((await owner.client.getChannel(channel.id)).total_msg_count).toBe(7)
  })

  it("keys the pending id by author, and forgets it after its window", async () => {
    const { owner, members: [bob], team } = await teamWith(nodeA, 1)
    const channel = await channelIn(owner, team, "O", [bob])
    const pending = pendingId(owner)
    const mine = await owner.client.createPost({ channel_id: channel.id, message: "mine", pending_post_id: pending } as Post)
    // Another author sending the same pending id writes a post of their own.
    const theirs = await bob.client.createPost({ channel_id: channel.id, message: "theirs", pending_post_id: pending } as Post)
    expect(theirs.id).not.toBe(mine.id)
    expect(theirs.user_id).toBe(bob.user.id)
    // A different pending id is a different post.
    const other = await owner.client.createPost({ channel_id: channel.id, message: "mine", pending_post_id: `${pending}x` } as Post)
    expect(other.id).not.toBe(mine.id)
    // Six minutes later (the claim's time moved back), the same pending id writes a new post.
    await db.query("UPDATE post_pending_ids SET create_at = create_at - 6 * 60000 WHERE user_id = $1 AND pending_post_id = $2", [owner.user.id, pending])
    const later = await owner.client.createPost({ channel_id: channel.id, message: "mine", pending_post_id: pending } as Post)
    expect(later.id).not.toBe(mine.id)
    expect(await postsWith(owner, channel.id, "mine")).toHaveLength(3)
    // Posts without a pending id are never deduplicated.
    await owner.client.createPost({ channel_id: channel.id, message: "again" } as Post)
    await owner.client.createPost({ channel_id: channel.id, message: "again" } as Post)
    expect(await postsWith(owner, channel.id, "again")).toHaveLength(2)
  })
})

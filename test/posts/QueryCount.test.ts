import type { Post } from "@mattermost/types/posts"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { channelIn, say, teamWith } from "./Fixture.ts"

/**
 * The server runs in this process, so every statement it sends goes through pg.Client#query here: counting those
 * while one request runs shows how many queries a channel page costs, whatever its size.
 */
let server: TestServer
const seen: Array<string> = []
let counting = false
const original = pg.Client.prototype.query

beforeAll(async () => {
  server = await startServer()
  await newUser(server.url, "sysadmin")
  pg.Client.prototype.query = function(this: pg.Client, ...args: Array<unknown>) {
    if (counting) {
      const first = args[0]
      seen.push(typeof first === "string" ? first : String((first as { text?: string })?.text ?? ""))
    }
    return (original as (...a: Array<unknown>) => unknown).apply(this, args)
  } as typeof pg.Client.prototype.query
})
afterAll(async () => {
  pg.Client.prototype.query = original
  await server?.close()
})

/**
 * The statements of one request: the server's background jobs (sweeps, batching) run on the same pool and may be
 * counted too, and they only ever add, so the fewest over three tries is the request's own count. `change` runs
 * before each try: a change of the channel, so that each try is a page read, not one answered from PageCache.
 */
const countedGet = async (token: string, path: string, change: () => Promise<unknown>) => {
  const tries: Array<Awaited<ReturnType<typeof countedOnce>>> = []
  for (let i = 0; i < 3; i++) {
    await change()
    tries.push(await countedOnce(token, path))
  }
  const fewest = (key: "total" | "postQueries") => Math.min(...tries.map((t) => t[key]))
  return { body: tries[0].body, total: fewest("total"), postQueries: fewest("postQueries") }
}

const countedOnce = async (token: string, path: string) => {
  seen.splice(0)
  counting = true
  const res = await fetch(`${server.url}/api/v4${path}`, { headers: { Authorization: `Bearer ${token}` } })
  const body = await res.json()
  counting = false
  expect(res.status).toBe(200)
  const postQueries = seen.filter((q) => /\b(posts|reactions|file_infos|emoji|threads|thread_memberships)\b/.test(q))
  return { body: body as { order: Array<string>; posts: Record<string, Post> }, total: seen.length, postQueries: postQueries.length }
}

const customEmoji = async (name: string, creatorId: string) => {
  const client = new pg.Client({ connectionString: server.databaseUrl })
  await client.connect()
  try {
    await client.query("INSERT INTO emoji (id, create_at, update_at, creator_id, name) VALUES ($1, $2, $2, $3, $4)", ["emoji".padEnd(26, "x"), Date.now(), creatorId, name])
  } finally {
    await client.end()
  }
}

describe("channel page cost", () => {
  it("serves 60 posts with reactions, files, emojis and thread data in the same few queries as 5", async () => {
    const { owner, members: [bob], team } = await teamWith(server, 1)
    const channel = await channelIn(owner, team, "O", [bob])
    await customEmoji("shipit", owner.user.id)
    const form = new FormData()
    form.append("channel_id", channel.id)
    form.append("files", new Blob(["attached"], { type: "text/plain" }), "a.txt")
    const upload = await fetch(`${server.url}/api/v4/files`, { method: "POST", headers: { Authorization: `Bearer ${owner.client.getToken()}` }, body: form })
    const fileId = ((await upload.json()) as { file_infos: Array<{ id: string }> }).file_infos[0].id

    const roots: Array<Post> = []
    for (let i = 0; i < 50; i++) roots.push(await say(i % 2 ? bob : owner, channel.id, `post ${i}`))
    for (let i = 0; i < 10; i++) await say(bob, channel.id, `reply ${i}`, roots[45 + (i % 5)].id)
    await owner.client.createPost({ channel_id: channel.id, message: "with a file", file_ids: [fileId] } as Post)
    for (const root of roots.slice(40)) {
      await bob.client.addReaction(bob.user.id, root.id, "+1")
      await owner.client.addReaction(owner.user.id, root.id, "shipit")
    }

    const token = bob.client.getToken()
    let edits = 0
    const change = () => owner.client.patchPost({ id: roots[0].id, message: `post 0, edit ${++edits}` } as Post)
    const big = await countedGet(token, `/channels/${channel.id}/posts?page=0&per_page=60`, change)
    const small = await countedGet(token, `/channels/${channel.id}/posts?page=0&per_page=5`, change)
    expect(big.body.order).toHaveLength(60)
    expect(small.body.order).toHaveLength(5)
    const withFile = Object.values(big.body.posts).find((p) => p.message === "with a file")!
    expect(withFile.metadata.files.map((f) => f.id)).toEqual([fileId])
    const reacted = big.body.posts[roots[45].id]
    expect(reacted.metadata.reactions?.map((r) => r.emoji_name).sort()).toEqual(["+1", "shipit"])
    expect(reacted.metadata.emojis.map((e) => e.name)).toEqual(["shipit"])
    expect(reacted.reply_count).toBe(2)

    expect(big.postQueries).toBeGreaterThanOrEqual(1)
    expect(big.postQueries).toBeLessThanOrEqual(3)
    expect(big.postQueries).toBe(small.postQueries)
    expect(big.total).toBe(small.total)

    const collapsed = await countedGet(token, `/channels/${channel.id}/posts?page=0&per_page=60&collapsedThreads=true&collapsedThreadsExtended=true`, change)
    // 51 roots and the system post of bob's being added (system_add_to_channel), a root too.
    expect(collapsed.body.order).toHaveLength(52)
    expect(collapsed.postQueries).toBeLessThanOrEqual(3)
  })
})

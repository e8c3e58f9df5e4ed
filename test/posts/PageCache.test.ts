import type { Post, PostList } from "@mattermost/types/posts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { toJsonl } from "../imports/Fixture.ts"
import { statementsDuring } from "../support/CapturedSql.ts"
import { client4, newUser } from "../support/Clients.ts"
import { hasRedis, redisUrl } from "../support/Databases.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { channelIn, say, teamWith } from "./Fixture.ts"

/**
 * Channel pages answered from each node's PageCache (src/posts/PageCache.ts, issue 31): a repeated page costs no
 * statement once the caller's access row is known (PageReaders) and its access check alone otherwise, every change a
 * channel's members are told of is in the next page, access is decided on every request (a removal, a team left, a
 * channel made private or a role lost refuses the next page, on this node and the other), a page showing the
 * caller's own thread following is not shared, and the other node of a cluster follows the changes made on one
 * (after the bus brings the event: polled, bounded by INVALIDATED_WITHIN_MS).
 */
let server: TestServer
let adminToken: string

beforeAll(async () => {
  server = await startServer()
  adminToken = (await newUser(server.url, "sysadmin")).client.getToken()
})
afterAll(() => server?.close())

const INVALIDATED_WITHIN_MS = 2000

const page = async (node: TestServer, token: string, query = "page=0&per_page=60", channelId: string) => {
  const response = await fetch(`${node.url}/api/v4/channels/${channelId}/posts?${query}`, { headers: { Authorization: `Bearer ${token}` } })
  return { status: response.status, text: await response.text() }
}
const listOf = (text: string) => JSON.parse(text) as PostList
const messages = (text: string) => {
  const list = listOf(text)
  return list.order.map((id) => list.posts[id].message)
}

/** The hits the metrics report (the counters are per process: other servers of this file add to them). */
const pageCacheHits = async () => {
  const text = await (await fetch(`${server.url}/api/v1/health/metrics`)).text()
  const line = text.split("\n").find((l) => l.startsWith("service_page_cache_requests_total{outcome=\"hit\"}"))
  expect(line, text.slice(0, 2000)).toBeDefined()
  return Number(line!.split(" ")[1])
}

/** The pages read for `reason` (absent, expired, changed) the metrics report, per process as the hits. */
const pageCacheMisses = async (reason: string) => {
  const text = await (await fetch(`${server.url}/api/v1/health/metrics`)).text()
  const line = text.split("\n").find((l) => l.startsWith(`service_page_cache_misses_total{reason="${reason}"}`))
  expect(line, text.slice(0, 2000)).toBeDefined()
  return Number(line!.split(" ")[1])
}

/** The cached pages whose access was decided `by` "kept" (the reader's kept row) or "checked" (a statement). */
const accessDecided = async (by: string) => {
  const text = await (await fetch(`${server.url}/api/v1/health/metrics`)).text()
  const line = text.split("\n").find((l) => l.startsWith(`service_page_cache_access_total{by="${by}"}`))
  expect(line, text.slice(0, 2000)).toBeDefined()
  return Number(line!.split(" ")[1])
}

/** Reads the posts tables? The page's own statement does; the access check alone does not. */
const readsPosts = (text: string) => /\bFROM posts\b/.test(text)
/** Access's gate, alone or in the page's statement. */
const accessCheck = (text: string) => /\baccess AS\b/.test(text)

describe("channel pages from the page cache", () => {
  it("answers a repeated page without a statement, and each change of the channel with a fresh page", async () => {
    const { owner, members: [bob], team } = await teamWith(server, 1)
    const channel = await channelIn(owner, team, "O", [bob])
    const first = await say(owner, channel.id, "first")
    const token = bob.client.getToken()
    const get = () => page(server, token, undefined, channel.id)

    const hitsBefore = await pageCacheHits()
    const absentBefore = await pageCacheMisses("absent")
    const miss = await statementsDuring(get)
    expect(await pageCacheMisses("absent")).toBeGreaterThanOrEqual(absentBefore + 1)
    expect(miss.value.status).toBe(200)
    expect(miss.statements.some((s) => readsPosts(s.text))).toBe(true)
    const keptBefore = await accessDecided("kept")
    const hit = await statementsDuring(get)
    expect(await accessDecided("kept")).toBeGreaterThanOrEqual(keptBefore + 1)
    expect(hit.value.text).toBe(miss.value.text)
    // No statement: the access row of the read decides (the background flushes of this process may add their own,
    // never posts nor an access check).
    expect(hit.statements.filter((s) => readsPosts(s.text))).toEqual([])
    expect(hit.statements.filter((s) => accessCheck(s.text))).toEqual([])
    expect(await pageCacheHits()).toBeGreaterThanOrEqual(hitsBefore + 1)
    // An event that may change who reads (a member added) forgets the rows: the next hit checks access again, once.
    const carol = await newUser(server.url, "carol")
    await owner.client.addToTeam(team.id, carol.user.id)
    const checkedBefore = await accessDecided("checked")
    const checked = await statementsDuring(get)
    expect(await accessDecided("checked")).toBeGreaterThanOrEqual(checkedBefore + 1)
    expect(checked.value.text).toBe(miss.value.text)
    expect(checked.statements.filter((s) => readsPosts(s.text))).toEqual([])
    expect(checked.statements.filter((s) => accessCheck(s.text))).toHaveLength(1)
    expect((await statementsDuring(get)).statements.filter((s) => accessCheck(s.text))).toEqual([])

    // A new post, an edit, a reaction, a pin, a reply and a deletion: each is in the next page.
    await say(owner, channel.id, "second")
    expect(messages((await get()).text).slice(0, 2)).toEqual(["second", "first"])
    await get()
    const changedBefore = await pageCacheMisses("changed")
    await owner.client.patchPost({ id: first.id, message: "first, edited" } as Post)
    expect(messages((await get()).text)).toContain("first, edited")
    expect(await pageCacheMisses("changed")).toBeGreaterThanOrEqual(changedBefore + 1)
    await bob.client.addReaction(bob.user.id, first.id, "tada")
    expect(listOf((await get()).text).posts[first.id].metadata.reactions?.map((r) => r.emoji_name)).toEqual(["tada"])
    await owner.client.pinPost(first.id)
    expect(listOf((await get()).text).posts[first.id].is_pinned).toBe(true)
    await say(bob, channel.id, "a reply", first.id)
    const withReply = listOf((await get()).text)
    expect(withReply.posts[first.id].reply_count).toBe(1)
    expect(messages(JSON.stringify(withReply))[0]).toBe("a reply")
    await owner.client.deletePost(first.id)
    expect(messages((await get()).text)).not.toContain("first, edited")
    // Equal pages again once nothing changed.
    const settled = await get()
    expect((await get()).text).toBe(settled.text)
  })

  it("puts a new root post in front of a cached newest page, byte for byte what a read gives", async () => {
    const uncached = await startServer({ env: { SERVICE_PAGE_CACHE: "false" }, databaseUrl: server.databaseUrl })
    try {
      const { owner, members: [bob], team } = await teamWith(server, 1)
      const channel = await channelIn(owner, team, "O", [bob])
      for (let i = 0; i < 8; i++) await say(owner, channel.id, i === 3 ? "naïve café ✓" : `post ${i}`)
      const token = bob.client.getToken()
      // Pages 0 and 1 (page 1 takes what page 0 pushes out), with and without collapsed threads.
      const queries = [
        "page=0&per_page=5",
        "page=1&per_page=5",
        "page=0&per_page=60",
        "page=0&per_page=5&collapsedThreads=true",
        "page=1&per_page=5&collapsedThreads=true",
        "page=0&per_page=60&collapsedThreads=true&skipFetchThreads=true"
      ]
      const compare = async (fromCache: boolean) => {
        for (const query of queries) {
          const cached = await statementsDuring(() => page(server, token, query, channel.id))
          const read = await page(uncached, token, query, channel.id)
          expect(cached.value.status).toBe(200)
          expect(cached.value.text, query).toBe(read.text)
          if (fromCache) expect(cached.statements.filter((st) => readsPosts(st.text)), query).toEqual([])
        }
      }
      await compare(false)
      await compare(true)
      // Root posts that extend the cached pages, each page then still answered without reading posts.
      const plain: Array<Partial<Post>> = [
        { message: "plain" },
        { message: "props in PostgreSQL's order", props: { b: "1", aa: "two", ccc: true } },
        // Beyond ASCII: a newest page is written out from its posts' UTF-8 bytes on each read.
        { message: "ünïcödé, 日本語 and 🎉" },
        { message: "plain again" }
      ]
      for (const input of plain) {
        await owner.client.createPost({ channel_id: channel.id, ...input } as Post)
        await compare(true)
      }
      // Posts the cache cannot extend its pages with (they are read again), and the pages still right after each.
      const other: Array<Partial<Post>> = [
        { message: "props in another order", props: { aa: "two", b: "1" } },
        { message: "nested props", props: { card: "x", nested: { a: 1 } } as unknown as Post["props"] },
        { message: "a key beyond ASCII", props: { "é": "1" } }
      ]
      for (const input of other) {
        await owner.client.createPost({ channel_id: channel.id, ...input } as Post)
        await compare(false)
        await compare(true)
      }
      const root = await say(owner, channel.id, "a root")
      await compare(true)
      await say(bob, channel.id, "its reply", root.id)
      await compare(false)
      // Pages with a thread are cached too: with collapsed threads each reader's is_following is looked up.
      await compare(true)
      await say(owner, channel.id, "after the reply")
      await compare(false)
      await compare(true)
      expect(messages((await page(server, token, undefined, channel.id)).text).slice(0, 3)).toEqual(["after the reply", "its reply", "a root"])
    } finally {
      await uncached.close()
    }
  })

  it("one access check keeps the rows of the caller's other channels: their first cached pages cost no statement", async () => {
    const { owner, members: [bob], team } = await teamWith(server, 1)
    const open = await channelIn(owner, team, "O", [bob])
    const secret = await channelIn(owner, team, "P", [bob])
    const other = await channelIn(owner, team, "O", [])
    const closed = await channelIn(owner, team, "P", [])
    for (const channel of [open, secret, other, closed]) {
      await say(owner, channel.id, `in ${channel.name}`)
      // The owner's reads put each page in the cache.
      expect((await page(server, owner.client.getToken(), undefined, channel.id)).status).toBe(200)
    }
    const token = bob.client.getToken()
    const checks = async (channelId: string) => {
      const read = await statementsDuring(() => page(server, token, undefined, channelId))
      expect(read.statements.filter((st) => readsPosts(st.text))).toEqual([])
      return { status: read.value.status, text: read.value.text, checks: read.statements.filter((st) => accessCheck(st.text)).length }
    }
    const first = await checks(open.id)
    expect(first).toMatchObject({ status: 200, checks: 1 })
    expect(messages(first.text)).toContain(`in ${open.name}`)
    // The private channel bob is a member of came with that check.
    const second = await checks(secret.id)
    expect(second).toMatchObject({ status: 200, checks: 0 })
    expect(messages(second.text)).toContain(`in ${secret.name}`)
    // Channels bob is not a member of are checked on their own: a public one of his team is read, a private one refused.
    expect(await checks(other.id)).toMatchObject({ status: 200, checks: 1 })
    const refused = await checks(closed.id)
    expect(refused).toMatchObject({ status: 403, checks: 1 })
    expect(refused.text).not.toContain(`in ${closed.name}`)

    // A row kept through another channel's check is forgotten with the rest: removed from the private channel after
    // a check of the open one kept its row, bob is refused its page (read again: the removal posted to the channel).
    await owner.client.addToTeam(team.id, (await newUser(server.url, "erin")).user.id)
    expect(await checks(open.id)).toMatchObject({ status: 200, checks: 1 })
    await owner.client.removeFromChannel(bob.user.id, secret.id)
    const removed = await page(server, token, undefined, secret.id)
    expect(removed.status).toBe(403)
    expect(removed.text).not.toContain(`in ${secret.name}`)
  })

  it("checks access on every request: a member removed from a private channel is refused its cached page", async () => {
    const { owner, members: [bob], team } = await teamWith(server, 1)
    const channel = await channelIn(owner, team, "P", [bob])
    await say(owner, channel.id, "secret")
    const token = bob.client.getToken()
    expect((await page(server, token, undefined, channel.id)).status).toBe(200)
    expect((await page(server, owner.client.getToken(), undefined, channel.id)).status).toBe(200)
    await owner.client.removeFromChannel(bob.user.id, channel.id)
    const refused = await page(server, token, undefined, channel.id)
    expect(refused.status).toBe(403)
    expect(refused.text).not.toContain("secret")
    // An outsider, too, on the page the owner just had answered from the cache.
    const outsider = await newUser(server.url, "out")
    await owner.client.addToTeam(team.id, outsider.user.id)
    expect((await page(server, outsider.client.getToken(), undefined, channel.id)).status).toBe(403)
  })

  it("decides on every request: leaving the team, a channel made private or a role lost refuses the next cached page", async () => {
    const { owner, members: [bob, dave], team } = await teamWith(server, 2)
    const channel = await channelIn(owner, team, "O", [])
    await say(owner, channel.id, "open to the team")
    const admin = await newUser(server.url, "sysadmin")
    const adminRoles = client4(server.url, adminToken)
    await adminRoles.updateUserRoles(admin.user.id, "system_user system_admin")
    // Each reads twice: the first read keeps their access row, the second is decided from it alone.
    for (const reader of [bob, dave, admin]) {
      for (let i = 0; i < 2; i++) expect((await page(server, reader.client.getToken(), undefined, channel.id)).status).toBe(200)
    }
    // Bob, not a member of the channel, read it as a member of its team; he leaves the team.
    await bob.client.removeFromTeam(team.id, bob.user.id)
    const bobs = await page(server, bob.client.getToken(), undefined, channel.id)
    expect(bobs.status).toBe(403)
    expect(bobs.text).not.toContain("open to the team")
    // Dave read it the same way; the channel becomes private.
    await owner.client.updateChannelPrivacy(channel.id, "P")
    expect((await page(server, dave.client.getToken(), undefined, channel.id)).status).toBe(403)
    // The administrator read it by their role alone; it is taken away (their row is still good: the role is not in it).
    expect((await page(server, admin.client.getToken(), undefined, channel.id)).status).toBe(200)
    await adminRoles.updateUserRoles(admin.user.id, "system_user")
    expect((await page(server, admin.client.getToken(), undefined, channel.id)).status).toBe(403)
    expect((await page(server, owner.client.getToken(), undefined, channel.id)).status).toBe(200)
  })

  it("shares a collapsed-threads page with threads, each reader seeing their own is_following", async () => {
    const { owner, members: [bob, cyd], team } = await teamWith(server, 2)
    const channel = await channelIn(owner, team, "P", [bob, cyd])
    const root = await say(owner, channel.id, "a root")
    await say(bob, channel.id, "bob's reply", root.id)
    const other = await say(owner, channel.id, "another root")
    await say(cyd, channel.id, "cyd's reply", other.id)
    const query = "page=0&per_page=60&collapsedThreads=true"
    const following = async (token: string) => {
      const read = await statementsDuring(() => page(server, token, query, channel.id))
      const list = listOf(read.value.text)
      return { root: list.posts[root.id].is_following, other: list.posts[other.id].is_following, read: read.statements.some((st) => readsPosts(st.text)) }
    }
    expect(await following(bob.client.getToken())).toEqual({ root: true, other: false, read: true })
    for (let round = 0; round < 2; round++) {
      expect(await following(cyd.client.getToken())).toEqual({ root: false, other: true, read: false })
      expect(await following(bob.client.getToken())).toEqual({ root: true, other: false, read: false })
    }
    // Following changes no channel event; the next page shows it all the same, still from the cache.
    await cyd.client.updateThreadFollowForUser(cyd.user.id, team.id, root.id, true)
    expect(await following(cyd.client.getToken())).toEqual({ root: true, other: true, read: false })
    await bob.client.updateThreadFollowForUser(bob.user.id, team.id, root.id, false)
    expect(await following(bob.client.getToken())).toEqual({ root: false, other: false, read: false })
    // A member removed from the private channel is refused it, as any cached page.
    await owner.client.removeFromChannel(cyd.user.id, channel.id)
    const refused = await page(server, cyd.client.getToken(), query, channel.id)
    expect(refused.status).toBe(403)
    expect(refused.text).not.toContain("a root")
  })

  it("drops its pages when an import writes posts into a channel", async () => {
    const { owner, team } = await teamWith(server, 0)
    const channel = await channelIn(owner, team, "O", [])
    await say(owner, channel.id, "before the import")
    const token = owner.client.getToken()
    expect(messages((await page(server, token, undefined, channel.id)).text)[0]).toBe("before the import")
    const lines = [
      { type: "version", version: 1 },
      { type: "post", post: { team: team.name, channel: channel.name, user: owner.user.username, message: "imported", create_at: Date.now() } }
    ]
    const started = await fetch(`${server.url}/api/v1/admin/import`, {
      method: "POST",
      headers: { Authorization: `Bearer ${adminToken}`, "Content-Type": "application/octet-stream" },
      body: toJsonl(lines)
    })
    expect(started.status).toBe(201)
    const { id } = await started.json() as { id: string }
    const deadline = Date.now() + 30_000
    for (;;) {
      const job = await (await fetch(`${server.url}/api/v1/admin/import/${id}`, { headers: { Authorization: `Bearer ${adminToken}` } })).json() as { status: string; error?: string }
      if (job.status === "failed") throw new Error(job.error)
      if (job.status === "succeeded") break
      if (Date.now() > deadline) throw new Error("the import did not end")
      await new Promise((r) => setTimeout(r, 50))
    }
    expect(messages((await page(server, token, undefined, channel.id)).text).slice(0, 2)).toEqual(["imported", "before the import"])
  })
})

describe("SERVICE_PAGE_CACHE=false", () => {
  let uncached: TestServer
  beforeAll(async () => {
    uncached = await startServer({ env: { SERVICE_PAGE_CACHE: "false" } })
  })
  afterAll(() => uncached?.close())

  it("reads every page from the database", async () => {
    const { owner, team } = await teamWith(uncached, 0)
    const channel = await channelIn(owner, team, "O", [])
    await say(owner, channel.id, "hello")
    const get = () => page(uncached, owner.client.getToken(), undefined, channel.id)
    await get()
    const again = await statementsDuring(get)
    expect(messages(again.value.text)[0]).toBe("hello")
    expect(again.statements.some((s) => readsPosts(s.text))).toBe(true)
  })
})

const cluster = hasRedis() ? describe : describe.skip

/** Polls `check` (undefined once it holds, else what is still wrong) until it holds or INVALIDATED_WITHIN_MS passed. */
const untilInvalidated = async (check: () => Promise<string | undefined>) => {
  const started = Date.now()
  for (;;) {
    const wrong = await check()
    if (wrong === undefined) return
    if (Date.now() - started > INVALIDATED_WITHIN_MS) throw new Error(`${wrong} after ${INVALIDATED_WITHIN_MS} ms`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

cluster("channel pages across two nodes", () => {
  let nodeA: TestServer
  let nodeB: TestServer
  beforeAll(async () => {
    const env = { SERVICE_CACHE_URL: redisUrl() }
    nodeA = await startServer({ env })
    nodeB = await startServer({ env, databaseUrl: nodeA.databaseUrl })
    await newUser(nodeA.url, "admin")
  })
  afterAll(async () => {
    await nodeB?.close()
    await nodeA?.close()
  })

  it("a post on one node is in the other node's next page once its event arrives", async () => {
    const { owner, members: [bob], team } = await teamWith(nodeA, 1)
    const channel = await channelIn(owner, team, "O", [bob])
    await say(owner, channel.id, "one")
    const token = bob.client.getToken()
    const onB = () => page(nodeB, token, undefined, channel.id)
    expect(messages((await onB()).text)[0]).toBe("one")
    expect(messages((await onB()).text)[0]).toBe("one") // now cached on B
    await client4(nodeA.url, owner.client.getToken()).createPost({ channel_id: channel.id, message: "two" } as Post)
    await untilInvalidated(async () => {
      const seen = messages((await onB()).text)
      return seen[0] === "two" ? undefined : `still stale: ${seen}`
    })
  })

  it("a member removed on one node is refused the other node's cached page once the event arrives", async () => {
    const { owner, members: [bob], team } = await teamWith(nodeA, 1)
    const channel = await channelIn(owner, team, "P", [bob])
    await say(owner, channel.id, "private")
    const token = bob.client.getToken()
    const onB = () => page(nodeB, token, undefined, channel.id)
    expect((await onB()).status).toBe(200)
    expect((await onB()).status).toBe(200) // cached on B, and Bob's access row kept there
    await client4(nodeA.url, owner.client.getToken()).removeFromChannel(bob.user.id, channel.id)
    await untilInvalidated(async () => {
      const answer = await onB()
      if (answer.status === 403) return undefined
      expect(answer.status).toBe(200)
      return "still readable"
    })
  })
})

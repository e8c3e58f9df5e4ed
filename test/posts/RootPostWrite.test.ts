import type { Post } from "@mattermost/types/posts"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { channelIn, teamWith } from "./Fixture.ts"

/**
 * Root posts without files into one channel are written together when they arrive while the channel's previous
 * statement is under way (src/posts/RootPostBatch.ts, issue 10): one statement, one commit and one update of the
 * channel's row for the batch. These tests hold batches to what posts written one by one gave: counts, create_at,
 * read state and mentions exact under concurrent posts into one channel, and a post the database refuses fails alone.
 * The server runs in this process, so the statements it sends are counted at pg.Client#query.
 */
let server: TestServer
let db: pg.Client
let written = 0
const original = pg.Client.prototype.query

beforeAll(async () => {
  server = await startServer()
  await newUser(server.url, "sysadmin")
  db = new pg.Client({ connectionString: server.databaseUrl })
  await db.connect()
  pg.Client.prototype.query = function(this: pg.Client, ...args: Array<unknown>) {
    const first = args[0]
    const text = typeof first === "string" ? first : String((first as { text?: string })?.text ?? "")
    if (text.includes("INSERT INTO posts")) written++
    return (original as (...a: Array<unknown>) => unknown).apply(this, args)
  } as typeof pg.Client.prototype.query
})
afterAll(async () => {
  pg.Client.prototype.query = original
  await db?.end()
  await server?.close()
})

describe("writing a root post", () => {
  it("keeps counts and strictly increasing create_at exact under 40 concurrent posts into one channel", async () => {
    const { owner, members: [bob, carol], team } = await teamWith(server, 2)
    const channel = await channelIn(owner, team, "O", [bob, carol])
    const authors = [owner, bob, carol]
    const base = (await owner.client.getChannel(channel.id)).total_msg_count
    const statementsBefore = written
    const posts = await Promise.all(Array.from({ length: 40 }, (_, i) =>
      authors[i % 3].client.createPost({ channel_id: channel.id, message: `burst ${i}${i % 10 === 0 ? ` @${bob.username}` : ""}` } as Post)))
    // Forty requests at once: the posts that arrived while a statement was under way shared the next one.
    expect(written - statementsBefore).toBeLessThan(40)
    const times = posts.map((p) => p.create_at).sort((a, b) => a - b)
    expect(new Set(times).size).toBe(40)

    const after = await owner.client.getChannel(channel.id)
    expect(after.total_msg_count).toBe(base + 40)
    expect(after.total_msg_count_root).toBe(base + 40)
    expect(after.last_post_at).toBe(times[39])
    // Each author's read state is that of their own newest post: what the channel counted when it was written.
    for (const author of authors) {
      const own = posts.filter((p) => p.user_id === author.user.id).sort((a, b) => a.create_at - b.create_at).at(-1)!
      const member = await author.client.getMyChannelMember(channel.id)
      expect(member.last_viewed_at).toBe(own.create_at)
      expect(member.msg_count).toBe(base + times.indexOf(own.create_at) + 1)
    }
    // bob was mentioned by the posts of the others made after his own newest (posts 10, 20 and 30 name him).
    const bobsLast = Math.max(...posts.filter((p) => p.user_id === bob.user.id).map((p) => p.create_at))
    const mentionsSince = posts.filter((p) => p.message.includes(`@${bob.username}`) && p.user_id !== bob.user.id && p.create_at > bobsLast).length
    expect((await bob.client.getMyChannelMember(channel.id)).mention_count).toBe(mentionsSince)
  })

  it("fails a post the database refuses alone: the others written with it are kept, and counted once", async () => {
    const { owner, members: [bob], team } = await teamWith(server, 1)
    const channel = await channelIn(owner, team, "O", [bob])
    await owner.client.createPost({ channel_id: channel.id, message: "counted" } as Post)
    const before = await owner.client.getChannel(channel.id)
    const stored = async () => (await db.query("SELECT count(*)::int AS n FROM posts WHERE channel_id = $1", [channel.id])).rows[0].n as number
    const storedBefore = await stored()
    // A fault injected where the posts are inserted: the statement carrying the refused post fails whole.
    await db.query(`
      CREATE FUNCTION refuse_post() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.message = 'refused by the database' THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$;
      CREATE TRIGGER refuse_post BEFORE INSERT ON posts FOR EACH ROW EXECUTE FUNCTION refuse_post();`)
    const send = (member: typeof owner, message: string) =>
      fetch(`${server.url}/api/v4/posts`, {
        method: "POST",
        headers: { Authorization: `Bearer ${member.client.getToken()}`, "Content-Type": "application/json" },
        body: JSON.stringify({ channel_id: channel.id, message })
      })
    let answers: Array<Response>
    try {
      answers = await Promise.all([
        ...Array.from({ length: 6 }, (_, i) => send(i % 2 === 0 ? owner : bob, `kept ${i}`)),
        send(owner, "refused by the database"),
        ...Array.from({ length: 6 }, (_, i) => send(i % 2 === 0 ? bob : owner, `kept ${i + 6}`))
      ])
    } finally {
      await db.query("DROP TRIGGER refuse_post ON posts; DROP FUNCTION refuse_post()")
    }
    const refused = answers[6]
    expect(refused.status).toBeGreaterThanOrEqual(500)
    expect(refused.headers.get("content-type")).toBe("application/json")
    expect(await refused.json()).toMatchObject({ status_code: refused.status })
    const kept = answers.filter((_, i) => i !== 6)
    expect(kept.map((a) => a.status)).toEqual(Array(12).fill(201))
    const keptPosts = await Promise.all(kept.map((a) => a.json() as Promise<Post>))
    const after = await owner.client.getChannel(channel.id)
    expect(after.total_msg_count).toBe(before.total_msg_count + 12)
    expect(after.last_post_at).toBe(Math.max(...keptPosts.map((p) => p.create_at)))
    expect(await stored()).toBe(storedBefore + 12)
    const newest = Math.max(...keptPosts.filter((p) => p.user_id === owner.user.id).map((p) => p.create_at))
    expect((await owner.client.getMyChannelMember(channel.id)).last_viewed_at).toBe(newest)
  })

  it("keeps a channel writable when requests are abandoned while their posts wait or are written", async () => {
    const { owner, members: [bob], team } = await teamWith(server, 1)
    const channel = await channelIn(owner, team, "O", [bob])
    // Thirty posts sent at once, each request abandoned by its client after 0-9 ms: some before their post was
    // written, some while it waited for the channel's statement, some while it was written.
    await Promise.all(Array.from({ length: 30 }, async (_, i) => {
      const abort = new AbortController()
      setTimeout(() => abort.abort(), i % 10)
      await fetch(`${server.url}/api/v4/posts`, {
        method: "POST",
        signal: abort.signal,
        headers: { Authorization: `Bearer ${(i % 2 === 0 ? owner : bob).client.getToken()}`, "Content-Type": "application/json" },
        body: JSON.stringify({ channel_id: channel.id, message: `abandoned ${i}` })
      }).then((r) => r.text(), () => undefined)
    }))
    // The channel still takes posts, and counts exactly what was stored.
    const after = await owner.client.createPost({ channel_id: channel.id, message: "still writable" } as Post)
    expect(after.message).toBe("still writable")
    const uncounted = async () => {
      // The system post of bob's add is stored but, a join as Mattermost counts it, not in total_msg_count.
      const stored = (await db.query("SELECT count(*)::int AS n FROM posts WHERE channel_id = $1 AND type NOT LIKE 'system\\_%'", [channel.id])).rows[0].n as number
      return (await owner.client.getChannel(channel.id)).total_msg_count - stored
    }
    await expect.poll(uncounted).toBe(0)
  })

  it("updates the channel's row and the author's membership in place: no index names a column every post writes", async () => {
    // PostgreSQL makes an UPDATE a HOT update (no new index entries) only when no index's columns, expressions or
    // predicate name a column it changes. Each post writes these on channels and on the author's channel_members row
    // (and each channel view the latter's too); an index naming one made every post add entries to all of the table's
    // indexes, which grew with dead entries while autovacuum was off.
    const written = {
      channels: ["last_post_at", "last_root_post_at", "total_msg_count", "total_msg_count_root"],
      channel_members: ["last_viewed_at", "msg_count", "msg_count_root", "mention_count", "mention_count_root", "urgent_mention_count", "last_update_at"]
    }
    const { rows } = await db.query<{ table: string; def: string }>(
      "SELECT tablename AS table, indexdef AS def FROM pg_indexes WHERE schemaname = 'public' AND tablename = ANY($1)", [Object.keys(written)])
    expect(rows.length).toBeGreaterThan(2)
    const offending = rows.filter((r) => written[r.table as keyof typeof written].some((column) => new RegExp(`\\b${column}\\b`).test(r.def)))
    expect(offending).toEqual([])
    // And the writes of posts are HOT in fact: the statistics of this database's updates say so.
    const { owner, team } = await teamWith(server, 0)
    const channel = await channelIn(owner, team, "O", [])
    const hot = async () => (await db.query("SELECT sum(n_tup_upd)::int AS upd, sum(n_tup_hot_upd)::int AS hot FROM pg_stat_user_tables WHERE relname = 'channel_members'")).rows[0] as { upd: number; hot: number }
    const before = await hot()
    for (let i = 0; i < 5; i++) await owner.client.createPost({ channel_id: channel.id, message: `in place ${i}` } as Post)
    // A backend that went idle within a second of its last flush reports its statistics up to 10 s later
    // (PostgreSQL's PGSTAT_IDLE_INTERVAL): on a busy machine the counts can take that long to appear.
    await expect.poll(async () => (await hot()).upd - before.upd, { timeout: 20_000, interval: 250 }).toBeGreaterThanOrEqual(5)
    // Most, not all: an update whose page has no room left for the new version is not HOT either, and concurrent
    // transactions may keep a page from being pruned. With an index on msg_count none of them was.
    const after = await hot()
    expect(after.hot - before.hot).toBeGreaterThanOrEqual(Math.ceil(0.8 * (after.upd - before.upd)))
  })
})

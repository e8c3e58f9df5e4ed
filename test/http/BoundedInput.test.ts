import type { Channel } from "@mattermost/types/channels"
import type { Post } from "@mattermost/types/posts"
import type { Team } from "@mattermost/types/teams"
import { Effect } from "effect"
import { request } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Db } from "../../layers/Db.ts"
import { SearchLimits } from "../../schemas/Limits.ts"
import { newUser, unique } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { send } from "./Fetch.ts"

/**
 * Issue 25: one member must not be able to take the node's database away from everybody else. Oversized lists and
 * many-word searches are refused with a 400 at decode time, before any statement; a statement PostgreSQL refuses is
 * that request's failure alone and never opens the database breaker; while one member floods the server with such
 * requests, another member's posts and reads keep succeeding.
 */
let server: TestServer
let attacker = ""
let victim: Awaited<ReturnType<typeof newUser>>
let team: Team
let channel: Channel

const idOf = (i: number) => `a${i.toString(36).padStart(25, "0")}`
const ids = (n: number) => Array.from({ length: n }, (_, i) => idOf(i))
const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(" ")

const call = (path: string, init: { method?: string; json?: unknown } = {}, token = attacker) =>
  send(`${server.url}${path}`, {
    method: init.method ?? (init.json === undefined ? "GET" : "POST"),
    headers: { Authorization: `Bearer ${token}`, "X-Requested-With": "XMLHttpRequest" },
    json: init.json
  })

/**
 * The attacker's flood, each request on a connection of its own (no keep-alive), as a script would send it: a pooled
 * connection the server closes as idle just when the client reuses it is the client's race, not an answer.
 */
const fresh = (path: string, json: unknown) =>
  new Promise<{ status: number; body: any; text: string }>((resolve, reject) => {
    const payload = JSON.stringify(json)
    const req = request(`${server.url}${path}`, {
      method: "POST",
      agent: false,
      headers: {
        Authorization: `Bearer ${attacker}`,
        "X-Requested-With": "XMLHttpRequest",
        "Content-Type": "application/json",
        "Content-Length": Buffer.byteLength(payload)
      }
    }, (res) => {
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => text += chunk)
      res.on("end", () => {
        let body: unknown = undefined
        try {
          body = JSON.parse(text)
        } catch {}
        resolve({ status: res.statusCode ?? 0, body, text })
      })
      res.on("error", reject)
    })
    req.on("error", reject)
    req.end(payload)
  })

const timed = async <A>(f: () => Promise<A>) => {
  const started = performance.now()
  const value = await f()
  return { value, ms: performance.now() - started }
}

/** Mattermost's error body with a 400: an id clients match on, and no echo of the huge input. */
const expectMattermost400 = (response: { status: number; body: any; text: string }, what: string) => {
  expect(response.status, `${what}: ${response.text.slice(0, 300)}`).toBe(400)
  expect(response.body.status_code, what).toBe(400)
  expect(typeof response.body.id, what).toBe("string")
  expect(typeof response.body.message, what).toBe("string")
  expect(response.text.length, what).toBeLessThan(2048)
}

const breakers = async () => (await send(`${server.url}/api/v1/health/stats`)).body.circuit_breakers as Record<string, string>

const openedTotal = async () => {
  const text = (await send(`${server.url}/api/v1/health/metrics`)).text
  const line = text.split("\n").find((l) => l.startsWith(`service_circuit_breaker_state_changes_total{breaker="postgres",state="open"} `))
  return line === undefined ? 0 : Number(line.split(" ")[1])
}

beforeAll(async () => {
  server = await startServer()
  const admin = await newUser(server.url, "bndadmin")
  const bad = await newUser(server.url, "bndattacker")
  victim = await newUser(server.url, "bndvictim")
  attacker = bad.client.getToken()
  team = await admin.client.createTeam({ name: unique("bnd"), display_name: "Bounded", type: "O" } as Team)
  channel = await admin.client.createChannel({ team_id: team.id, name: unique("bnd"), display_name: "Bounded", type: "O" } as Channel)
  for (const user of [bad, victim]) {
    await admin.client.addToTeam(team.id, user.user.id)
    await admin.client.addToChannel(user.user.id, channel.id)
  }
})
afterAll(async () => {
  await server?.close()
})

describe("oversized lists", () => {
  it("status/ids and users/ids with 70,000 ids answer 400 at decode time, and 1,000 ids still answer", async () => {
    for (const path of ["/api/v4/users/status/ids", "/api/v4/users/ids", "/api/v4/users/usernames", "/api/v4/posts/ids"]) {
      const { value, ms } = await timed(() => call(path, { json: ids(70_000) }))
      expectMattermost400(value, path)
      expect(ms, path).toBeLessThan(5000)
    }
    const statuses = await call("/api/v4/users/status/ids", { json: ids(1000) })
    expect(statuses.status).toBe(200)
    expect(Array.isArray(statuses.body)).toBe(true)
    expectMattermost400(await call("/api/v4/users/status/ids", { json: ids(1001) }), "1,001 status ids")
  })

  it("a list nested where no Schema names it is bounded too (the decode backstop)", async () => {
    const response = await call("/api/v4/posts", { json: { channel_id: channel.id, message: "hi", props: { attachments: ids(20_000) } } })
    expectMattermost400(response, "props with 20,000 items")
    expect(response.body.message).toMatch(/at most 10000/)
  })
})

describe("many-word search", () => {
  it("post search with 5,000 words answers 400 quickly, never PostgreSQL's stack depth error", async () => {
    for (const is_or_search of [false, true]) {
      const { value, ms } = await timed(() => call(`/api/v4/teams/${team.id}/posts/search`, { json: { terms: words(5000), is_or_search } }))
      expectMattermost400(value, `5,000 words, or=${is_or_search}`)
      expect(ms).toBeLessThan(5000)
    }
    // Within the length, past the count of terms.
    const many = await call(`/api/v4/teams/${team.id}/posts/search`, { json: { terms: words(SearchLimits.terms + 1) } })
    expectMattermost400(many, "65 terms")
    expect(many.body.message).toMatch(/at most 64/)
  })

  it("post search with as many terms as allowed is one bounded query that finds the post", async () => {
    const terms = words(SearchLimits.terms)
    await victim.client.createPost({ channel_id: channel.id, message: `release notes ${terms}` } as Post)
    const { value, ms } = await timed(() => call(`/api/v4/teams/${team.id}/posts/search`, { json: { terms, is_or_search: false } }))
    expect(value.status, value.text.slice(0, 300)).toBe(200)
    expect(value.body.order.length).toBe(1)
    expect(ms).toBeLessThan(5000)
    const either = await call(`/api/v4/teams/${team.id}/posts/search`, { json: { terms, is_or_search: true } })
    expect(either.status).toBe(200)
    expect(either.body.order.length).toBe(1)
  })

  it("user search and autocomplete with thousands of words stay fast: 400 past the length, the first words within it", async () => {
    for (const n of [3000, 5000]) {
      const search = await timed(() => call("/api/v4/users/search", { json: { term: words(n) } }))
      expectMattermost400(search.value, `user search, ${n} words`)
      expect(search.ms).toBeLessThan(3000)
      const auto = await timed(() => call(`/api/v4/users/autocomplete?name=${encodeURIComponent(words(n).slice(0, 12_000))}`))
      expect(auto.value.status).toBeLessThan(500)
      expect(auto.ms).toBeLessThan(3000)
    }
    // 60 distinct words within 256 characters: answered, the words matched bounded, quickly.
    const name = victim.username
    const within = `${name} ${words(60)}`.slice(0, SearchLimits.userTermLength)
    const found = await timed(() => call("/api/v4/users/search", { json: { term: `${name.slice(0, 6)}` } }))
    expect(found.value.status).toBe(200)
    expect(found.value.body.map((u: { id: string }) => u.id)).toContain(victim.user.id)
    const many = await timed(() => call("/api/v4/users/search", { json: { term: within } }))
    expect(many.value.status).toBe(200)
    expect(many.ms).toBeLessThan(3000)
    const auto = await timed(() => call(`/api/v4/users/autocomplete?in_team=${team.id}&name=${encodeURIComponent(within)}`))
    expect(auto.value.status).toBe(200)
    expect(auto.ms).toBeLessThan(3000)
  })
})

describe("the database breaker", () => {
  it("statements PostgreSQL rejects never open it, and other users' requests keep succeeding", async () => {
    const before = await openedTotal()
    // Through the server's own Db (the same breaker that guards every request): more rejected statements than the
    // five connection failures that open it, of every kind the study found.
    const rejected = await server.runtime.runPromise(Effect.flatMap(Db, (db) =>
      Effect.all(
        [
          db.read(db.sql`SELECT ${2 ** 31}::int4 AS n`), // 22003 out of range
          db.read(db.sql`SELECT * FROM no_such_table_here`), // 42P01
          db.read(db.sql`SELECT ${"x"}::int AS n`), // 22P02
          db.read(db.sql.unsafe(`SELECT ${Array.from({ length: 100_000 }, () => "1").join(" + ")} AS n`)), // 54001 stack depth
          db.read(db.sql`SELECT 1 AS n WHERE ${"a"} IN ${db.sql.in(ids(70_000))}`), // 70,000 bind parameters
          db.execute(db.sql`INSERT INTO users (id) VALUES (${"x"})`), // 23502 not null
          db.read(db.sql.unsafe(`SELEC 1`)) // 42601 syntax
        ].map((statement) => Effect.flip(statement)),
        { concurrency: 1 }
      )))
    expect(rejected).toHaveLength(7)
    expect((await breakers()).postgres).toBe("closed")
    const post = await victim.client.createPost({ channel_id: channel.id, message: "still here" } as Post)
    expect(post.id).toHaveLength(26)
    expect(await openedTotal()).toBe(before)
  })

  it("a flood of oversized requests by one member gets 400s while another member's posts and reads all succeed", async () => {
    const before = await openedTotal()
    // Eight at a time (the study's "handful"), three rounds: 70,000 ids, 5,000-word searches.
    const flood = [
      ...Array.from({ length: 3 }, () => () => fresh("/api/v4/users/status/ids", ids(70_000))),
      () => fresh("/api/v4/users/ids", ids(70_000)),
      () => fresh("/api/v4/posts/ids/reactions", ids(70_000)),
      ...Array.from({ length: 2 }, (_, i) => () => fresh(`/api/v4/teams/${team.id}/posts/search`, { terms: words(5000), is_or_search: i % 2 === 0 })),
      () => fresh("/api/v4/users/search", { term: words(5000) })
    ]
    let done = false
    // The victim's loop runs until the flood is over (and at least ten rounds), each request awaited in turn.
    const victimToken = victim.client.getToken()
    const victimResults: Array<{ status: number; ms: number; what: string }> = []
    const victimLoop = (async () => {
      let i = 0
      while (!done || i < 10) {
        const posted = await timed(() => call("/api/v4/posts", { json: { channel_id: channel.id, message: `during the flood ${i}` } }, victimToken))
        victimResults.push({ status: posted.value.status, ms: posted.ms, what: `post ${i}: ${posted.value.text.slice(0, 200)}` })
        const read = await timed(() => call(`/api/v4/channels/${channel.id}/posts?per_page=30`, {}, victimToken))
        victimResults.push({ status: read.value.status, ms: read.ms, what: `read ${i}: ${read.value.text.slice(0, 200)}` })
        i += 1
      }
    })()
    const started = performance.now()
    const answers = []
    try {
      for (let round = 0; round < 3; round++) answers.push(...await Promise.all(flood.map((f) => timed(f))))
    } finally {
      done = true
      await victimLoop
    }
    const floodMs = performance.now() - started
    for (const { value } of answers) expectMattermost400(value, "flood request")
    for (const r of victimResults) expect(r.status, r.what).toBeLessThan(300)
    expect(victimResults.length).toBeGreaterThanOrEqual(20)
    expect((await breakers()).postgres).toBe("closed")
    expect(await openedTotal()).toBe(before)
    const slowest = (xs: ReadonlyArray<number>) => Math.round(Math.max(...xs))
    console.info(
      `flood: ${answers.length} oversized requests in ${Math.round(floodMs)} ms, slowest 400 ${slowest(answers.map((a) => a.ms))} ms; ` +
        `victim: ${victimResults.length} requests, all succeeded, slowest ${slowest(victimResults.map((r) => r.ms))} ms`
    )
  }, 120_000)
})

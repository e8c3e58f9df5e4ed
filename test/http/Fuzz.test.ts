import type { Channel } from "@mattermost/types/channels"
import type { Post } from "@mattermost/types/posts"
import type { Team } from "@mattermost/types/teams"
import { Chunk } from "effect"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { routes } from "../../src/Routes.ts"
import { client4, newUser, unique } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * Hostile input against every implemented route, driven by the router's own table: malformed and oversized bodies,
 * JSON nested thousands deep, strings PostgreSQL cannot store, numbers past bigint, multipart bodies without a
 * boundary, garbage path and query parameters, lists of 20,000 ids (a bare array, and every list field a route
 * takes) and searches of 5,000 words (issue 25: such input once reached PostgreSQL and answered 503); every route of the table gets the worst bodies, a hostile query and
 * each garbage path parameter, then fast-check mixes them at random. Whatever comes in, the answer is a 4xx (or a
 * success) with a JSON error body of a bounded size, never a 5xx (501 only for what is not implemented), and the
 * server keeps serving.
 */
let server: TestServer
let token = ""
const known: Record<string, string> = {}

/**
 * Routes that may end the session they are called with (logout, revocations): each probe of them gets a session of
 * its own, and the fuzzer's session is renewed after it, so they are fuzzed without the rest seeing only 401s.
 */
const ENDS_SESSIONS = /logout|revoke/

const table = Chunk.toReadonlyArray(routes.routes)
  .map((r) => ({ method: r.method, path: r.path as string }))
  .filter((r) => r.method !== "*" && !r.path.endsWith("*"))

/** Path parameters no route can take: NUL, a lone surrogate, far too long, a traversal. */
const GARBAGE_PARAMS = ["a%00b", "%ED%A0%80", "x".repeat(3000), "%2e%2e"]

const DEEP = "[".repeat(5000) + "]".repeat(5000)
const WIDE = JSON.stringify({ name: 123, message: { nested: "x".repeat(900_000) }, channel_id: ["x".repeat(1000)] })
const NUL = JSON.stringify({ name: "a\u0000b", message: "a\u0000b", display_name: "a\u0000b", channel_id: "a\u0000b", props: { "k\u0000": 1 } })
// JSON.stringify would escape the surrogate as "\ud800": that is exactly what a client sends.
const SURROGATE = '{"name":"\\ud800","message":"x\\udc00y","display_name":"\\ud800","terms":"\\ud800"}'
const MANY_IDS = Array.from({ length: 20_000 }, (_, i) => `a${i.toString(36).padStart(25, "0")}`)
const MANY_WORDS = Array.from({ length: 5000 }, (_, i) => `w${i}`).join(" ")
const LONG_LIST = JSON.stringify(MANY_IDS)
/**
 * Every list field of the API's bodies at once, each past the routes' own limits (1,000 for most ids), with the
 * search fields many words long.
 */
const LONG_FIELDS = JSON.stringify({
  ...Object.fromEntries(
    ["user_ids", "channel_ids", "team_ids", "post_ids", "file_ids", "usernames", "emails", "names", "roles", "trigger_words", "callback_urls", "attachments", "elements", "extra_responses", "order"]
      .map((k) => [k, MANY_IDS.slice(0, 2000)])
  ),
  terms: MANY_WORDS,
  term: MANY_WORDS,
  props: { attachments: MANY_IDS }
})
/** A query of many words in every search parameter, within the URL length the server reads. */
const LONG_QUERY = ["term", "name", "q", "terms"].map((k) => `${k}=${encodeURIComponent(MANY_WORDS.slice(0, 1500))}`).join("&")
const HUGE_NUMBERS = JSON.stringify({ page: 1e300, per_page: -1e300, since: 9.3e18, create_at: 1e30, sort_order: 1e20, position: 1e25 })

const garbageSegment = fc.oneof(
  fc.constantFrom("x", "%00", "a%00b", "%ED%A0%80", "0".repeat(26), "me", "..", "%2e%2e", "9".repeat(40), "x".repeat(3000)),
  fc.string({ maxLength: 40 }).map(encodeURIComponent)
)
const segmentFor = (name: string) =>
  known[name] !== undefined ? fc.oneof(fc.constant(known[name]), garbageSegment) : garbageSegment

const queryValue = fc.oneof(
  fc.constantFrom("1e400", "99999999999999999999999", "-1", "-9999999999999999999", "NaN", "%00", "x%00", "", "true", "0".repeat(26)),
  fc.string({ maxLength: 30 }).map(encodeURIComponent)
)
const queryKey = fc.constantFrom("page", "per_page", "since", "before", "after", "sort", "in_channel", "in_team", "term", "limit", "q", "include_deleted")
const query = fc.array(fc.tuple(queryKey, queryValue), { maxLength: 4 }).map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join("&"))

type Body = { readonly contentType: string; readonly body: string }
const body: fc.Arbitrary<Body> = fc.oneof(
  fc.constantFrom<Body>(
    { contentType: "application/json", body: DEEP },
    { contentType: "application/json", body: NUL },
    { contentType: "application/json", body: SURROGATE },
    { contentType: "application/json", body: HUGE_NUMBERS },
    { contentType: "application/json", body: LONG_LIST },
    { contentType: "application/json", body: LONG_FIELDS },
    { contentType: "application/json", body: "{\"unterminated" },
    { contentType: "application/json", body: "null" },
    { contentType: "application/json", body: "[]" },
    { contentType: "multipart/form-data", body: "--x\r\nContent-Disposition: form-data; name=\"image\"\r\n\r\nabc" },
    { contentType: "multipart/form-data; boundary=zzz", body: "garbage without parts" },
    { contentType: "text/plain", body: "hello" }
  ),
  fc.json({ maxDepth: 4 }).map((text) => ({ contentType: "application/json", body: text })),
  fc.dictionary(fc.constantFrom("name", "message", "channel_id", "user_id", "team_id", "props", "type", "display_name", "password", "email", "active", "roles"), fc.anything({ maxDepth: 2 }))
    .map((value) => ({ contentType: "application/json", body: JSON.stringify(value) ?? "{}" }))
)

const fillPath = (path: string, values: ReadonlyArray<string>) => {
  let i = 0
  return path.replace(/:(\w+)/g, () => values[i++] ?? "x")
}
const paramNames = (path: string) => [...path.matchAll(/:(\w+)/g)].map((m) => m[1])

let login = { username: "", password: "" }
const freshToken = async () => {
  const client = client4(server.url)
  await client.login(login.username, login.password)
  return client.getToken()
}

/** Sends one request; fails the property with what was sent when the answer is not an acceptable one. */
const probe = async (method: string, path: string, search: string, sent: Body) => {
  const url = `${server.url}${path}${search === "" ? "" : `?${search}`}`
  const hasBody = method !== "GET" && method !== "HEAD"
  const endsSessions = ENDS_SESSIONS.test(path)
  const response = await fetch(url, {
    method,
    headers: { Authorization: `Bearer ${endsSessions ? await freshToken() : token}`, "Content-Type": sent.contentType, "X-Requested-With": "XMLHttpRequest" },
    body: hasBody ? sent.body : undefined,
    redirect: "manual"
  }).catch((e) => {
    throw new Error(`${method} ${path.slice(0, 200)} with ${sent.contentType} ${sent.body.slice(0, 80)}: ${String(e.cause ?? e)}`)
  })
  if (endsSessions) token = await freshToken()
  const text = await response.text()
  const what = `${method} ${path.slice(0, 200)}?${search.slice(0, 200)} with ${sent.contentType} ${sent.body.slice(0, 80)} -> ${response.status} ${text.slice(0, 300)}`
  // 501 is this server's honest answer for what it does not implement; every other 5xx is a defect.
  expect(response.status === 501 || response.status < 500, what).toBe(true)
  if (response.status >= 400) {
    expect(response.headers.get("content-type"), what).toMatch(/^application\/json/)
    const parsed = JSON.parse(text) as Record<string, unknown>
    expect(typeof (parsed.message ?? (parsed.error as Record<string, unknown> | undefined)?.message), what).toBe("string")
    // Nothing of a large input comes back.
    expect(text.length, what).toBeLessThan(4096)
  }
}

describe("hostile input on every route", () => {
  beforeAll(async () => {
    server = await startServer()
    const admin = await newUser(server.url, "fuzzadmin")
    const other = await newUser(server.url, "fuzzother")
    token = admin.client.getToken()
    login = { username: admin.username, password: admin.password }
    const team: Team = await admin.client.createTeam({ name: unique("fz"), display_name: "Fuzz", type: "O" } as Team)
    const channel: Channel = await admin.client.createChannel({ team_id: team.id, name: unique("fz"), display_name: "Fuzz", type: "O" } as Channel)
    const post: Post = await admin.client.createPost({ channel_id: channel.id, message: "hello" } as Post)
    Object.assign(known, { team_id: team.id, channel_id: channel.id, user_id: other.user.id, post_id: post.id })
  })
  afterAll(async () => {
    await server?.close()
  })

  it("answers the worst bodies on every route with a 4xx and a small JSON error", async () => {
    expect(table.length).toBeGreaterThan(100)
    const worst: ReadonlyArray<Body> = [
      { contentType: "application/json", body: DEEP },
      { contentType: "application/json", body: WIDE },
      { contentType: "application/json", body: NUL },
      { contentType: "application/json", body: SURROGATE },
      { contentType: "application/json", body: HUGE_NUMBERS },
      { contentType: "application/json", body: LONG_LIST },
      { contentType: "application/json", body: LONG_FIELDS },
      { contentType: "multipart/form-data", body: "no boundary" }
    ]
    for (const route of table) {
      const names = paramNames(route.path)
      const path = fillPath(route.path, names.map((n) => known[n] ?? "x"))
      for (const sent of route.method === "GET" ? worst.slice(0, 1) : worst) {
        await probe(route.method, path, "page=1e400&per_page=99999999999999999999999&since=%00", sent)
      }
      await probe(route.method, path, LONG_QUERY, { contentType: "application/json", body: "{}" })
      // Each garbage value in every path parameter, with an otherwise plain request.
      if (names.length > 0) {
        for (const garbage of GARBAGE_PARAMS) {
          await probe(route.method, fillPath(route.path, names.map(() => garbage)), "", { contentType: "application/json", body: "{}" })
        }
      }
    }
  }, 480_000)

  it("answers random malformed bodies, parameters and queries without a 5xx", async () => {
    const request = fc.integer({ min: 0, max: table.length - 1 }).chain((index) => {
      const route = table[index]
      return fc.record({
        route: fc.constant(route),
        segments: fc.tuple(...paramNames(route.path).map(segmentFor), fc.constant("")),
        search: query,
        body
      })
    })
    await fc.assert(
      fc.asyncProperty(request, async ({ route, segments, search, body: sent }) => {
        await probe(route.method, fillPath(route.path, segments), search, sent)
      }),
      { numRuns: 400, seed: Number(process.env.FUZZ_SEED ?? 20261123) }
    )
    const live = await fetch(`${server.url}/api/v1/health/live`)
    expect(live.status).toBe(200)
  }, 240_000)
})

import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Db } from "../../layers/Db.ts"
import { searchStatement } from "../../src/search/PostSearch.ts"
import { scopeChannelIds } from "../../src/search/SearchScope.ts"
import { client4, newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { Fixtures } from "../files/Fixtures.ts"
import { expectShape, Wire } from "../compat/Shapes.ts"

let server: TestServer
let db: Fixtures
type Member = Awaited<ReturnType<typeof newUser>>
let alice: Member
let bob: Member
let carol: Member
let teamId: string
let otherTeamId: string
let general: string
let random: string
let secret: string
let direct: string
let elsewhere: string
const posts: Record<string, string> = {}

const at = (date: string) => Date.parse(`${date}T12:00:00Z`)

const post = async (m: Member, channelId: string, key: string, message: string, createAt?: number) => {
  const created = await m.client.createPost({ channel_id: channelId, message } as never)
  posts[key] = created.id
  if (createAt !== undefined) await db.query("UPDATE posts SET create_at = $2 WHERE id = $1", [created.id, createAt])
  return created.id
}

/** A team search by default; team null searches every team (POST /posts/search). */
const search = (m: Member, terms: string, options: Record<string, unknown> = {}, team: string | null = teamId) =>
  m.client.searchPostsWithParams(team ?? "", { terms, is_or_search: false, page: 0, per_page: 60, include_deleted_channels: false, ...options } as never)

/** The keys of the posts a search found, in result order. */
const found = async (m: Member, terms: string, options: Record<string, unknown> = {}, team: string | null = teamId) => {
  const result = await search(m, terms, options, team)
  const byId = new Map(Object.entries(posts).map(([k, v]) => [v, k]))
  return result.order.map((id: string) => byId.get(id) ?? id)
}

beforeAll(async () => {
  server = await startServer()
  db = await Fixtures.open(server.databaseUrl)
  alice = await newUser(server.url, "alice")
  bob = await newUser(server.url, "bob")
  carol = await newUser(server.url, "carol")
  const team = await alice.client.createTeam({ name: `search${Date.now()}`, display_name: "Search", type: "O" } as never)
  teamId = team.id
  await alice.client.addToTeam(teamId, bob.user.id)
  general = (await alice.client.createChannel({ team_id: teamId, name: "general-talk", display_name: "General", type: "O" } as never)).id
  random = (await alice.client.createChannel({ team_id: teamId, name: "random-stuff", display_name: "Random", type: "O" } as never)).id
  secret = (await alice.client.createChannel({ team_id: teamId, name: "secret-room", display_name: "Secret", type: "P" } as never)).id
  await alice.client.addToChannel(bob.user.id, general)
  await alice.client.addToChannel(bob.user.id, random)
  direct = (await alice.client.createDirectChannel([alice.user.id, bob.user.id])).id
  const other = await bob.client.createTeam({ name: `other${Date.now()}`, display_name: "Other", type: "O" } as never)
  otherTeamId = other.id
  elsewhere = (await bob.client.createChannel({ team_id: otherTeamId, name: "elsewhere", display_name: "Elsewhere", type: "O" } as never)).id

  await post(alice, general, "deployBoth", "We deploy the server tonight", at("2024-03-10"))
  await post(bob, general, "deployOnly", "Deploy went fine", at("2024-03-11"))
  await post(bob, random, "serverOnly", "The server room is cold", at("2024-03-12"))
  await post(alice, random, "phrase", "the release notes are ready", at("2024-03-13"))
  await post(bob, general, "scrambled", "notes about the release, ready soon", at("2024-03-14"))
  await post(alice, general, "tagged", "Shipping #release today", at("2024-03-15"))
  await post(alice, secret, "secret", "secret deploy plan", at("2024-03-15") + 3_600_000)
  await post(bob, direct, "dm", "private deploy chat", at("2024-03-16"))
  await post(bob, elsewhere, "otherTeam", "deploy in the other team", at("2024-03-16") + 3_600_000)
  await post(alice, random, "wildcard", "a deplorable pipeline is green", at("2024-03-17"))
})
afterAll(async () => {
  await db?.close()
  await server?.close()
})

describe("post search with Mattermost's modifiers", () => {
  it("matches all words by default, any word with is_or_search, newest first, with matches", async () => {
    expect(await found(alice, "deploy server")).toEqual(["deployBoth"])
    expect(await found(alice, "deploy server", { is_or_search: true })).toEqual(["dm", "secret", "serverOnly", "deployOnly", "deployBoth"])
    const result = expectShape(await search(alice, "deploy server"), Wire.PostSearchResults, "search results")
    expect(result.matches[posts.deployBoth]).toEqual(["deploy", "server"])
    expect(result.posts[posts.deployBoth]).toMatchObject({ id: posts.deployBoth, message: "We deploy the server tonight", metadata: expect.any(Object) })
    expect(result).toMatchObject({ next_post_id: "", prev_post_id: "", first_inaccessible_post_time: 0 })
  })

  it("from: and -from:", async () => {
    expect(await found(alice, `deploy from:${bob.username}`)).toEqual(["dm", "deployOnly"])
    expect(await found(alice, `deploy from:@${alice.username}`)).toEqual(["secret", "deployBoth"])
    expect(await found(alice, `deploy -from:${bob.username}`)).toEqual(["secret", "deployBoth"])
    expect(await found(alice, "deploy from:nobody_at_all")).toEqual([])
  })

  it("in: a channel by name, in:@user for the direct message, and -in:", async () => {
    expect(await found(alice, "deploy in:general-talk")).toEqual(["deployOnly", "deployBoth"])
    expect(await found(alice, "deploy in:~general-talk")).toEqual(["deployOnly", "deployBoth"])
    expect(await found(alice, `deploy in:@${bob.username}`)).toEqual(["dm"])
    expect(await found(alice, "deploy -in:general-talk")).toEqual(["dm", "secret"])
    expect(await found(alice, "deploy in: general-talk")).toEqual(["deployOnly", "deployBoth"])
  })

  it("before:, after: and on: by calendar day in the searcher's time zone", async () => {
    expect(await found(alice, "deploy before:2024-03-11")).toEqual(["deployBoth"])
    expect(await found(alice, "deploy after:2024-03-10")).toEqual(["dm", "secret", "deployOnly"])
    expect(await found(alice, "deploy on:2024-03-11")).toEqual(["deployOnly"])
    expect(await found(alice, "deploy on:2024-3-11")).toEqual(["deployOnly"])
    // 12:00 UTC on the 11th is already the 12th at UTC+13.
    expect(await found(alice, "deploy on:2024-03-12", { time_zone_offset: 13 * 3600 })).toEqual(["deployOnly"])
    expect(await found(alice, "deploy -on:2024-03-11 before:2024-03-16")).toEqual(["secret", "deployBoth"])
  })

  it("\"exact phrase\" needs the words together and in order", async () => {
    expect(await found(alice, "\"release notes\"")).toEqual(["phrase"])
    expect(await found(alice, "release notes")).toEqual(["scrambled", "phrase"])
    expect(await found(alice, "notes -\"release notes\"")).toEqual(["scrambled"])
  })

  it("-excluded terms and trailing * wildcards", async () => {
    expect(await found(alice, "deploy -server")).toEqual(["dm", "secret", "deployOnly"])
    expect(await found(alice, "deplo*")).toEqual(["wildcard", "dm", "secret", "deployOnly", "deployBoth"])
    const result = await search(alice, "deplo*")
    expect(result.matches[posts.wildcard]).toEqual(["deplorable"])
  })

  it("#hashtags match the tag, not the plain word", async () => {
    expect(await found(alice, "#release")).toEqual(["tagged"])
    expect(await found(alice, "release -#release")).toEqual(["scrambled", "phrase"])
  })
})

describe("search scope and authorization", () => {
  it("covers only channels the caller belongs to: a team's channels plus direct messages, or every team's without one", async () => {
    expect(await found(bob, "deploy")).toEqual(["dm", "deployOnly", "deployBoth"])
    expect(await found(bob, "deploy", {}, null)).toEqual(["otherTeam", "dm", "deployOnly", "deployBoth"])
    expect(await found(bob, "deploy", {}, otherTeamId)).toEqual(["otherTeam", "dm"])
    expect(await found(bob, "secret")).toEqual([])
    expect(await found(bob, "deploy in:secret-room")).toEqual([])
  })

  it("refuses a team the caller is not in, and an unknown team", async () => {
    await expect(search(carol, "deploy")).rejects.toMatchObject({ status_code: 403 })
    await expect(search(carol, "deploy", {}, "t".repeat(26))).rejects.toMatchObject({ status_code: 404 })
    expect(await found(carol, "deploy", {}, null)).toEqual([])
  })

  it("leaves out deleted posts and archived channels unless asked", async () => {
    const gone = await post(alice, general, "gone", "ephemeral zebra words")
    await alice.client.deletePost(gone)
    expect(await found(alice, "zebra")).toEqual([])
    await post(alice, random, "archived", "archived yak words")
    await db.query("UPDATE channels SET delete_at = 1 WHERE id = $1", [random])
    try {
      expect(await found(alice, "yak")).toEqual([])
      expect(await found(alice, "yak", { include_deleted_channels: true })).toEqual(["archived"])
    } finally {
      await db.query("UPDATE channels SET delete_at = 0 WHERE id = $1", [random])
    }
  })

  it("pages with page and per_page", async () => {
    const first = await search(alice, "deploy", { is_or_search: false, per_page: 2, page: 0 })
    const second = await search(alice, "deploy", { per_page: 2, page: 1 })
    expect(first.order).toHaveLength(2)
    expect((first as unknown as { has_next: boolean }).has_next).toBe(true)
    expect([...first.order, ...second.order]).toEqual([posts.dm, posts.secret, posts.deployOnly, posts.deployBoth])
  })

  it("answers bad input with 4xx and the error body, anonymous callers with 401", async () => {
    const token = alice.client.getToken()
    const call = (path: string, body: string, auth = true) =>
      fetch(`${server.url}${path}`, { method: "POST", body, headers: auth ? { authorization: `Bearer ${token}` } : {} })
    for (const [body, status] of [
      [JSON.stringify({ terms: "" }), 400],
      [JSON.stringify({}), 400],
      [JSON.stringify({ terms: "x", per_page: -1 }), 400],
      [JSON.stringify({ terms: "x", page: "one" }), 400],
      ["{not json", 400]
    ] as const) {
      const response = await call(`/api/v4/teams/${teamId}/posts/search`, body)
      expect(response.status, body).toBe(status)
      expect(await response.json()).toMatchObject({ status_code: status })
    }
    expect((await call("/api/v4/posts/search", JSON.stringify({ terms: "x" }), false)).status).toBe(401)
    expect((await call("/api/v4/teams/bad/posts/search", JSON.stringify({ terms: "x" }))).status).toBe(400)
    await expect(client4(server.url).searchPosts(teamId, "deploy", false)).rejects.toMatchObject({ status_code: 401 })
  })
})

describe("file search", () => {
  it("finds attached files by name in readable channels, with ext: and from:", async () => {
    const upload = (m: Member, channelId: string, name: string) => {
      const form = new FormData()
      form.append("channel_id", channelId)
      form.append("files", new Blob(["content"]), name)
      return m.client.uploadFile(form)
    }
    const report = (await upload(alice, general, "Quarterly-Report.pdf")).file_infos[0]
    const sheet = (await upload(bob, general, "report-data.csv")).file_infos[0]
    const hidden = (await upload(alice, secret, "report-secret.pdf")).file_infos[0]
    const draft = (await upload(alice, general, "report-draft.pdf")).file_infos[0]
    await alice.client.createPost({ channel_id: general, message: "files", file_ids: [report.id] } as never)
    await bob.client.createPost({ channel_id: general, message: "more files", file_ids: [sheet.id] } as never)
    await alice.client.createPost({ channel_id: secret, message: "hidden", file_ids: [hidden.id] } as never)
    const names = async (m: Member, terms: string) => {
      const result = await m.client.searchFilesWithParams(teamId, { terms, is_or_search: false, page: 0, per_page: 60 } as never)
      expectShape(result, Wire.FileSearchResults, "file search")
      return result.order.map((id: string) => (result.file_infos as unknown as Record<string, { name: string }>)[id].name)
    }
    expect(await names(bob, "report")).toEqual(["report-data.csv", "Quarterly-Report.pdf"])
    expect(await names(alice, "report")).toEqual(["report-secret.pdf", "report-data.csv", "Quarterly-Report.pdf"])
    expect(await names(bob, "report ext:pdf")).toEqual(["Quarterly-Report.pdf"])
    expect(await names(bob, `report from:${bob.username}`)).toEqual(["report-data.csv"])
    expect(await names(bob, "report -data")).toEqual(["Quarterly-Report.pdf"])
    expect(draft.post_id).toBe("")
  })
})

describe("the GIN index", () => {
  it("serves the search query on a realistic table", async () => {
    await db.query(`
      INSERT INTO posts (id, create_at, update_at, user_id, channel_id, message)
      SELECT md5(i::text || 'seed'), 1700000000000 + i, 1700000000000 + i, $1, $2,
             'routine status update number ' || i || ' about builds and meetings'
      FROM generate_series(1, 20000) AS i`, [alice.user.id, general])
    await db.query(`UPDATE posts SET message = message || ' zyzzyva' WHERE id IN (SELECT id FROM posts WHERE message LIKE 'routine%' ORDER BY id LIMIT 3)`)
    // VACUUM also merges the GIN pending list, as autovacuum does on a live server; a bare ANALYZE would leave it.
    await db.query("VACUUM ANALYZE posts")
    const plan = await server.runtime.runPromise(Effect.gen(function*() {
      const database = yield* Db
      const scope = {
        userId: alice.user.id,
        teamId,
        includeDeletedChannels: false,
        channelNames: [],
        excludedChannelNames: [],
        fromUserIds: [],
        excludedUserIds: [],
        empty: false
      }
      const statement = searchStatement(database.sql, {
        scope,
        terms: [{ kind: "word", text: "zyzzyva" }],
        excludedTerms: [],
        isOrSearch: false,
        ranges: [],
        offset: 0,
        limit: 60
      }, yield* scopeChannelIds(scope))
      const [text, params] = statement.compile()
      return yield* database.sql.unsafe<{ "QUERY PLAN": unknown }>(`EXPLAIN (FORMAT JSON) ${text}`, params)
    }))
    expect(JSON.stringify(plan), JSON.stringify(plan, null, 1)).toContain("posts_search_idx")
    expect(await found(alice, "zyzzyva")).toHaveLength(3)
  })
})

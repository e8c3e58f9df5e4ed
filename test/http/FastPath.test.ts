import type { Channel } from "@mattermost/types/channels"
import type { Team } from "@mattermost/types/teams"
import { createServer, request as httpRequest, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as FastPath from "../../src/http/FastPath.ts"
import { client4, newUser, unique } from "../support/Clients.ts"
import { teamOfTwo } from "../support/Teams.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { send, setCookies } from "./Fetch.ts"

/**
 * The fast path (src/http/FastPath.ts) answers exactly what the router answers. Three listeners share one database:
 * `fast`, a bare node:http server that hands every request to the fast path of the first node's services and
 * answers 599 when the fast path leaves it alone (so each case proves the fast path took it); `general`, a second
 * node with SERVICE_HTTP_FAST_PATH=false (the router's answer); and the first node itself, with the fast path in
 * front of its router as in production. Each case sends the same request to all three and compares status, headers
 * in order (Date aside; request ids, and the id and times of a created post, replaced) and body bytes.
 */
let node: TestServer
let general: TestServer
let fastServer: Server
let fastUrl: string

interface Exchange {
  readonly status: number
  /** Raw header lines in order, the Date left out and volatile values replaced. */
  readonly headers: ReadonlyArray<string>
  readonly body: string
}

interface Sent {
  readonly method?: "GET" | "POST"
  readonly path: string
  readonly headers?: Record<string, string>
  readonly body?: string
}

/** One request over node:http, so that headers come back as the raw lines the server wrote. */
const raw = (base: string, sent: Sent) =>
  new Promise<{ status: number; rawHeaders: Array<string>; body: string }>((resolve, reject) => {
    const { hostname, port } = new URL(base)
    const headers: Record<string, string> = { ...sent.headers }
    if (sent.body !== undefined) headers["content-length"] = String(Buffer.byteLength(sent.body))
    // The path as given (a URL would resolve dot segments before sending).
    const req = httpRequest({ hostname, port, path: sent.path, method: sent.method ?? "GET", headers, agent: false }, (res) => {
      let body = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => (body += chunk))
      res.on("end", () => resolve({ status: res.statusCode!, rawHeaders: res.rawHeaders, body }))
    })
    req.on("error", reject)
    req.end(sent.body)
  })

/** The answer with what differs between two answers of the same request replaced by placeholders. */
const exchange = async (base: string, sent: Sent): Promise<Exchange> => {
  const answer = await raw(base, sent)
  const lines: Array<[string, string]> = []
  for (let i = 0; i < answer.rawHeaders.length; i += 2) lines.push([answer.rawHeaders[i], answer.rawHeaders[i + 1]])
  const requestId = lines.find(([name]) => name === "x-request-id")?.[1]
  expect(requestId).toMatch(/^[a-z0-9]{26}$/)
  let body = answer.body.split(requestId!).join("<request>")
  const length = lines.find(([name]) => name === "content-length")?.[1]
  expect(Number(length)).toBe(Buffer.byteLength(answer.body))
  if (answer.status === 201) {
    const post = JSON.parse(answer.body) as { id: string; create_at: number }
    // A reply's thread grows with each of the three requests.
    body = body.split(post.id).join("<post>").split(String(post.create_at)).join("<time>").replace(/"reply_count":\d+/, `"reply_count":<n>`)
  }
  return {
    status: answer.status,
    headers: lines.filter(([name]) => name !== "Date").map(([name, value]) =>
      name === "x-request-id" ? `${name}: <request>` : name === "content-length" && answer.status === 201 ? `${name}: <length>` : `${name}: ${value}`
    ),
    body
  }
}

/** The same request through the fast path alone, the router alone, and a node with both: all three answers equal. */
const same = async (sent: Sent) => {
  const viaFast = await exchange(fastUrl, sent)
  expect(viaFast.status, `the fast path left ${sent.method ?? "GET"} ${sent.path} to the router`).not.toBe(599)
  const viaRouter = await exchange(general.url, sent)
  const viaNode = await exchange(node.url, sent)
  expect(viaFast).toEqual(viaRouter)
  expect(viaNode).toEqual(viaRouter)
  return viaFast
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
const json = { "content-type": "application/json" }

let owner: Awaited<ReturnType<typeof teamOfTwo>>["owner"]
let member: Awaited<ReturnType<typeof teamOfTwo>>["member"]
let channel: Channel
let privateChannel: Channel
let firstAdmin: Awaited<ReturnType<typeof newUser>>

/** `member` logged in as the web app does: the cookie header of that session, and its CSRF token. */
const cookieSession = async () => {
  const login = await send(`${node.url}/api/v4/users/login`, {
    method: "POST",
    headers: { "x-requested-with": "XMLHttpRequest" },
    json: { login_id: member.username, password: member.password }
  })
  expect(login.status).toBe(200)
  const cookies = setCookies(login.headers)
  const csrf = cookies.get("MMCSRF")!.value
  return { jar: `MMAUTHTOKEN=${cookies.get("MMAUTHTOKEN")!.value}; MMCSRF=${csrf}`, csrf }
}

beforeAll(async () => {
  node = await startServer({ env: { SERVICE_CORS_ALLOWED_ORIGINS: "https://chat.example.com" } })
  general = await startServer({
    databaseUrl: node.databaseUrl,
    env: { SERVICE_HTTP_FAST_PATH: "false", SERVICE_CORS_ALLOWED_ORIGINS: "https://chat.example.com" }
  })
  const fast = await node.runtime.runPromise(FastPath.make)
  fastServer = createServer((req, res) => {
    if (fast(req, res)) return
    req.resume()
    res.writeHead(599)
    res.end()
  })
  await new Promise<void>((resolve) => fastServer.listen(0, "127.0.0.1", resolve))
  fastUrl = `http://127.0.0.1:${(fastServer.address() as AddressInfo).port}`
  firstAdmin = await newUser(node.url, "fastadmin")
  const team = await teamOfTwo(node.url, ["fastowner", "fastmember"])
  owner = team.owner
  member = team.member
  channel = await owner.client.createChannel({ team_id: team.team.id, name: unique("ch"), display_name: "Fast", type: "O" } as Channel)
  privateChannel = await owner.client.createChannel({ team_id: team.team.id, name: unique("pr"), display_name: "Closed", type: "P" } as Channel)
  await member.client.addToChannel(member.user.id, channel.id)
  for (let i = 0; i < 5; i++) await owner.client.createPost({ channel_id: channel.id, message: `message ${i} for @${member.username}` } as never)
})

afterAll(async () => {
  await new Promise((resolve) => fastServer?.close(resolve))
  await general?.close()
  await node?.close()
})

describe("GET /api/v4/users/me on the fast path", () => {
  it("answers a session's own record as the router does, whichever way the token comes", async () => {
    const token = owner.client.getToken()
    const first = await same({ path: "/api/v4/users/me", headers: bearer(token) })
    expect(first.status).toBe(200)
    expect(first.headers.slice(0, 2)).toEqual(["content-type: application/json", `content-length: ${Buffer.byteLength(first.body)}`])
    expect(JSON.parse(first.body).id).toBe(owner.user.id)
    // Again, now that the session and the user are cached (the answer decided without an effect).
    await same({ path: "/api/v4/users/me", headers: bearer(token) })
    await same({ path: "/api/v4/users/me", headers: { authorization: `Token ${token}` } })
    await same({ path: "/api/v4/users/me", headers: { cookie: `MMAUTHTOKEN=${token}` } })
    await same({ path: "/api/v4/users/me?_=1", headers: bearer(token) })
    const cors = await same({ path: "/api/v4/users/me", headers: { ...bearer(token), origin: "https://chat.example.com" } })
    expect(cors.headers).toContain("access-control-allow-origin: https://chat.example.com")
  })

  it("refuses a missing, malformed or forged token with the router's 401", async () => {
    const none = await same({ path: "/api/v4/users/me" })
    expect(none.status).toBe(401)
    expect(none.headers.some((h) => h.startsWith("set-cookie: MMAUTHTOKEN=;"))).toBe(true)
    expect(JSON.parse(none.body).id).toBe("api.context.session_expired.app_error")
    await same({ path: "/api/v4/users/me", headers: bearer("not-a-token") })
    const token = owner.client.getToken()
    await same({ path: "/api/v4/users/me", headers: bearer(`${token.slice(0, -4)}AAAA`) })
  })

  it("refuses a revoked session at once, though it was just answered from memory", async () => {
    const subject = await newUser(node.url, "fastrevoke")
    const login = async () => {
      const answer = await send(`${node.url}/api/v4/users/login`, { method: "POST", json: { login_id: subject.username, password: subject.password } })
      return answer.headers.get("token")!
    }
    // Logout: the session ends, and the next request on it is refused.
    const token = await login()
    expect((await same({ path: "/api/v4/users/me", headers: bearer(token) })).status).toBe(200)
    expect((await exchange(fastUrl, { path: "/api/v4/users/me", headers: bearer(token) })).status).toBe(200)
    expect((await send(`${node.url}/api/v4/users/logout`, { method: "POST", headers: bearer(token) })).status).toBe(200)
    // (The router's node is left out from here: with an in-memory cache, a node sees only its own revocations.)
    expect((await exchange(fastUrl, { path: "/api/v4/users/me", headers: bearer(token) })).status).toBe(401)
    expect((await exchange(node.url, { path: "/api/v4/users/me", headers: bearer(token) })).status).toBe(401)
    // Revoking every session of the user (as a password change does) from another session.
    const second = await login()
    expect((await exchange(fastUrl, { path: "/api/v4/users/me", headers: bearer(second) })).status).toBe(200)
    const revoked = await send(`${node.url}/api/v4/users/${subject.user.id}/sessions/revoke/all`, { method: "POST", headers: bearer(subject.client.getToken()) })
    expect(revoked.status).toBe(200)
    expect((await exchange(fastUrl, { path: "/api/v4/users/me", headers: bearer(second) })).status).toBe(401)
    // A deactivated user: their sessions end with it.
    const third = await login()
    expect((await exchange(fastUrl, { path: "/api/v4/users/me", headers: bearer(third) })).status).toBe(200)
    await firstAdmin.client.updateUserActive(subject.user.id, false)
    expect((await exchange(fastUrl, { path: "/api/v4/users/me", headers: bearer(third) })).status).toBe(401)
  })
})

describe("a channel's posts on the fast path", () => {
  const page = (query = "?page=0&per_page=60") => `/api/v4/channels/${channel.id}/posts${query}`

  it("answers pages, since and before/after as the router does", async () => {
    const token = member.client.getToken()
    const first = await same({ path: page(), headers: bearer(token) })
    expect(first.status).toBe(200)
    const list = JSON.parse(first.body) as { order: Array<string>; posts: Record<string, { type: string }> }
    const order = list.order
    // The five posts written by the setup, besides the system posts of the members' joins (as Mattermost writes them).
    expect(order.filter((id) => !list.posts[id].type.startsWith("system_")).length).toBe(5)
    await same({ path: page(""), headers: bearer(token) })
    await same({ path: page("?page=1&per_page=2"), headers: bearer(token) })
    await same({ path: page(`?before=${order[1]}&per_page=2`), headers: bearer(token) })
    await same({ path: page("?since=1"), headers: bearer(token) })
    await same({ path: page("?collapsedThreads=true&collapsedThreadsExtended=true"), headers: bearer(token) })
  })

  it("answers a repeated query (remembered once decoded) as the first time, and refuses a bad one every time", async () => {
    const token = member.client.getToken()
    const first = await same({ path: page("?page=0&per_page=3"), headers: bearer(token) })
    expect(first.status).toBe(200)
    expect((JSON.parse(first.body) as { order: Array<string> }).order).toHaveLength(3)
    for (let i = 0; i < 2; i++) {
      expect(await same({ path: page("?page=0&per_page=3"), headers: bearer(token) })).toEqual(first)
      expect((await same({ path: page("?per_page=many"), headers: bearer(token) })).status).toBe(400)
    }
    const second = await same({ path: page("?page=1&per_page=3"), headers: bearer(token) })
    expect((JSON.parse(second.body) as { order: Array<string> }).order).not.toEqual((JSON.parse(first.body) as { order: Array<string> }).order)
  })

  it("answers the router's errors: no session, bad query, unknown and closed channels", async () => {
    const token = member.client.getToken()
    expect((await same({ path: page() })).status).toBe(401)
    expect((await same({ path: page("?per_page=many"), headers: bearer(token) })).status).toBe(400)
    expect((await same({ path: page("?page=-1"), headers: bearer(token) })).status).toBe(400)
    expect((await same({ path: `/api/v4/channels/${"a".repeat(26)}/posts`, headers: bearer(token) })).status).toBe(404)
    expect((await same({ path: `/api/v4/channels/${privateChannel.id}/posts`, headers: bearer(token) })).status).toBe(403)
  })

  it("leaves ids that are not ids, and targets the router would normalise, to the router", async () => {
    const token = member.client.getToken()
    for (const path of [`/api/v4/channels/not-an-id/posts`, `/api/v4/channels/${channel.id}/posts/`, `/api/v4/channels/${channel.id}/%70osts`]) {
      expect((await raw(fastUrl, { path, headers: bearer(token) })).status).toBe(599)
    }
  })
})

describe("POST /api/v4/posts on the fast path", () => {
  const post = (body: unknown, headers: Record<string, string>) =>
    same({ method: "POST", path: "/api/v4/posts", headers: { ...json, ...headers }, body: typeof body === "string" ? body : JSON.stringify(body) })

  it("creates posts as the router does", async () => {
    const token = member.client.getToken()
    const created = await post({ channel_id: channel.id, message: `hello @${owner.username}` }, bearer(token))
    expect(created.status).toBe(201)
    expect(created.body).toContain(`"message":"hello @${owner.username}"`)
    const root = JSON.parse((await raw(fastUrl, { method: "POST", path: "/api/v4/posts", headers: { ...json, ...bearer(token) }, body: JSON.stringify({ channel_id: channel.id, message: "a root" }) })).body) as { id: string }
    expect((await post({ channel_id: channel.id, message: "a reply", root_id: root.id }, bearer(token))).status).toBe(201)
    expect((await same({ method: "POST", path: "/api/v4/posts?set_online=false", headers: { ...json, ...bearer(token) }, body: JSON.stringify({ channel_id: channel.id, message: "quiet" }) })).status).toBe(201)
  })

  it("answers the router's errors: bad JSON, bad fields, unknown and closed channels, no session", async () => {
    const token = member.client.getToken()
    expect((await post("{not json", bearer(token))).status).toBe(400)
    expect((await post("", bearer(token))).status).toBe(400)
    expect((await post({ message: "no channel" }, bearer(token))).status).toBe(400)
    expect((await post({ channel_id: channel.id, message: 7 }, bearer(token))).status).toBe(400)
    expect((await post({ channel_id: channel.id, message: "" }, bearer(token))).status).toBe(400)
    expect((await post({ channel_id: "a".repeat(26), message: "nowhere" }, bearer(token))).status).toBe(404)
    expect((await post({ channel_id: privateChannel.id, message: "not mine" }, bearer(token))).status).toBe(403)
    expect((await post({ channel_id: channel.id, message: "anonymous" }, {})).status).toBe(401)
    expect((await post({ channel_id: channel.id, message: "x" }, bearer("forged"))).status).toBe(401)
  })

  it("applies the CSRF rule to cookie sessions as the router does", async () => {
    const { jar, csrf } = await cookieSession()
    const forged = await post({ channel_id: channel.id, message: "forged" }, { cookie: jar })
    expect(forged.status).toBe(401)
    expect(JSON.parse(forged.body).detailed_error).toBe("Appears to be a CSRF attempt.")
    expect((await post({ channel_id: channel.id, message: "wrong token" }, { cookie: jar, "x-csrf-token": "nope" })).status).toBe(401)
    expect((await post({ channel_id: channel.id, message: "with token" }, { cookie: jar, "x-csrf-token": csrf })).status).toBe(201)
    expect((await post({ channel_id: channel.id, message: "from the app" }, { cookie: jar, "x-requested-with": "XMLHttpRequest" })).status).toBe(201)
  })

  it("counts its requests in the metrics as the router does", async () => {
    const count = async () => {
      const text = (await send(`${node.url}/api/v1/health/metrics`)).text
      return Number(/service_http_requests_total\{status="201"\} (\d+)/.exec(text)?.[1] ?? 0)
    }
    const before = await count()
    await raw(node.url, { method: "POST", path: "/api/v4/posts", headers: { ...json, ...bearer(member.client.getToken()) }, body: JSON.stringify({ channel_id: channel.id, message: "counted" }) })
    expect(await count()).toBe(before + 1)
  })
})

describe("POST /api/v4/channels/members/me/view on the fast path", () => {
  const VIEW = "/api/v4/channels/members/me/view"
  const view = (body: unknown, headers: Record<string, string>) =>
    same({ method: "POST", path: VIEW, headers: { ...json, ...headers }, body: typeof body === "string" ? body : JSON.stringify(body) })
  /** Something unread in the channel for `member`, so that the next view changes their row on every node. */
  const unreadFor = () => owner.client.createPost({ channel_id: channel.id, message: "unread again" } as never)

  it("marks channels viewed as the router does", async () => {
    const token = member.client.getToken()
    // Each node's view finds the channel read by the previous one (its last_viewed_at kept): the answers agree.
    await unreadFor()
    const first = await view({ channel_id: channel.id, prev_channel_id: "" }, bearer(token))
    expect(first.status).toBe(200)
    expect(Object.keys(JSON.parse(first.body).last_viewed_at_times)).toEqual([channel.id])
    await view({ channel_id: channel.id }, bearer(token))
    await view({ channel_id: "", prev_channel_id: channel.id, collapsed_threads_supported: true }, bearer(token))
    expect((await view({}, bearer(token))).body).toBe(`{"status":"OK","last_viewed_at_times":{}}`)
  })

  it("answers the router's errors: bad JSON, bad fields, unknown and closed channels, no session", async () => {
    const token = member.client.getToken()
    expect((await view("{not json", bearer(token))).status).toBe(400)
    expect((await view("", bearer(token))).status).toBe(400)
    expect((await view({ channel_id: 7 }, bearer(token))).status).toBe(400)
    expect((await view({ channel_id: "not-an-id" }, bearer(token))).status).toBe(400)
    // A channel the caller is not in (or that does not exist) is left alone: an empty answer, not an error.
    expect((await view({ channel_id: "a".repeat(26) }, bearer(token))).body).toBe(`{"status":"OK","last_viewed_at_times":{}}`)
    expect((await view({ channel_id: privateChannel.id }, bearer(token))).body).toBe(`{"status":"OK","last_viewed_at_times":{}}`)
    expect((await view({ channel_id: channel.id }, {})).status).toBe(401)
    expect((await view({ channel_id: channel.id }, bearer("forged"))).status).toBe(401)
  })

  it("applies the CSRF rule to cookie sessions as the router does", async () => {
    const { jar, csrf } = await cookieSession()
    const forged = await view({ channel_id: channel.id }, { cookie: jar })
    expect(forged.status).toBe(401)
    expect(JSON.parse(forged.body).detailed_error).toBe("Appears to be a CSRF attempt.")
    expect((await view({ channel_id: channel.id }, { cookie: jar, "x-csrf-token": "nope" })).status).toBe(401)
    expect((await view({ channel_id: channel.id }, { cookie: jar, "x-csrf-token": csrf })).status).toBe(200)
    expect((await view({ channel_id: channel.id }, { cookie: jar, "x-requested-with": "XMLHttpRequest" })).status).toBe(200)
  })

  it("leaves other users, other spellings and bodies without a length to the router", async () => {
    const token = member.client.getToken()
    const body = JSON.stringify({ channel_id: channel.id })
    for (const path of [`/api/v4/channels/members/${member.user.id}/view`, `${VIEW}/`, "/api/v4/channels/members/me/./view"]) {
      expect((await raw(fastUrl, { method: "POST", path, headers: { ...json, ...bearer(token) }, body })).status, path).toBe(599)
    }
    expect((await raw(fastUrl, { path: VIEW, headers: bearer(token) })).status).toBe(599)
  })
})

describe("GET /api/v4/users/me/teams/unread on the fast path", () => {
  const UNREAD = "/api/v4/users/me/teams/unread"

  it("answers the caller's unread counts as the router does", async () => {
    const token = member.client.getToken()
    await owner.client.createPost({ channel_id: channel.id, message: `unread for @${member.username}` } as never)
    const first = await same({ path: UNREAD, headers: bearer(token) })
    expect(first.status).toBe(200)
    const teams = JSON.parse(first.body) as Array<{ msg_count: number; mention_count: number }>
    expect(teams.length).toBe(1)
    expect(teams[0].mention_count).toBeGreaterThan(0)
    await same({ path: `${UNREAD}?include_collapsed_threads=true`, headers: bearer(token) })
    await same({ path: `${UNREAD}?exclude_team=${"b".repeat(26)}&include_collapsed_threads=false`, headers: bearer(token) })
    await same({ path: UNREAD, headers: { cookie: `MMAUTHTOKEN=${token}`, origin: "https://chat.example.com" } })
  })

  it("answers the router's errors: no session, forged token", async () => {
    expect((await same({ path: UNREAD })).status).toBe(401)
    expect((await same({ path: UNREAD, headers: bearer("forged") })).status).toBe(401)
  })

  it("leaves other users and other spellings to the router", async () => {
    const token = member.client.getToken()
    for (const path of [`/api/v4/users/${member.user.id}/teams/unread`, `${UNREAD}/`, "/api/v4/users/me/teams/%75nread", `${UNREAD}?exclude_team=%00`]) {
      expect((await raw(fastUrl, { path, headers: bearer(token) })).status, path).toBe(599)
    }
    // An encoded query (the only way to a malformed one here) reaches the router on the node, which refuses it.
    expect((await raw(node.url, { path: `${UNREAD}?exclude_team=%00`, headers: bearer(token) })).status).toBe(400)
  })
})

describe("left to the router", () => {
  it("other routes and methods, and paths that only look like the fast ones", async () => {
    const token = owner.client.getToken()
    for (const path of ["/api/v4/users/me/teams", "/api/v4/users/me/", "/api/v4/users/mex", "/api/v4/users/./me", "/api/v4/posts/ids"]) {
      expect((await raw(fastUrl, { path, headers: bearer(token) })).status, path).toBe(599)
    }
    expect((await raw(fastUrl, { method: "POST", path: "/api/v4/users/me", headers: bearer(token) })).status).toBe(599)
    // On the node they reach the router, which serves them.
    const teams: Array<Team> = await owner.client.getMyTeams()
    expect(teams.length).toBe(1)
  })
})

import type { Channel } from "@mattermost/types/channels"
import type { Team } from "@mattermost/types/teams"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { newUser, unique } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { RawSocket, wsUrl } from "../realtime/Sockets.ts"
import { MATTERMOST_ERROR_KEYS, send } from "./Fetch.ts"

/** Decode errors in a person's words, bounded, and values the database cannot store refused before any query. */
let server: TestServer
let token = ""
let team: Team
let channel: Channel
let otherId = ""

const auth = () => ({ Authorization: `Bearer ${token}` })

describe("hostile input", () => {
  beforeAll(async () => {
    server = await startServer()
    const admin = await newUser(server.url, "hostile")
    const other = await newUser(server.url, "hostile2")
    otherId = other.user.id
    token = admin.client.getToken()
    team = await admin.client.createTeam({ name: unique("h"), display_name: "H", type: "O" } as Team)
    channel = await admin.client.createChannel({ team_id: team.id, name: unique("h"), display_name: "H", type: "O" } as Channel)
  })
  afterAll(async () => {
    await server?.close()
  })

  it("names the parameter and what it accepts, without Schema internals", async () => {
    const r = await send(`${server.url}/api/v4/channels`, {
      method: "POST",
      headers: auth(),
      json: { team_id: "abc", name: "x", display_name: "X", type: "O" }
    })
    expect(r.status).toBe(400)
    expect(r.body.id).toBe("api.context.invalid_param.app_error")
    expect(r.body.message).toMatch(/team_id/)
    expect(r.body.detailed_error).toMatch(/team_id/)
    expect(r.body.detailed_error).toMatch(/"abc"/)
    for (const text of [r.body.message, r.body.detailed_error]) expect(text).not.toMatch(/Struct|Encoded|Transformation|<->|readonly/)

    const missing = await send(`${server.url}/api/v4/channels`, { method: "POST", headers: auth(), json: { team_id: team.id } })
    expect(missing.status).toBe(400)
    expect(missing.body.message).toMatch(/name: is required/)
  })

  it("quotes at most a hundred characters of a huge wrong-typed value", async () => {
    const huge = "y".repeat(900_000)
    const r = await send(`${server.url}/api/v4/channels`, { method: "POST", headers: auth(), json: { team_id: team.id, name: unique("q"), display_name: "Q", type: huge } })
    expect(r.status).toBe(400)
    expect(r.text.length).toBeLessThan(2000)
    expect(r.body.detailed_error).toMatch(/900000 characters/)
  })

  it("answers JSON nested 5,000 deep with a 400", async () => {
    const r = await send(`${server.url}/api/v4/posts`, {
      method: "POST",
      headers: { ...auth(), "content-type": "application/json" },
      body: `{"channel_id":"${channel.id}","message":"x","props":${"[".repeat(5000)}${"]".repeat(5000)}}`
    })
    expect(r.status).toBe(400)
    expect(r.body.message).toMatch(/nested more than 64 levels/)
  })

  it("refuses NUL characters, lone surrogates and numbers beyond bigint with a 400, not a 503", async () => {
    const nul = await send(`${server.url}/api/v4/posts`, { method: "POST", headers: auth(), json: { channel_id: channel.id, message: "a\u0000b" } })
    expect(nul.status).toBe(400)
    expect(nul.body.message).toMatch(/message contains a NUL character/)
    const surrogate = await send(`${server.url}/api/v4/posts`, {
      method: "POST",
      headers: { ...auth(), "content-type": "application/json" },
      body: `{"channel_id":"${channel.id}","message":"\\ud800"}`
    })
    expect(surrogate.status).toBe(400)
    expect(surrogate.body.message).toMatch(/unpaired UTF-16 surrogate/)
    for (const json of [{ channel_id: channel.id, message: "x", create_at: 9.3e18 }, { channel_id: channel.id, message: "x", props: { n: -1e300 } }]) {
      const big = await send(`${server.url}/api/v4/posts`, { method: "POST", headers: auth(), json })
      expect(big.status).toBe(400)
      expect(big.body.message).toMatch(/out of range/)
    }
    const page = await send(`${server.url}/api/v4/channels/${channel.id}/posts?page=99999999999999999999999&per_page=10`, { headers: auth() })
    expect(page.status).toBe(400)
    expect(page.body.message).toMatch(/page/)
    const since = await send(`${server.url}/api/v4/channels/${channel.id}/posts?since=1e400`, { headers: auth() })
    expect(since.status).toBe(400)
    const nulQuery = await send(`${server.url}/api/v4/users/search?term=a`, { method: "POST", headers: auth(), json: { term: "a\u0000" } })
    expect(nulQuery.status).toBe(400)
    const nulParam = await send(`${server.url}/api/v4/users?in_team=a%00b`, { headers: auth() })
    expect(nulParam.status).toBe(400)
  })

  it("answers a profile image upload with a multipart type and no boundary, or a broken body, with a 400", async () => {
    for (const contentType of ["multipart/form-data", "multipart/form-data; boundary=zzz"]) {
      const r = await send(`${server.url}/api/v4/users/me/image`, { method: "POST", headers: { ...auth(), "content-type": contentType }, body: "--zzz\r\nnot a part" })
      expect(r.status).toBe(400)
      expect(r.body.id).toBe("api.user.upload_profile_user.parse.app_error")
    }
  })

  it("answers a malformed multipart body with a 400 and the error body on every multipart route", async () => {
    const routes = [`/api/v4/files?channel_id=${channel.id}&filename=a.txt`, "/api/v4/emoji", "/api/v4/users/me/image"]
    const part = "Content-Disposition: form-data; name=\"image\"; filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\nabc"
    const malformed = [
      { contentType: "multipart/form-data", body: `--zzz\r\n${part}\r\n--zzz--\r\n` },
      { contentType: "multipart/form-data; boundary=", body: `--\r\n${part}\r\n----\r\n` },
      { contentType: "multipart/form-data; boundary=zzz", body: "garbage without parts" },
      { contentType: "multipart/form-data; boundary=zzz", body: `--zzz\r\n${part}` }
    ]
    for (const route of routes) {
      for (const m of malformed) {
        const r = await send(`${server.url}${route}`, { method: "POST", headers: { ...auth(), "content-type": m.contentType }, body: m.body })
        const what = `${route} with ${m.contentType}: ${r.status} ${r.text.slice(0, 200)}`
        expect(r.status, what).toBe(400)
        expect(Object.keys(r.body).sort(), what).toEqual(MATTERMOST_ERROR_KEYS)
      }
    }
  })

  it("user_typing takes an id or nothing as parent_id and is throttled per user and channel, whatever the thread or socket, keeping the newest", async () => {
    const headers = auth()
    const typist = new RawSocket(wsUrl(server.url), { headers })
    // The same user's other sockets, of both protocols: more sockets are not more typing events.
    const second = new RawSocket(wsUrl(server.url), { headers })
    const native = new RawSocket(wsUrl(server.url, "/api/v1/ws"), { headers })
    for (const s of [typist, second, native]) await s.waitFor((f) => f.event === "hello", "hello")
    const bad = { seq: 2, action: "user_typing", data: { channel_id: channel.id, parent_id: "p".repeat(60_000) } }
    typist.send(bad)
    const reply = await typist.reply(2)
    expect(reply.status).toBe("FAIL")
    // Many made-up threads within one second: one typing event reaches the channel.
    const { client } = await newUser(server.url, "watcher")
    const admin = (await import("../support/Clients.ts")).client4(server.url, token)
    await admin.addToTeam(team.id, (await client.getMe()).id)
    await admin.addToChannel((await client.getMe()).id, channel.id)
    const watcher = new RawSocket(wsUrl(server.url), { headers: { Authorization: `Bearer ${client.getToken()}` } })
    await watcher.waitFor((f) => f.event === "hello", "hello")
    for (let i = 0; i < 20; i++) {
      const socket = [typist, second, native][i % 3]
      socket.send({ seq: 10 + i, action: "user_typing", data: { channel_id: channel.id, parent_id: `${String(i).padStart(2, "0")}${"a".repeat(24)}` } })
    }
    await Promise.all([typist.reply(28), second.reply(29), native.reply(27)])
    // One event at once; the rest of the burst is held to the end of the second and only the newest goes out then.
    await watcher.waitFor((f) => watcher.frames.filter((g) => g.event === "typing").length === 2 && f.event === "typing", "the held typing event")
    // A marker event after the burst: everything before it has been delivered.
    await send(`${server.url}/api/v4/posts`, { method: "POST", headers, json: { channel_id: channel.id, message: "after typing" } })
    await watcher.waitFor((f) => f.event === "posted", "post")
    const typing = watcher.frames.filter((f) => f.event === "typing")
    expect(typing).toHaveLength(2)
    expect(new Set(typing.map((f) => f.data?.parent_id)).size).toBe(2)
    for (const s of [typist, second, native, watcher]) s.close()
    void otherId
  })
})

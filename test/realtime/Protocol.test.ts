import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { publish } from "./Fixture.ts"
import { eventually, MattermostSocket, RawSocket, sawSequenceGap, wsUrl } from "./Sockets.ts"

/** The /api/v4/websocket protocol itself: authentication, hello, replies, errors and the native socket. */
let server: TestServer
let alice: Awaited<ReturnType<typeof newUser>>
const open: Array<{ close: () => void }> = []
const track = <A extends { close: () => void }>(a: A) => {
  open.push(a)
  return a
}

beforeAll(async () => {
  server = await startServer()
  alice = await newUser(server.url, "alice")
})
afterAll(async () => {
  for (const s of open) s.close()
  await server?.close()
})

const token = () => alice.client.getToken()

describe("/api/v4/websocket authentication", () => {
  it("authenticates by challenge with the official client: hello at seq 0 with the server version, then an OK reply", async () => {
    const socket = track(new MattermostSocket(wsUrl(server.url), token()))
    await socket.connect()
    const hello = await socket.hello()
    expect(hello.seq).toBe(0)
    expect(hello.data?.connection_id).toMatch(/^[a-z0-9]{26}$/)
    const version = (await fetch(`${server.url}/api/v4/system/ping`)).headers.get("x-version-id")
    expect(hello.data?.server_version).toBe(version)
    expect(typeof hello.data?.server_hostname).toBe("string")
    expect(hello.broadcast?.user_id).toBe(alice.user.id)
    const pong = await socket.request<{ text: string; version: string; server_time: number; node_id: string }>("ping", null)
    expect(pong.status).toBe("OK")
    expect(pong.data.text).toBe("pong")
    expect(pong.data.version).toBe(String(version).split(".").slice(0, 3).join("."))
    expect(Math.abs(pong.data.server_time - Date.now())).toBeLessThan(5000)
    expect(sawSequenceGap()).toBe(false)
  })

  it("authenticates on upgrade by Authorization header, cookie or subprotocol, sending hello without a challenge", async () => {
    const byHeader = track(new RawSocket(wsUrl(server.url), { headers: { Authorization: `Bearer ${token()}` } }))
    const byCookie = track(new RawSocket(wsUrl(server.url), { headers: { Cookie: `MMAUTHTOKEN=${token()}` } }))
    const byProtocol = track(new RawSocket(wsUrl(server.url), { protocols: ["mm.v1", `auth.${token()}`] }))
    for (const s of [byHeader, byCookie, byProtocol]) {
      const hello = await s.waitFor((f) => f.event === "hello", "hello")
      expect(hello.seq).toBe(0)
    }
    // The token offered as a subprotocol is never echoed back.
    expect(byProtocol.ws.protocol).toBe("mm.v1")
  })

  it("ignores a repeated challenge on an authenticated socket (no reply)", async () => {
    const s = track(new RawSocket(wsUrl(server.url), { headers: { Authorization: `Bearer ${token()}` } }))
    await s.waitFor((f) => f.event === "hello", "hello")
    s.send({ action: "authentication_challenge", seq: 1, data: { token: token() } })
    s.send({ action: "ping", seq: 2 })
    await s.reply(2)
    expect(s.frames.some((f) => f.seq_reply === 1)).toBe(false)
  })

  it("never accepts a token in the URL query: the socket stays unauthenticated", async () => {
    const s = track(new RawSocket(`${wsUrl(server.url)}?access_token=${token()}&token=${token()}`))
    await s.opens()
    s.send({ action: "ping", seq: 1 })
    const reply = await s.reply(1)
    expect(reply.status).toBe("FAIL")
    expect(reply.error?.id).toBe("api.web_socket_router.not_authenticated.app_error")
    expect(s.events()).toHaveLength(0)
    // It can still authenticate the proper way.
    s.send({ action: "authentication_challenge", seq: 2, data: { token: token() } })
    expect((await s.reply(2)).status).toBe("OK")
    expect((await s.waitFor((f) => f.event === "hello", "hello")).seq).toBe(0)
  })

  it("closes the socket on a challenge with a bad token", async () => {
    const s = track(new RawSocket(wsUrl(server.url)))
    await s.opens()
    s.send({ action: "authentication_challenge", seq: 1, data: { token: "not-a-token" } })
    const closed = await s.waitClosed()
    expect(closed.code).toBe(1008)
    expect(s.events()).toHaveLength(0)
  })

  it("closes an unauthenticated socket after 5 seconds", async () => {
    const s = track(new RawSocket(wsUrl(server.url)))
    await s.opens()
    const opened = Date.now()
    const closed = await s.waitClosed(8000)
    const waited = Date.now() - opened
    expect(closed.code).toBe(1008)
    expect(closed.reason).toBe("authentication timeout")
    expect(waited).toBeGreaterThanOrEqual(4800)
    expect(waited).toBeLessThan(7000)
  }, 10_000)

  it("refuses a non-WebSocket request to the socket path with 400", async () => {
    const res = await fetch(`${server.url}/api/v4/websocket`)
    expect(res.status).toBe(400)
    expect(res.headers.get("content-type")).toBe("application/json")
  })
})

describe("/api/v4/websocket requests", () => {
  it("answers malformed frames and unknown actions with error replies, and the socket stays usable", async () => {
    const s = track(new RawSocket(wsUrl(server.url), { headers: { Authorization: `Bearer ${token()}` } }))
    await s.waitFor((f) => f.event === "hello", "hello")
    s.send("{not json")
    s.send("[1,2]")
    s.send({ action: "ping", seq: 0 })
    s.send({ action: "", seq: 5 })
    s.send({ action: "no_such_action", seq: 6 })
    s.ws.send(Buffer.from([1, 2, 3]), { binary: true })
    s.send({ action: "user_typing", seq: 7, data: { channel_id: "bad" } })
    s.send({ action: "get_statuses_by_ids", seq: 8, data: { user_ids: [] } })
    s.send({ action: "ping", seq: 9 })
    expect((await s.reply(9)).status).toBe("OK")
    const errors = s.frames.filter((f) => f.status === "FAIL")
    expect(errors.map((f) => [f.seq_reply, f.error?.id])).toEqual([
      [-1, "api.web_socket_router.bad_json.app_error"],
      [-1, "api.web_socket_router.bad_json.app_error"],
      [-1, "api.web_socket_router.bad_seq.app_error"],
      [5, "api.web_socket_router.no_action.app_error"],
      [6, "api.web_socket_router.bad_action.app_error"],
      [-1, "api.web_socket_router.bad_json.app_error"],
      [7, "api.websocket_handler.invalid_param.app_error"],
      [8, "api.websocket_handler.invalid_param.app_error"]
    ])
    // Replies never carry seq; only hello is numbered so far.
    expect(s.events().map((e) => e.seq)).toEqual([0])
    expect(s.closed).toBeUndefined()
  })

  it("answers status requests and presence", async () => {
    const bob = await newUser(server.url, "bob")
    const s = track(new MattermostSocket(wsUrl(server.url), token()))
    await s.connect()
    await s.hello()
    const byIds = await s.request<Record<string, string>>("get_statuses_by_ids", { user_ids: [alice.user.id, bob.user.id] })
    expect(byIds.data).toEqual({ [alice.user.id]: "online", [bob.user.id]: "offline" })
    const all = await s.request<Record<string, string>>("get_statuses", null)
    expect(all.data[alice.user.id]).toBe("online")
    expect((await s.request("presence", { channel_id: "c".repeat(26) })).status).toBe("OK")
  })
})

describe("/api/v1/ws, the native socket", () => {
  it("authenticates by Authorization header or subprotocol and sends the native envelope", async () => {
    const byHeader = track(new RawSocket(wsUrl(server.url, "/api/v1/ws"), { headers: { Authorization: `Bearer ${token()}` } }))
    const byProtocol = track(new RawSocket(wsUrl(server.url, "/api/v1/ws"), { protocols: ["service.v1", `auth.${token()}`] }))
    for (const s of [byHeader, byProtocol]) {
      const hello = await s.waitFor((f) => f.event === "hello", "hello")
      expect(hello).toMatchObject({ type: "event", event: "hello", seq: 0 })
      expect(typeof hello.created_at).toBe("number")
      expect(hello).not.toHaveProperty("broadcast")
      s.send({ action: "ping", seq: 1 })
      const reply = await s.reply(1)
      expect(reply).toMatchObject({ type: "reply", status: "ok", seq_reply: 1, data: { text: "pong" } })
      s.send({ action: "nope", seq: 2 })
      expect(await s.reply(2)).toMatchObject({ type: "reply", status: "error", error: { code: "api.web_socket_router.bad_action.app_error" } })
    }
    expect(byProtocol.ws.protocol).toBe("service.v1")
  })

  it("delivers events of every frame size intact on both sockets, in order (7-bit, 16-bit and 64-bit lengths)", async () => {
    // A user of its own: the earlier tests keep alice's sockets open up to her connection limit.
    const carol = await newUser(server.url, "carol")
    const headers = { Authorization: `Bearer ${carol.client.getToken()}` }
    const native = track(new RawSocket(wsUrl(server.url, "/api/v1/ws"), { headers }))
    const v4 = track(new RawSocket(wsUrl(server.url), { headers }))
    for (const s of [native, v4]) await s.waitFor((f) => f.event === "hello", "hello")
    // Payloads under 126 bytes (native only: a v4 frame's broadcast alone is longer), up to 64 KiB, and past it.
    const sizes = [0, 10, 300, 70_000, 200_000]
    for (const [i, size] of sizes.entries()) await publish(server, "custom_size", { i, text: "é".repeat(size) }, { user_id: carol.user.id })
    for (const s of [native, v4]) {
      await s.waitFor((f) => f.event === "custom_size" && f.data?.i === sizes.length - 1, "the largest frame")
      const got = s.events().filter((f) => f.event === "custom_size")
      expect(got.map((f) => [f.data?.i, (f.data?.text as string).length])).toEqual(sizes.map((size, i) => [i, size]))
      expect(got.map((f) => f.seq)).toEqual(got.map((_, i) => (got[0].seq as number) + i))
      expect(s.closed).toBeUndefined()
    }
  })

  it("refuses with 401 before the upgrade without a valid header token; cookies and query tokens do not count", async () => {
    const attempts: Array<{ headers?: Record<string, string> }> = [
      {},
      { headers: { Authorization: "Bearer nope" } },
      { headers: { Cookie: `MMAUTHTOKEN=${token()}` } }
    ]
    for (const options of attempts) {
      const s = track(new RawSocket(wsUrl(server.url, "/api/v1/ws"), options))
      await eventually(() => s.unexpected, "refusal")
      expect(s.unexpected?.status).toBe(401)
      expect(s.opened).toBe(false)
    }
    const q = track(new RawSocket(`${wsUrl(server.url, "/api/v1/ws")}?access_token=${token()}`))
    await eventually(() => q.unexpected, "refusal")
    expect(q.unexpected?.status).toBe(401)
  })
})

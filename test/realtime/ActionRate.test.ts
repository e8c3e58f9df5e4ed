import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { type Frame, RawSocket, wsUrl } from "./Sockets.ts"

/**
 * Each socket's frames draw from a token bucket (SERVICE_WS_ACTIONS_PER_SECOND, SERVICE_WS_ACTIONS_BURST): over it a
 * frame gets an error reply instead of an answer, and `burst` refusals in a row close the socket (1008 "too many
 * actions"), on both protocols. The abuse study's flood (2,000 status requests over one socket, 152 MB of replies)
 * ends after a bounded number of replies.
 */
const PER_SECOND = 4
const BURST = 5
const RATE_ID = "api.web_socket_router.rate_limit_exceeded.app_error"

let server: TestServer
let token: string
let userId: string
const sockets: Array<RawSocket> = []

beforeAll(async () => {
  server = await startServer({ env: { SERVICE_WS_ACTIONS_PER_SECOND: String(PER_SECOND), SERVICE_WS_ACTIONS_BURST: String(BURST) } })
  const { client, user } = await newUser(server.url, "rate")
  token = client.getToken()
  userId = user.id
})

afterAll(async () => {
  for (const s of sockets) s.close()
  await server?.close()
})

const open = async (protocol: "v4" | "native") => {
  const socket = new RawSocket(wsUrl(server.url, protocol === "v4" ? "/api/v4/websocket" : "/api/v1/ws"), {
    headers: { authorization: `Bearer ${token}` }
  })
  sockets.push(socket)
  await socket.opens()
  await socket.waitFor((f) => f.event === "hello", "hello")
  return socket
}

const statusRequest = (seq: number) => ({ action: "get_statuses_by_ids", seq, data: { user_ids: [userId] } })
const replies = (socket: RawSocket) => socket.frames.filter((f) => f.seq_reply !== undefined)
const isOk = (f: Frame) => f.status === "OK" || f.status === "ok"
const rateErrorId = (f: Frame) => (f.error as { id?: string; code?: string } | undefined)?.id ?? (f.error as { code?: string } | undefined)?.code

describe("the per-socket action rate", () => {
  for (const protocol of ["v4", "native"] as const) {
    it(`${protocol}: a flood gets ${BURST} answers, then error replies naming each frame, then the socket is closed 1008`, async () => {
      const socket = await open(protocol)
      const FLOOD = 2_000
      for (let seq = 1; seq <= FLOOD; seq++) socket.send(statusRequest(seq))
      const closed = await socket.waitClosed(10_000)
      expect(closed).toEqual({ code: 1008, reason: "too many actions" })

      const answered = replies(socket)
      const ok = answered.filter(isOk)
      const refused = answered.filter((f) => !isOk(f))
      console.log(`[realtime] ${protocol}: ${FLOOD} frames at once: ${ok.length} answered, ${refused.length} refused, then closed`)
      // The bucket's burst, and perhaps a token refilled while the flood was read; never the flood.
      expect(ok.length).toBeGreaterThanOrEqual(BURST)
      expect(ok.length).toBeLessThan(BURST + 4)
      // BURST refusals in a row close it; a token refilled during the flood may have broken a run once or twice.
      expect(refused.length).toBeGreaterThanOrEqual(BURST)
      expect(refused.length).toBeLessThan(4 * BURST)
      for (const reply of refused) expect(rateErrorId(reply)).toBe(RATE_ID)
      if (protocol === "v4") {
        expect(refused[0]).toMatchObject({ status: "FAIL", error: { id: RATE_ID, status_code: 429 } })
      } else {
        expect(refused[0]).toMatchObject({ type: "reply", status: "error", error: { code: RATE_ID } })
      }
      // Each refusal answers its own frame (seq_reply), so a client can tell which request was not served.
      const seqs = answered.map((f) => f.seq_reply as number)
      expect(new Set(seqs).size).toBe(seqs.length)
      expect(seqs.every((s) => s >= 1 && s <= FLOOD)).toBe(true)
    })
  }

  it("refuses a frame over the rate without closing, and serves again once the bucket refills", async () => {
    const socket = await open("v4")
    for (let seq = 1; seq <= BURST + 1; seq++) socket.send(statusRequest(seq))
    const refusal = await socket.reply(BURST + 1)
    expect(refusal).toMatchObject({ status: "FAIL", seq_reply: BURST + 1, error: { id: RATE_ID, status_code: 429 } })
    // One token comes back every 1/PER_SECOND s: a request every 1.5 tokens' time is served within two tries.
    let served: Frame | undefined
    for (let seq = BURST + 2; served === undefined && seq < BURST + 6; seq++) {
      await new Promise((r) => setTimeout(r, 1_500 / PER_SECOND))
      socket.send(statusRequest(seq))
      const reply = await socket.reply(seq)
      if (isOk(reply)) served = reply
    }
    if (served === undefined) throw new Error(`never served again: ${JSON.stringify(replies(socket))}`)
    expect(served.data).toEqual({ [userId]: "online" })
    expect(socket.closed).toBeUndefined()
  })

  it("never refuses a client within the rate", async () => {
    const socket = await open("native")
    for (let seq = 1; seq <= 12; seq++) {
      socket.send(statusRequest(seq))
      await socket.reply(seq)
      await new Promise((r) => setTimeout(r, 1_000 / PER_SECOND + 20))
    }
    expect(replies(socket).every(isOk)).toBe(true)
    expect(socket.closed).toBeUndefined()
  })
})

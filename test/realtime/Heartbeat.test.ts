import type { UserStatus } from "@mattermost/types/users"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { publish, stats } from "./Fixture.ts"
import { RawSocket, wsUrl } from "./Sockets.ts"

/** Polls an async check until it holds. */
const until = async (check: () => Promise<boolean>, what: string, timeoutMs = 5000) => {
  const started = Date.now()
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/** The ping heartbeat, on a server pinging every PING_MS so that a silent client is dropped within the test. */
const PING_MS = 1000
let server: TestServer

beforeAll(async () => {
  server = await startServer({ env: { SERVICE_WS_PING_INTERVAL_MS: String(PING_MS) } })
})
afterAll(() => server?.close())

describe("heartbeat", () => {
  it("drops a socket that stops answering pings, keeps one that answers, and lets the dropped one resume", async () => {
    const silent = await newUser(server.url, "silent")
    const lively = await newUser(server.url, "lively")
    const quiet = new RawSocket(wsUrl(server.url), { headers: { Authorization: `Bearer ${silent.client.getToken()}` }, autoPong: false })
    const answering = new RawSocket(wsUrl(server.url), { headers: { Authorization: `Bearer ${lively.client.getToken()}` } })
    let pings = 0
    quiet.ws.on("ping", () => void pings++)
    let answeredPings = 0
    answering.ws.on("ping", () => void answeredPings++)
    const hello = await quiet.waitFor((f) => f.event === "hello", "hello")
    await answering.waitFor((f) => f.event === "hello", "hello")
    // Online once admitted (the status is written just after hello); the first ping comes within one interval.
    await until(async () => (await silent.client.getStatus(silent.user.id) as UserStatus).status === "online", "the silent user online")

    // Pinged once and silent until the next beat: terminated without a closing handshake (1006 on the client).
    expect(await quiet.waitClosed(10 * PING_MS)).toMatchObject({ code: 1006 })
    expect(pings).toBeGreaterThanOrEqual(1)
    await until(async () => (await stats(server)).websocket_connections === 1, "one socket left")
    await until(async () => (await silent.client.getStatus(silent.user.id) as UserStatus).status === "offline", "the silent user offline")

    // The answering socket lives on across several beats and still takes requests: a ping arrives only once the
    // server has found the pong to the one before, so three more pings prove it kept the socket at two more beats.
    const seen = answeredPings
    await until(async () => answeredPings >= seen + 3 || answering.closed !== undefined, "three more pings", 10 * PING_MS)
    expect(answering.closed).toBeUndefined()
    answering.send({ seq: 1, action: "ping" })
    expect(await answering.reply(1)).toMatchObject({ status: "OK", data: { text: "pong" } })

    // Dropping the socket does not end the connection: the client resumes it and gets what it missed, no new hello.
    const lastSeq = Math.max(...quiet.events().map((f) => f.seq as number))
    await publish(server, "custom_missed", { n: 1 }, { user_id: silent.user.id })
    const connectionId = (hello.data as { connection_id: string }).connection_id
    const resumed = new RawSocket(`${wsUrl(server.url)}?connection_id=${connectionId}&sequence_number=${lastSeq + 1}`, {
      headers: { Authorization: `Bearer ${silent.client.getToken()}` }
    })
    const missed = await resumed.waitFor((f) => f.event === "custom_missed", "the missed event")
    // Everything after the last event it saw, in order with its numbers (its own status_change to offline first).
    const seqs = resumed.events().map((f) => f.seq as number)
    expect(seqs[0]).toBe(lastSeq + 1)
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => lastSeq + 1 + i))
    expect(seqs).toContain(missed.seq)
    expect(resumed.events().filter((f) => f.event === "hello")).toEqual([])
    resumed.close()
    answering.close()
  })
})

import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { newUser } from "../support/Clients.ts"
import { inOneMinute } from "../support/RateWindows.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { setMaxConnections } from "./Fixture.ts"
import { eventually, RawSocket, wsUrl } from "./Sockets.ts"

/** Connection limits on one node: the per-IP rate limit before the upgrade, the per-user limit, and shutdown. */
let server: TestServer
const logged: Array<string> = []
const RATE = 12

beforeAll(async () => {
  server = await startServer({
    env: { SERVICE_SECURITY_RATE_LIMIT_WS_PER_MINUTE: String(RATE), SERVICE_LOG_LEVEL: "warn" }
  })
  // The service logs through console.log; its lines are kept here to look for the refusal.
  console.log = (...args: Array<unknown>) => void logged.push(args.map(String).join(" "))
})
afterAll(() => server?.close())

describe("limits", () => {
  it("refuses the connections of a user over max_simultaneous_connections with a close reason and a log line", async () => {
    const user = await newUser(server.url, "limited")
    await setMaxConnections(server, 2)
    const headers = { Authorization: `Bearer ${user.client.getToken()}` }
    const sockets = [new RawSocket(wsUrl(server.url), { headers }), new RawSocket(wsUrl(server.url), { headers })]
    for (const s of sockets) await s.waitFor((f) => f.event === "hello", "hello")
    const third = new RawSocket(wsUrl(server.url), { headers })
    expect(await third.waitClosed()).toEqual({ code: 1008, reason: "Too many connections" })
    expect(logged.some((l) => l.includes("Too many connections"))).toBe(true)
    for (const s of sockets) s.close()
  })

  it("answers 429 with the rate-limit headers before the upgrade once an IP passes its connections per minute", async () => {
    const outcomes = await inOneMinute(async () => {
      const burst: Array<number> = []
      for (let i = 0; i < RATE + 2; i++) {
        const s = new RawSocket(wsUrl(server.url))
        const status = await new Promise<number>((resolve) => {
          s.ws.on("upgrade", () => resolve(101))
          s.ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0))
        })
        burst.push(status)
        if (status === 429) {
          const refused = await eventually(() => s.unexpected, "the refusal's body")
          expect(JSON.parse(refused.body)).toMatchObject({ error: { code: "RATE_LIMIT_EXCEEDED" } })
        }
        s.close()
      }
      return burst
    })
    expect(outcomes.at(-1)).toBe(429)
    expect(outcomes.filter((s) => s === 101).length).toBeLessThanOrEqual(RATE)
  })

  it("closes open sockets with 1001 when the node shuts down", async () => {
    // The rate limit is spent: a new server is needed for one more socket.
    const other = await startServer()
    const user = await newUser(other.url, "shutdown")
    const s = new RawSocket(wsUrl(other.url), { headers: { Authorization: `Bearer ${user.client.getToken()}` } })
    await s.waitFor((f) => f.event === "hello", "hello")
    await other.close()
    expect((await s.waitClosed()).code).toBe(1001)
  })
})

import { connect, type Socket } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * The listener's own limits (layers/HttpListener.ts), on raw TCP connections as a hostile client holds them: a body
 * that stalls is cut after SERVICE_HTTP_BODY_IDLE_TIMEOUT_MS, one that trickles after SERVICE_HTTP_REQUEST_TIMEOUT_MS,
 * headers that never end after SERVICE_HTTP_HEADERS_TIMEOUT_MS (before this, Node's 300 s), and one address gets at
 * most SERVICE_SECURITY_MAX_CONNECTIONS_PER_CLIENT connections (every loopback address is one client), the next one
 * answered 429. Short limits here; the defaults are in README.md.
 */
const BODY_IDLE_MS = 600
const REQUEST_MS = 2_500
const HEADERS_MS = 1_200
const CAP = 4

let server: TestServer
let proxied: TestServer
const open: Array<Socket> = []

beforeAll(async () => {
  const env = {
    SERVICE_HTTP_BODY_IDLE_TIMEOUT_MS: String(BODY_IDLE_MS),
    SERVICE_HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_MS),
    SERVICE_HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_MS),
    SERVICE_SECURITY_MAX_CONNECTIONS_PER_CLIENT: String(CAP)
  }
  server = await startServer({ env })
  // Behind a trusted proxy on loopback: requests count per forwarded address (held open here, so no short timeouts).
  proxied = await startServer({
    env: { SERVICE_SECURITY_MAX_CONNECTIONS_PER_CLIENT: String(CAP), SERVICE_TRUSTED_PROXIES: "127.0.0.1" },
    databaseUrl: server.databaseUrl
  })
})

afterAll(async () => {
  for (const s of open) s.destroy()
  await server?.close()
  await proxied?.close()
})

interface Conn {
  readonly socket: Socket
  /** Everything received so far. */
  readonly received: () => string
  /** Resolves with the time the server closed the connection. */
  readonly closed: Promise<number>
}

/** A connection from `localAddress` (any of 127.0.0.0/8 on Linux). */
const dial = (target: TestServer, localAddress = "127.0.0.1") =>
  new Promise<Conn>((resolve, reject) => {
    const socket = connect({ port: target.port, host: "127.0.0.1", localAddress })
    open.push(socket)
    let text = ""
    socket.on("data", (d) => (text += String(d)))
    socket.on("error", () => {})
    const closed = new Promise<number>((r) => socket.once("close", () => r(Date.now())))
    socket.once("connect", () => resolve({ socket, received: () => text, closed }))
    socket.once("error", reject)
  })

const loginHead = (length: number, extra = "") =>
  `POST /api/v4/users/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n${extra}\r\n`

const within = async (promise: Promise<number>, ms: number, what: string) => {
  const timer = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms))
  return Promise.race([promise, timer])
}

describe("slow requests", () => {
  it("cuts a body that stops sending after the body-idle timeout, with 408", async () => {
    const conn = await dial(server)
    conn.socket.write(loginHead(100) + `{"login_id":`)
    const started = Date.now()
    const closedAt = await within(conn.closed, 10_000, "the stalled body's connection closed")
    console.log(`[http] stalled body cut after ${closedAt - started} ms (body-idle timeout ${BODY_IDLE_MS} ms)`)
    expect(closedAt - started).toBeGreaterThanOrEqual(BODY_IDLE_MS - 100)
    expect(conn.received()).toMatch(/^HTTP\/1\.1 408 /)
  })

  it("cuts a body that trickles a byte at a time after the request timeout", async () => {
    const conn = await dial(server)
    conn.socket.write(loginHead(1_000))
    const started = Date.now()
    // A byte every 200 ms: never idle for the body-idle timeout, never done.
    const trickle = setInterval(() => conn.socket.writable && conn.socket.write(" "), 200)
    try {
      const closedAt = await within(conn.closed, 15_000, "the trickling body's connection closed")
      console.log(`[http] trickling body cut after ${closedAt - started} ms (request timeout ${REQUEST_MS} ms)`)
      expect(closedAt - started).toBeGreaterThanOrEqual(REQUEST_MS - 200)
      expect(closedAt - started).toBeLessThan(REQUEST_MS + 3_000)
      expect(conn.received()).toMatch(/^HTTP\/1\.1 408 /)
    } finally {
      clearInterval(trickle)
    }
  })

  it("cuts headers that never end after the headers timeout", async () => {
    const conn = await dial(server)
    conn.socket.write("GET /api/v4/system/ping HTTP/1.1\r\nHost: localhost\r\n")
    const started = Date.now()
    const trickle = setInterval(() => conn.socket.writable && conn.socket.write("X-Slow: 1\r\n"), 200)
    try {
      const closedAt = await within(conn.closed, 15_000, "the slow headers' connection closed")
      console.log(`[http] endless headers cut after ${closedAt - started} ms (headers timeout ${HEADERS_MS} ms)`)
      expect(closedAt - started).toBeGreaterThanOrEqual(HEADERS_MS - 200)
      expect(conn.received()).toMatch(/^HTTP\/1\.1 408 /)
    } finally {
      clearInterval(trickle)
    }
  })

  it("lets a body that arrives in time through, whatever the pauses under the idle timeout", async () => {
    const conn = await dial(server)
    const body = JSON.stringify({ login_id: "nobody", password: "wrong-password" })
    conn.socket.write(loginHead(Buffer.byteLength(body), "Connection: close\r\n"))
    for (const part of [body.slice(0, 10), body.slice(10, 20), body.slice(20)]) {
      await new Promise((r) => setTimeout(r, BODY_IDLE_MS / 3))
      conn.socket.write(part)
    }
    await within(conn.closed, 10_000, "the answer")
    expect(conn.received()).toMatch(/^HTTP\/1\.1 401 /)
  })
})

describe("the connection cap per client address", () => {
  /** A request on `conn`, answered: the status line. */
  const ping = async (conn: Conn, headers = "") => {
    const before = conn.received().length
    conn.socket.write(`GET /api/v4/system/ping HTTP/1.1\r\nHost: localhost\r\n${headers}\r\n`)
    const deadline = Date.now() + 10_000
    while (!/\r\n\r\n[\s\S]*\}/.test(conn.received().slice(before))) {
      if (Date.now() > deadline) throw new Error(`no answer: ${conn.received()}`)
      await new Promise((r) => setTimeout(r, 10))
    }
    return conn.received().slice(before).split("\r\n")[0]
  }

  it(`refuses the ${CAP + 1}th connection from one address with 429, and takes one again once another closed`, async () => {
    // Loopback addresses are one client, however spelled.
    const conns = [await dial(server, "127.0.0.1"), await dial(server, "127.0.0.2"), await dial(server, "127.0.0.1"), await dial(server, "127.0.0.3")]
    for (const conn of conns) expect(await ping(conn)).toBe("HTTP/1.1 200 OK")

    const refused = await dial(server)
    const refusedAt = await within(refused.closed, 5_000, "the refused connection closed")
    expect(refusedAt).toBeGreaterThan(0)
    const [head, body] = refused.received().split("\r\n\r\n")
    expect(head).toMatch(/^HTTP\/1\.1 429 /)
    expect(head.toLowerCase()).toContain("retry-after: 10")
    expect(JSON.parse(body)).toMatchObject({ id: "api.context.too_many_connections.app_error", status_code: 429 })
    // The ones already open are not disturbed.
    expect(await ping(conns[0])).toBe("HTTP/1.1 200 OK")

    conns[1].socket.destroy()
    await conns[1].closed
    const again = await (async () => {
      const deadline = Date.now() + 5_000
      for (;;) {
        const conn = await dial(server)
        const status = await ping(conn).catch(() => "refused")
        if (status === "HTTP/1.1 200 OK" || Date.now() > deadline) return status
        conn.socket.destroy()
      }
    })()
    expect(again).toBe("HTTP/1.1 200 OK")
  })

  it("behind a trusted proxy, counts each forwarded address's requests in flight instead of the proxy's connections", async () => {
    const body = JSON.stringify({ login_id: "nobody", password: "wrong-password" })
    const held: Array<Conn> = []
    // More connections from the proxy than the cap: its own address is not capped.
    for (let i = 0; i < CAP; i++) {
      const conn = await dial(proxied)
      conn.socket.write(loginHead(Buffer.byteLength(body), "X-Forwarded-For: 203.0.113.7\r\n") + body.slice(0, 5))
      held.push(conn)
    }
    const other = await dial(proxied)
    expect(await ping(other, "X-Forwarded-For: 198.51.100.9\r\n")).toBe("HTTP/1.1 200 OK")
    const same = await dial(proxied)
    expect(await ping(same, "X-Forwarded-For: 203.0.113.7\r\n")).toBe("HTTP/1.1 429 Too Many Requests")
    // The proxy's connection stays usable for other clients.
    expect(await ping(same, "X-Forwarded-For: 198.51.100.9\r\n")).toBe("HTTP/1.1 200 OK")
    // Once one of that client's requests is done, it may send another.
    held[0].socket.write(body.slice(5))
    await within(new Promise<number>((resolve) => {
      const poll = setInterval(() => held[0].received().includes("\r\n\r\n") && (clearInterval(poll), resolve(Date.now())), 10)
    }), 10_000, "the held request answered")
    expect(held[0].received()).toMatch(/^HTTP\/1\.1 401 /)
    const later = await dial(proxied)
    expect(await ping(later, "X-Forwarded-For: 203.0.113.7\r\n")).toBe("HTTP/1.1 200 OK")
  })
})

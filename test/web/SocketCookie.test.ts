import WebSocket from "ws"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * The web client's socket rides on the session cookie (it never sees the httpOnly token). The cookie counts when the
 * page is ours: Origin equal to the host the browser connected to (as Mattermost's gorilla check), the site URL or an
 * allowed CORS origin; another site's page gets no session from it.
 */
let server: TestServer
let cookie: string

beforeAll(async () => {
  server = await startServer()
  const user = await newUser(server.url, "sock")
  const login = await fetch(`${server.url}/api/v4/users/login`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-requested-with": "XMLHttpRequest" },
    body: JSON.stringify({ login_id: user.user.username, password: "correct-horse-battery" })
  })
  cookie = login.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ")
  expect(cookie).toContain("MMAUTHTOKEN=")
})
afterAll(async () => {
  await server?.close()
})

const open = (origin: string) =>
  new Promise<{ first: string | undefined; code: number | undefined }>((resolve, reject) => {
    const ws = new WebSocket(`${server.url.replace("http", "ws")}/api/v4/websocket`, { headers: { cookie, origin } })
    ws.once("message", (data) => {
      resolve({ first: String(data), code: undefined })
      ws.close()
    })
    ws.once("close", (code) => resolve({ first: undefined, code }))
    ws.once("error", reject)
  })

describe("cookie-authenticated sockets", () => {
  it("accepts the session cookie from a page of the host it connects to", async () => {
    const { first } = await open(server.url)
    expect(JSON.parse(first!)).toMatchObject({ event: "hello", seq: 0 })
  })

  it("ignores the cookie from another site's page (the socket is closed unauthenticated)", async () => {
    const { first, code } = await open("https://evil.example.net")
    expect(first).toBeUndefined()
    expect(code).toBe(1008)
  }, 10_000)
})

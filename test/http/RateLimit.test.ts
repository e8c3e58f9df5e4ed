import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest"
import { client4 } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { request } from "node:http"
import { send } from "./Fetch.ts"

/**
 * Two servers with a limit of 3 auth requests per minute: one trusting the default loopback proxies (so the tests can
 * speak for many clients through X-Forwarded-For) and one trusting only 10.9.9.9 (so forwarding headers are forged).
 */
let trusting: TestServer
let untrusting: TestServer
const env = { SERVICE_SECURITY_RATE_LIMIT_AUTH_PER_MINUTE: "3", SERVICE_LOG_LEVEL: "warn" }

beforeAll(async () => {
  ;[trusting, untrusting] = await Promise.all([
    startServer({ env: { ...env, SERVICE_TRUSTED_PROXIES: "127.0.0.0/8,::1/128" } }),
    startServer({ env }) // the default: no proxy is trusted
  ])
})
afterAll(() => Promise.all([trusting?.close(), untrusting?.close()]))

/** The limit counts fixed one-minute windows; starting a test just before a window ends would split its requests. */
beforeEach(async () => {
  const left = 60_000 - (Date.now() % 60_000)
  if (left < 8_000) await new Promise((resolve) => setTimeout(resolve, left + 50))
})

const login = (server: TestServer, headers: Record<string, string> = {}) =>
  send(`${server.url}/api/v4/users/login`, { method: "POST", headers, json: { login_id: "nobody", password: "wrong-password" } })

/** A failed login sent from a given local address (the peer address the server sees). */
const loginFrom = (server: TestServer, localAddress: string, headers: Record<string, string> = {}) =>
  new Promise<number>((resolve, reject) => {
    const body = JSON.stringify({ login_id: "nobody", password: "wrong-password" })
    const req = request(`${server.url}/api/v4/users/login`, {
      method: "POST",
      localAddress,
      agent: false,
      headers: { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(body) }
    }, (res) => {
      res.resume()
      res.on("end", () => resolve(res.statusCode ?? 0))
    })
    req.on("error", reject)
    req.end(body)
  })

const signup = (server: TestServer, n: string, headers: Record<string, string>) =>
  send(`${server.url}/api/v4/users`, {
    method: "POST",
    headers,
    json: { username: `limited${n}`, email: `limited${n}@example.com`, password: "correct-horse-battery" }
  })

describe("the auth rate limit", () => {
  it("answers the 4th login of a minute with 429, the rate-limit headers and the specified body", async () => {
    const client = { "x-forwarded-for": "203.0.113.10" }
    for (let i = 0; i < 3; i++) expect((await login(trusting, client)).status).toBe(401)
    const before = Math.floor(Date.now() / 1000)
    const limited = await login(trusting, client)
    expect(limited.status).toBe(429)
    expect(limited.headers.get("x-ratelimit-limit")).toBe("3")
    expect(limited.headers.get("x-ratelimit-remaining")).toBe("0")
    const reset = Number(limited.headers.get("x-ratelimit-reset"))
    expect(Number.isInteger(reset)).toBe(true)
    expect(reset).toBeGreaterThan(before)
    expect(reset).toBeLessThanOrEqual(before + 61)
    const retryAfter = Number(limited.headers.get("retry-after"))
    expect(Number.isInteger(retryAfter)).toBe(true)
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(60)
    expect(limited.body.error).toEqual({ code: "RATE_LIMIT_EXCEEDED", message: expect.any(String), retry_after: retryAfter })
    // Mattermost clients read the same error through their own fields.
    expect(limited.body).toMatchObject({ status_code: 429, request_id: limited.headers.get("x-request-id") })
    expect(limited.headers.get("content-type")).toBe("application/json")
  })

  it("counts sign-ups against the same budget", async () => {
    const client = { "x-forwarded-for": "203.0.113.11" }
    for (const n of ["a", "b", "c"]) expect((await signup(trusting, `${n}${Date.now() % 100000}`, client)).status).toBe(201)
    const limited = await signup(trusting, `d${Date.now() % 100000}`, client)
    expect(limited.status).toBe(429)
    expect(limited.body.error.code).toBe("RATE_LIMIT_EXCEEDED")
  })

  it("counts distinct clients behind a trusted proxy separately", async () => {
    for (let i = 0; i < 3; i++) await login(trusting, { "x-forwarded-for": "198.51.100.7" })
    expect((await login(trusting, { "x-forwarded-for": "198.51.100.7" })).status).toBe(429)
    expect((await login(trusting, { "x-forwarded-for": "198.51.100.8" })).status).toBe(401)
    // The right-most address not belonging to a trusted proxy is the client.
    expect((await login(trusting, { "x-forwarded-for": "198.51.100.7, 127.0.0.1" })).status).toBe(429)
    expect((await login(trusting, { "x-forwarded-for": "198.51.100.7, 198.51.100.9" })).status).toBe(401)
  })

  it("ignores forwarding headers forged by a peer that is not a trusted proxy (by default, even on loopback)", async () => {
    for (let i = 0; i < 3; i++) {
      expect((await login(untrusting, { "x-forwarded-for": `192.0.2.${i + 1}`, "x-real-ip": `192.0.2.${i + 100}` })).status).toBe(401)
    }
    const limited = await login(untrusting, { "x-forwarded-for": "192.0.2.50" })
    expect(limited.status).toBe(429)
    await expect(client4(untrusting.url).login("nobody", "wrong-password")).rejects.toMatchObject({ status_code: 429 })
  })

  it("logs the security event \"Rate limit exceeded\" with its severity", async () => {
    const lines: Array<string> = []
    const spy = vi.spyOn(console, "log").mockImplementation((...args: Array<unknown>) => void lines.push(args.join(" ")))
    try {
      for (let i = 0; i < 4; i++) await login(trusting, { "x-forwarded-for": "203.0.113.99" })
    } finally {
      spy.mockRestore()
    }
    const event = lines.find((l) => l.includes("Rate limit exceeded"))
    expect(event).toBeDefined()
    expect(event).toContain("severity=Warning")
    expect(event).toContain("client_ip=203.0.113.99")
    expect(event).toContain("level=WARN")
  })

  it("counts each spelling of one address once: IPv4-mapped IPv6 and IPv6 forms are normalised", async () => {
    const spellings = ["198.51.100.77", "::ffff:198.51.100.77", "::FFFF:c633:644d"]
    for (const spelling of spellings) expect((await login(trusting, { "x-forwarded-for": spelling })).status).toBe(401)
    expect((await login(trusting, { "x-forwarded-for": "198.51.100.77" })).status).toBe(429)
    const v6 = ["2001:db8::7", "2001:DB8:0:0:0:0:0:7", "2001:0db8::0007"]
    for (const spelling of v6) expect((await login(trusting, { "x-forwarded-for": spelling })).status).toBe(401)
    expect((await login(trusting, { "x-forwarded-for": "2001:db8::7" })).status).toBe(429)
  })

  it("counts an IPv6 client by its /64: a fresh address in the same block takes no fresh budget", async () => {
    // 2001:db8:aa:1::/64 is one subscriber's block; the addresses below are all theirs.
    const block = ["2001:db8:aa:1::1", "2001:db8:aa:1:ffff:ffff:ffff:ffff", "2001:DB8:AA:1:0:0:0:2"]
    for (const address of block) expect((await login(trusting, { "x-forwarded-for": address })).status).toBe(401)
    expect((await login(trusting, { "x-forwarded-for": "2001:db8:aa:1:1234::9" })).status).toBe(429)
    // The neighbouring /64 and an address written with "::" inside the prefix are other clients.
    expect((await login(trusting, { "x-forwarded-for": "2001:db8:aa:2::1" })).status).toBe(401)
    expect((await login(trusting, { "x-forwarded-for": "2001:db8:aa::1:1" })).status).toBe(401)
  })

  it("counts every loopback address as one client: ::1, 127.0.0.1 and the rest of 127.0.0.0/8", async () => {
    // Real connections from other loopback addresses, and the IPv6 loopback named by the (trusted) local proxy.
    expect(await loginFrom(trusting, "127.0.0.2")).toBe(401)
    expect(await loginFrom(trusting, "127.0.0.3")).toBe(401)
    expect((await login(trusting, { "x-forwarded-for": "0:0:0:0:0:0:0:1" })).status).toBe(401)
    expect(await loginFrom(trusting, "127.0.0.4")).toBe(429)
    expect((await login(trusting, { "x-forwarded-for": "::1" })).status).toBe(429)
    expect((await login(trusting, { "x-forwarded-for": "::ffff:127.0.0.1" })).status).toBe(429)
    // Another machine is still counted apart.
    expect((await login(trusting, { "x-forwarded-for": "198.51.100.78" })).status).toBe(401)
  })
})

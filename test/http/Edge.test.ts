import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client4, newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { MATTERMOST_ERROR_KEYS, type RawResponse, send } from "./Fetch.ts"

let server: TestServer
const ALLOWED = "https://app.example.com"

beforeAll(async () => {
  server = await startServer({ env: { SERVICE_CORS_ALLOWED_ORIGINS: `${ALLOWED},http://localhost:8065` } })
})
afterAll(() => server?.close())

const v4 = (path: string, init?: Parameters<typeof send>[1]) => send(`${server.url}/api/v4${path}`, init)

/** What every /api/v4 response carries, success or error. */
const expectV4Headers = (response: RawResponse) => {
  expect(response.headers.get("x-request-id")).toMatch(/^[a-z0-9]{26}$/)
  expect(response.headers.get("x-version-id")).toMatch(/^10\.11\.\d+\./)
  expect(response.headers.get("content-type")).toBe("application/json")
  expect(response.headers.has("cache-control")).toBe(false)
}

const expectMattermostError = (response: RawResponse, status: number) => {
  expect(response.status).toBe(status)
  expectV4Headers(response)
  expect(Object.keys(response.body).sort()).toEqual(MATTERMOST_ERROR_KEYS)
  expect(response.body.status_code).toBe(status)
  expect(response.body.request_id).toBe(response.headers.get("x-request-id"))
  expect(typeof response.body.id).toBe("string")
  expect(response.body.message).not.toBe("")
}

describe("the /api/v4 edge", () => {
  it("answers malformed JSON on sign-up and login with 400 and the Mattermost error body", async () => {
    for (const path of ["/users", "/users/login"]) {
      const response = await v4(path, { method: "POST", headers: { "content-type": "application/json" }, body: "{\"username\": " })
      expectMattermostError(response, 400)
      expect(response.body.id).toBe("api.context.invalid_body_param.app_error")
    }
  })

  it("answers missing or mistyped fields with 400 naming the problem", async () => {
    const missing = await v4("/users", { method: "POST", json: { username: "nopassword", email: "nopassword@example.com" } })
    expectMattermostError(missing, 400)
    expect(missing.body.message).toContain("password")

    const mistyped = await v4("/users", { method: "POST", json: { username: 42, email: "x@example.com", password: "long-enough-pw" } })
    expectMattermostError(mistyped, 400)

    const empty = await v4("/users/login", { method: "POST", json: {} })
    expectMattermostError(empty, 400)
    expect(empty.body.id).toBe("api.user.login.blank_login_id.app_error")

    const noBody = await v4("/users/login", { method: "POST" })
    expectMattermostError(noBody, 400)
  })

  it("answers an unknown route with 404 and the Mattermost error body", async () => {
    expectMattermostError(await v4("/no/such/route"), 404)
    expectMattermostError(await v4("/users/me/nothing-here", { method: "DELETE" }), 404)
  })

  it("puts X-Request-Id, X-Version-Id and exactly application/json on successes too", async () => {
    const signup = await v4("/users", {
      method: "POST",
      json: { username: "edgeheaders", email: "edgeheaders@example.com", password: "correct-horse-battery" }
    })
    expect(signup.status).toBe(201)
    expectV4Headers(signup)
    const login = await v4("/users/login", { method: "POST", json: { login_id: "edgeheaders", password: "correct-horse-battery" } })
    expect(login.status).toBe(200)
    expectV4Headers(login)
    const me = await v4("/users/me", { headers: { authorization: `Bearer ${login.headers.get("token")}` } })
    expect(me.status).toBe(200)
    expectV4Headers(me)
    expectMattermostError(await v4("/users/me"), 401)
  })

  it("gives each request its own id", async () => {
    const ids = new Set<string | null>()
    for (let i = 0; i < 3; i++) ids.add((await v4("/no/such/route")).headers.get("x-request-id"))
    expect(ids.size).toBe(3)
  })

  it("lets Client4 read the error id and status", async () => {
    await expect(client4(server.url).getMe()).rejects.toMatchObject({
      status_code: 401,
      server_error_id: "api.context.session_expired.app_error"
    })
  })
})

describe("the /api/v1 edge", () => {
  it("answers errors with the native body and no X-Version-Id", async () => {
    const response = await send(`${server.url}/api/v1/no/such/route`)
    expect(response.status).toBe(404)
    expect(response.headers.get("content-type")).toBe("application/json")
    expect(response.headers.has("x-version-id")).toBe(false)
    const requestId = response.headers.get("x-request-id")
    expect(requestId).toMatch(/^[a-z0-9]{26}$/)
    expect(response.body).toEqual({
      error: { code: "NOT_FOUND", id: "api.context.404.app_error", message: expect.any(String), request_id: requestId, status: 404 }
    })
  })

  it("serves health with a request id", async () => {
    const response = await send(`${server.url}/api/v1/health/live`)
    expect(response.status).toBe(200)
    expect(response.headers.get("x-request-id")).toMatch(/^[a-z0-9]{26}$/)
  })
})

describe("CORS from SERVICE_CORS_ALLOWED_ORIGINS", () => {
  it("answers a preflight from an allowed origin", async () => {
    const response = await v4("/users/login", {
      method: "OPTIONS",
      headers: { origin: ALLOWED, "access-control-request-method": "POST", "access-control-request-headers": "content-type,x-requested-with" }
    })
    expect(response.status).toBe(204)
    expect(response.headers.get("access-control-allow-origin")).toBe(ALLOWED)
    expect(response.headers.get("access-control-allow-credentials")).toBe("true")
    expect(response.headers.get("access-control-allow-methods")).toContain("POST")
    expect(response.headers.get("access-control-allow-headers")).toContain("x-requested-with")
  })

  it("does not allow a preflight from any other origin", async () => {
    const response = await v4("/users/login", {
      method: "OPTIONS",
      headers: { origin: "https://evil.example.net", "access-control-request-method": "POST" }
    })
    expect(response.headers.has("access-control-allow-origin")).toBe(false)
  })

  it("marks simple responses for allowed origins only and exposes the headers clients read", async () => {
    const allowed = await v4("/no/such/route", { headers: { origin: "http://localhost:8065" } })
    expect(allowed.headers.get("access-control-allow-origin")).toBe("http://localhost:8065")
    expect(allowed.headers.get("access-control-expose-headers")).toMatch(/Token.*X-Request-Id.*X-Version-Id/)
    expect(allowed.headers.get("vary")).toContain("Origin")
    const other = await v4("/no/such/route", { headers: { origin: "https://evil.example.net" } })
    expect(other.headers.has("access-control-allow-origin")).toBe(false)
    const none = await v4("/no/such/route")
    expect(none.headers.has("access-control-allow-origin")).toBe(false)
  })
})

describe("user objects", () => {
  it("never carry the password hash", async () => {
    const { client, user, username } = await newUser(server.url, "nohash")
    const me = await client.getMe()
    const created = await v4("/users", {
      method: "POST",
      json: { username: `${username}x`, email: `${username}x@example.com`, password: "correct-horse-battery" }
    })
    for (const body of [user, me, created.body]) {
      expect(body).not.toHaveProperty("password")
      expect(JSON.stringify(body)).not.toMatch(/\$argon2|\$2[aby]\$/)
    }
  })
})

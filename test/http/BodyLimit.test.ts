import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { JSON_BODY_LIMIT } from "../../src/http/Decode.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

let server: TestServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server?.close())

describe("JSON body limit", () => {
  it("answers an oversized JSON body with 413 and the Mattermost error body, without reading it", async () => {
    const body = JSON.stringify({ login_id: "x".repeat(JSON_BODY_LIMIT), password: "y" })
    const response = await fetch(`${server.url}/api/v4/users/login`, { method: "POST", body })
    expect(response.status).toBe(413)
    expect(response.headers.get("content-type")).toBe("application/json")
    expect(await response.json()).toMatchObject({ id: "api.context.request_body_too_large.app_error", status_code: 413 })
  })

  it("still accepts a large body under the limit", async () => {
    const body = JSON.stringify({ login_id: "nobody", password: "p".repeat(1024 * 1024) })
    const response = await fetch(`${server.url}/api/v4/users/login`, { method: "POST", body })
    expect(response.status).toBe(401)
  })
})

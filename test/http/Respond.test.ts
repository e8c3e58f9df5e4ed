import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { request } from "node:http"
import { newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/** JSON answers carry their Content-Length (no chunked encoding) and exactly `application/json`. */
let server: TestServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(async () => {
  await server?.close()
})

const get = (path: string, token: string) =>
  new Promise<{ headers: Record<string, string | Array<string> | undefined>; body: Buffer }>((resolve, reject) => {
    const req = request(`${server.url}${path}`, { headers: { Authorization: `Bearer ${token}` } }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }))
    })
    req.on("error", reject)
    req.end()
  })

describe("JSON responses", () => {
  it("carry Content-Length equal to the body's bytes, for successes and errors", async () => {
    const user = await newUser(server.url, "respond")
    const token = user.client.getToken()
    for (const path of ["/api/v4/users/me", "/api/v4/users/nosuchuseridxxxxxxxxxxxxxx1"]) {
      const res = await get(path, token)
      expect(res.headers["content-type"]).toBe("application/json")
      expect(res.headers["transfer-encoding"]).toBeUndefined()
      expect(Number(res.headers["content-length"])).toBe(res.body.length)
      expect(() => JSON.parse(res.body.toString("utf8"))).not.toThrow()
    }
  })
})

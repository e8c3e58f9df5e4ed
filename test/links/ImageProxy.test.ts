import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import sharp from "sharp"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { raw } from "../compat/Raw.ts"
import { newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * GET /api/v4/image (the image proxy the web client shows integrations' and previews' pictures through) against
 * loopback hosts: a picture comes back byte for byte as an image that runs nothing, is fetched once per node, and
 * nothing else passes: HTML calling itself a PNG, SVG, an internal address not allowed (127.0.0.2), a bad URL, or a
 * caller without a session.
 */

interface Host {
  readonly origin: string
  readonly hits: Map<string, number>
  readonly close: () => Promise<void>
}

let server: TestServer
let host: Host
let internal: Host
let alice: Awaited<ReturnType<typeof newUser>>
let png: Buffer

const startHost = async (address: string): Promise<Host> => {
  const hits = new Map<string, number>()
  const http: Server = createServer((req, res) => {
    const path = req.url ?? "/"
    hits.set(path, (hits.get(path) ?? 0) + 1)
    if (path.startsWith("/picture")) return void res.writeHead(200, { "content-type": "image/png" }).end(png)
    if (path === "/fake.png") return void res.writeHead(200, { "content-type": "image/png" }).end("<html><script>alert(1)</script></html>")
    if (path === "/drawing.svg") return void res.writeHead(200, { "content-type": "image/svg+xml" }).end("<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>")
    res.writeHead(404).end()
  })
  await new Promise<void>((resolve) => http.listen(0, address, resolve))
  return {
    origin: `http://${address}:${(http.address() as AddressInfo).port}`,
    hits,
    close: () => new Promise<void>((resolve) => { http.closeAllConnections(); http.close(() => resolve()) })
  }
}

beforeAll(async () => {
  png = await sharp({ create: { width: 40, height: 30, channels: 4, background: { r: 200, g: 10, b: 10, alpha: 1 } } }).png().toBuffer()
  host = await startHost("127.0.0.1")
  internal = await startHost("127.0.0.2")
  server = await startServer({ env: { SERVICE_ALLOW_INTERNAL_CONNECTIONS: "127.0.0.1" } })
  alice = await newUser(server.url, "alice")
})
afterAll(async () => {
  await server?.close()
  await host?.close()
  await internal?.close()
})

const proxied = (url: string) => raw(server.url, `/api/v4/image?url=${encodeURIComponent(url)}`, { token: alice.client.getToken() })

describe("image proxy", () => {
  it("serves a remote picture byte for byte, as an image that runs nothing, fetched once", async () => {
    const url = `${host.origin}/picture-${Date.now()}.png`
    const first = await proxied(url)
    expect(first.status).toBe(200)
    expect(first.type).toBe("image/png")
    expect(Buffer.from(first.body as Uint8Array).equals(png)).toBe(true)
    expect(first.headers.get("x-content-type-options")).toBe("nosniff")
    expect(first.headers.get("content-security-policy")).toContain("sandbox")
    const second = await proxied(url)
    expect(Buffer.from(second.body as Uint8Array).equals(png)).toBe(true)
    expect(host.hits.get(new URL(url).pathname)).toBe(1)
    const metadata = await sharp(Buffer.from(second.body as Uint8Array)).metadata()
    expect([metadata.width, metadata.height]).toEqual([40, 30])
  })

  it("refuses what is not a raster image, internal addresses, bad URLs and callers without a session", async () => {
    const fake = await proxied(`${host.origin}/fake.png`)
    expect([fake.status, fake.body.id]).toEqual([404, "api.image.get.app_error"])
    expect((await proxied(`${host.origin}/drawing.svg`)).status).toBe(404)
    expect((await proxied(`${host.origin}/missing.png`)).status).toBe(404)
    const inside = await proxied(`${internal.origin}/picture.png`)
    expect(inside.status).toBe(404)
    expect(internal.hits.size).toBe(0)
    for (const bad of ["", "javascript:alert(1)", "file:///etc/passwd", `${host.origin}/${"x".repeat(3000)}`]) {
      const refused = await proxied(bad)
      expect([refused.status, refused.body.id]).toEqual([400, "api.context.invalid_param.app_error"])
    }
    expect((await raw(server.url, "/api/v4/image", { token: alice.client.getToken() })).status).toBe(400)
    expect((await raw(server.url, `/api/v4/image?url=${encodeURIComponent(`${host.origin}/picture.png`)}`)).status).toBe(401)
  })
})

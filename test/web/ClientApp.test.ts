import { request } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * How the service serves its web client: index.html (never cached) for every path a person can open, hashed files
 * cached for a year, gzip when asked, and API, plugin, hook and OAuth paths never answered with the page. Also the
 * first-load budget: the JavaScript index.html loads (entry and preloads) is at most 150 KB compressed (dialogs are loaded when first opened).
 */
let server: TestServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(async () => {
  await server?.close()
})

/** Raw bytes as sent (fetch would decompress them). */
const raw = (path: string, headers: Record<string, string> = {}, method = "GET") =>
  new Promise<{ status: number; headers: Record<string, string | Array<string> | undefined>; body: Buffer }>((resolve, reject) => {
    const req = request(`${server.url}${path}`, { method, headers }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c) => chunks.push(c))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }))
    })
    req.on("error", reject)
    req.end()
  })

const scripts = (html: string) => [...html.matchAll(/(?:src|href)="(\/static\/[^"]+\.js)"/g)].map((m) => m[1])

describe("web client serving", () => {
  it("answers every page path with index.html, not cached, with a strict CSP and no referrer", async () => {
    for (const path of ["/", "/login?code=abc", "/signup_user_complete?id=x", "/acme/channels/town-square", "/acme/messages/@bob", "/admin_console/sso", "/oauth/gitlab/complete"]) {
      const response = await fetch(`${server.url}${path}`)
      expect(response.status, path).toBe(200)
      expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8")
      expect(response.headers.get("cache-control")).toBe("no-cache")
      expect(response.headers.get("referrer-policy")).toBe("no-referrer")
      expect(response.headers.get("content-security-policy")).toContain("script-src 'self'")
      expect(response.headers.get("x-frame-options")).toBe("DENY")
      const html = await response.text()
      expect(html).toContain(`<div id="app">`)
      expect(scripts(html).length).toBeGreaterThan(0)
    }
    const head = await raw("/", {}, "HEAD")
    expect(head.status).toBe(200)
    expect(head.body.length).toBe(0)
  })

  it("serves hashed files for a year, gzipped when accepted, and 404s unknown ones", async () => {
    const html = await (await fetch(`${server.url}/`)).text()
    // The entry script (the preloaded chunks before it may be under the 1 KB below which nothing is compressed).
    const main = html.match(/<script type="module" src="(\/static\/[^"]+\.js)"/)![1]
    const plain = await raw(main)
    expect(plain.status).toBe(200)
    expect(plain.headers["content-type"]).toBe("text/javascript; charset=utf-8")
    expect(plain.headers["cache-control"]).toBe("public, max-age=31536000, immutable")
    expect(plain.headers["content-encoding"]).toBeUndefined()
    const gzip = await raw(main, { "accept-encoding": "gzip, deflate, br" })
    expect(gzip.headers["content-encoding"]).toBe("gzip")
    expect(gzip.body.length).toBeLessThan(plain.body.length)
    const css = html.match(/href="(\/static\/[^"]+\.css)"/)![1]
    expect((await raw(css)).headers["content-type"]).toBe("text/css; charset=utf-8")
    const missing = await fetch(`${server.url}/static/main-NOTTHERE1.js`)
    expect(missing.status).toBe(404)
    expect(missing.headers.get("content-type")).toBe("application/json")
    // Only files of the build are reachable, however the path is spelled.
    for (const path of ["/static/../package.json", "/static/%2e%2e/package.json", "/static/..%2fpackage.json"]) {
      expect((await raw(path)).body.toString(), path).not.toContain("the-service")
    }
    expect((await fetch(`${server.url}/favicon.svg`)).headers.get("content-type")).toBe("image/svg+xml")
  })

  it("never answers API, plugin, hook or OAuth start paths with the page", async () => {
    for (const path of ["/api/v4/no-such-thing", "/api/v1/no-such-thing", "/plugins/some.plugin/x", "/hooks/abc", "/oauth/authorize", "/static"]) {
      const response = await fetch(`${server.url}${path}`)
      expect(response.status, path).toBe(404)
      expect(response.headers.get("content-type"), path).toBe("application/json")
    }
    const me = await fetch(`${server.url}/api/v4/users/me`)
    expect(me.status).toBe(401)
    expect((await fetch(`${server.url}/api/v1/health/live`)).headers.get("content-type")).toBe("application/json")
  })

  it("keeps the first load within 150 KB of compressed JavaScript", async () => {
    const html = await (await fetch(`${server.url}/`)).text()
    let total = 0
    for (const path of scripts(html)) {
      const response = await raw(path, { "accept-encoding": "gzip" })
      expect(response.status).toBe(200)
      total += response.body.length
    }
    expect(total).toBeGreaterThan(10_000)
    expect(total).toBeLessThanOrEqual(150 * 1024)
  })
})

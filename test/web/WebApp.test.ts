import { readFileSync } from "node:fs"
import { request } from "node:http"
import { fileURLToPath } from "node:url"
import { brotliDecompressSync, gunzipSync } from "node:zlib"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startServer, type TestServer } from "../support/TestServer.ts"

/** SERVICE_WEBAPP_DIR: a Mattermost web app build (the fixture in test/fixtures/webapp) served as Mattermost does. */
const FIXTURE = fileURLToPath(new URL("../fixtures/webapp", import.meta.url))
const ROOT_HTML = readFileSync(`${FIXTURE}/root.html`, "utf8")
const BUNDLE = readFileSync(`${FIXTURE}/main.0123abcd89.js`)

interface Raw {
  readonly status: number
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly body: Buffer
}

/** A request without any automatic decompression, so that the bytes on the wire are what is checked. */
const get = (base: string, path: string, headers: Record<string, string> = {}, method = "GET") =>
  new Promise<Raw>((resolve, reject) => {
    // The path is sent as written (a URL object would resolve `%2e%2e` before sending).
    const { hostname, port } = new URL(base)
    const req = request({ hostname, port, path, method, headers }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }))
    })
    req.on("error", reject)
    req.end()
  })

let server: TestServer
let plain: TestServer

beforeAll(async () => {
  ;[server, plain] = await Promise.all([startServer({ env: { SERVICE_WEBAPP_DIR: FIXTURE } }), startServer()])
})
afterAll(async () => {
  await Promise.all([server?.close(), plain?.close()])
})

describe("with SERVICE_WEBAPP_DIR", () => {
  it.each(["/", "/login", "/signup_user_complete", "/reset_password_complete", "/myteam/channels/town-square", "/myteam/messages/@alice", "/myteam/pl/x0000000000000000000000000", "/admin_console/user_management/users"])(
    "answers root.html, revalidated on every load, for %s",
    async (path) => {
      const response = await get(server.url, path)
      expect(response.status).toBe(200)
      expect(response.headers["content-type"]).toBe("text/html; charset=utf-8")
      expect(response.headers["cache-control"]).toMatch(/^no-cache/)
      expect(response.body.toString()).toBe(ROOT_HTML)
    }
  )

  it("sends Mattermost's security headers with root.html, allowing its inline script by hash", async () => {
    const response = await get(server.url, "/")
    expect(response.headers["x-frame-options"]).toBe("SAMEORIGIN")
    expect(response.headers["x-content-type-options"]).toBe("nosniff")
    expect(response.headers["referrer-policy"]).toBe("no-referrer")
    const csp = String(response.headers["content-security-policy"])
    expect(csp).toMatch(/^frame-ancestors 'self'; script-src 'self' 'sha256-[A-Za-z0-9+/=]+'$/)
    const { createHash } = await import("node:crypto")
    const inline = /<script>([\s\S]*?)<\/script>/.exec(ROOT_HTML)![1]
    expect(csp).toContain(`'sha256-${createHash("sha256").update(inline).digest("base64")}'`)
  })

  it("revalidates root.html with its ETag (304)", async () => {
    const first = await get(server.url, "/")
    const again = await get(server.url, "/some/page", { "if-none-match": String(first.headers.etag) })
    expect(again.status).toBe(304)
    expect(again.body.length).toBe(0)
  })

  it("serves hashed files under /static/ for a year, immutable", async () => {
    const response = await get(server.url, "/static/main.0123abcd89.js")
    expect(response.status).toBe(200)
    expect(response.headers["content-type"]).toBe("text/javascript; charset=utf-8")
    expect(response.headers["cache-control"]).toBe("public, max-age=31536000, immutable")
    expect(response.headers["x-content-type-options"]).toBe("nosniff")
    expect(response.body.equals(BUNDLE)).toBe(true)
  })

  it("caches unhashed files briefly and the manifest and service worker not at all", async () => {
    const emoji = await get(server.url, "/static/emoji/1f600.png")
    expect(emoji.status).toBe(200)
    expect(emoji.headers["content-type"]).toBe("image/png")
    expect(emoji.headers["cache-control"]).toBe("public, max-age=86400")
    const manifest = await get(server.url, "/static/manifest.json")
    expect(manifest.status).toBe(200)
    expect(JSON.parse(manifest.body.toString()).name).toBe("Mattermost")
    expect(manifest.headers["cache-control"]).toBe("no-cache, public")
    const worker = await get(server.url, "/static/service-worker.js")
    expect(worker.status).toBe(200)
    expect(worker.headers["cache-control"]).toBe("no-cache, public")
    expect(worker.headers["service-worker-allowed"]).toBe("/")
  })

  it("compresses with brotli or gzip as the client accepts, and not for a client that accepts neither", async () => {
    const br = await get(server.url, "/static/main.0123abcd89.js", { "accept-encoding": "gzip, deflate, br" })
    expect(br.headers["content-encoding"]).toBe("br")
    expect(br.headers.vary).toBe("Accept-Encoding")
    expect(brotliDecompressSync(br.body).equals(BUNDLE)).toBe(true)
    expect(br.body.length).toBeLessThan(BUNDLE.length)
    const gz = await get(server.url, "/static/main.0123abcd89.js", { "accept-encoding": "gzip;q=1, br;q=0" })
    expect(gz.headers["content-encoding"]).toBe("gzip")
    expect(gunzipSync(gz.body).equals(BUNDLE)).toBe(true)
    expect(gz.headers.etag).not.toBe(br.headers.etag)
    const identity = await get(server.url, "/static/main.0123abcd89.js", { "accept-encoding": "identity" })
    expect(identity.headers["content-encoding"]).toBeUndefined()
    expect(identity.body.equals(BUNDLE)).toBe(true)
    // Bodies under 1 KiB (the fixture's root.html) gain nothing from compression and go as they are.
    const html = await get(server.url, "/", { "accept-encoding": "br" })
    expect(html.headers["content-encoding"]).toBeUndefined()
    expect(html.body.toString()).toBe(ROOT_HTML)
  })

  it("prefers a precompressed file beside the original", async () => {
    const gz = await get(server.url, "/static/styles.5e1f0c2a9b.css", { "accept-encoding": "gzip" })
    expect(gz.headers["content-encoding"]).toBe("gzip")
    expect(gz.headers["content-type"]).toBe("text/css; charset=utf-8")
    expect(gunzipSync(gz.body).toString()).toContain("/* precompressed */")
  })

  it("answers 404 for missing files, directories and paths escaping the build, never root.html", async () => {
    for (const path of ["/static/missing.js", "/static/emoji/", "/static/", "/static/..%2f..%2fpackage.json", "/static/..%5c..%5cpackage.json", "/static/.hidden", "/static/%00.js"]) {
      const response = await get(server.url, path)
      expect(response.status, path).toBe(404)
      expect(response.body.toString(), path).not.toContain("<div id=\"root\">")
    }
    // Dot segments are resolved as URLs resolve them: the path leaves /static/ and is an application path.
    const dotted = await get(server.url, "/static/%2e%2e/%2e%2e/%2e%2e/package.json")
    expect(dotted.body.toString()).toBe(ROOT_HTML)
  })

  it("never swallows /api, /plugins, /hooks or /oauth", async () => {
    const unknownApi = await get(server.url, "/api/v4/no/such/route")
    expect(unknownApi.status).toBe(404)
    expect(JSON.parse(unknownApi.body.toString()).id).toBe("api.context.404.app_error")
    const unimplemented = await get(server.url, "/api/v4/audits")
    expect(unimplemented.status).toBe(501)
    const ping = await get(server.url, "/api/v4/system/ping")
    expect(JSON.parse(ping.body.toString()).status).toBe("OK")
    for (const path of ["/api/v1/nothing", "/plugins/com.example/x", "/hooks/abc", "/oauth/nothing/here", "/api"]) {
      const response = await get(server.url, path)
      expect(response.status, path).toBe(404)
      expect(response.body.toString(), path).not.toContain("<div id=\"root\">")
    }
    // The sockets without an upgrade are the socket routes' own refusal, not the web app.
    for (const path of ["/api/v4/websocket", "/api/v1/ws"]) {
      const response = await get(server.url, path)
      expect(response.status, path).toBeGreaterThanOrEqual(400)
      expect(response.body.toString(), path).not.toContain("<div id=\"root\">")
    }
    const health = await get(server.url, "/api/v1/health/live")
    expect(health.status).toBe(200)
  })

  it("keeps the SSO end on /login: a code or an error gets the built-in page that redeems or shows it", async () => {
    const code = await get(server.url, "/login?code=abc")
    expect(code.status).toBe(200)
    expect(code.body.toString()).toContain("/api/v1/oauth2/exchange")
    expect(code.headers["cache-control"]).toBe("no-store")
    const error = await get(server.url, "/login?error=Denied")
    expect(error.body.toString()).toContain("/api/v1/oauth2/exchange")
    const plainLogin = await get(server.url, "/login?redirect_to=%2Fteam")
    expect(plainLogin.body.toString()).toBe(ROOT_HTML)
  })

  it("answers HEAD like GET without a body", async () => {
    const head = await get(server.url, "/", {}, "HEAD")
    expect(head.status).toBe(200)
    expect(head.body.length).toBe(0)
  })
})

describe("without SERVICE_WEBAPP_DIR", () => {
  it("serves the service's own web client at the root, /login and application paths, and 404 for unknown built files", async () => {
    for (const path of ["/", "/login", "/login?code=abc", "/myteam/channels/town-square"]) {
      const page = await get(plain.url, path)
      expect(page.status, path).toBe(200)
      expect(page.body.toString(), path).toContain('<div id="app"></div>')
      expect(page.body.toString(), path).not.toContain("/api/v1/oauth2/exchange") // not the built-in page
    }
    expect((await get(plain.url, "/static/main.0123abcd89.js")).status).toBe(404)
    expect((await get(plain.url, "/api/v4/no/such/route")).status).toBe(404)
  })
})

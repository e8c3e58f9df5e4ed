import { type ChildProcess, spawn } from "node:child_process"
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import WebSocket from "ws"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client4 } from "../support/Clients.ts"
import { inOneMinute } from "../support/RateWindows.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { haveChromium, launch } from "./support/Chromium.ts"

/**
 * The shipped deploy/nginx.conf, run by the real nginx in front of the service: only the listening port and the
 * upstream address are changed (to free ones for this test). Through it: the client and its cached hashed files, the
 * API, gzip, both WebSockets, forwarded client addresses, and a browser signing in and receiving live posts.
 */
const NGINX = process.env.NGINX_PATH ?? "/usr/sbin/nginx"
const haveNginx = existsSync(NGINX)
if (!haveNginx && process.env.CI === "true") throw new Error(`nginx not found at ${NGINX}: apt-get install -y nginx`)

let server: TestServer
let nginx: ChildProcess | undefined
let prefix: string
let base: string
const PASSWORD = "correct-horse-battery"

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })

const answers = async (url: string) => {
  try {
    await fetch(url)
    return true
  } catch {
    return false
  }
}

beforeAll(async () => {
  if (!haveNginx) return
  // Ten sign-in requests a minute per address: few enough to see whose address the service counted.
  server = await startServer({ env: { SERVICE_SECURITY_RATE_LIMIT_AUTH_PER_MINUTE: "10", SERVICE_TRUSTED_PROXIES: "127.0.0.1,::1" } })
  prefix = mkdtempSync(join(tmpdir(), "nginx-test-"))
  // nginx's workers run unprivileged when started as root: they must reach the temp and cache folders it creates.
  chmodSync(prefix, 0o755)
  const port = await freePort()
  const shipped = readFileSync(join(process.cwd(), "deploy/nginx.conf"), "utf8")
  const conf = shipped.replace("listen 8080;", `listen 127.0.0.1:${port};`).replace("server 127.0.0.1:3000;", `server 127.0.0.1:${server.port};`)
    .replace("worker_processes auto;", "worker_processes 1;")
  expect(conf).not.toBe(shipped)
  writeFileSync(join(prefix, "nginx.conf"), conf)
  let errors = ""
  nginx = spawn(NGINX, ["-p", `${prefix}/`, "-c", join(prefix, "nginx.conf"), "-g", "daemon off;"], { stdio: ["ignore", "ignore", "pipe"] })
  nginx.stderr!.on("data", (d) => (errors += String(d)))
  base = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 10_000
  while (!(await answers(`${base}/api/v1/health/live`))) {
    if (Date.now() > deadline || nginx.exitCode !== null) throw new Error(`nginx did not start: ${errors}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}, 60_000)

afterAll(async () => {
  if (nginx && nginx.exitCode === null) {
    const exited = new Promise((r) => nginx!.once("exit", r))
    nginx.kill("SIGQUIT")
    await exited
  }
  if (prefix) rmSync(prefix, { recursive: true, force: true })
  await server?.close()
})

describe.skipIf(!haveNginx)("deploy/nginx.conf in front of the service", () => {
  it("serves the client, caches hashed files, gzips, and proxies the API", async () => {
    const page = await fetch(`${base}/acme/channels/town-square`)
    expect(page.status).toBe(200)
    expect(page.headers.get("cache-control")).toBe("no-cache")
    const html = await page.text()
    const script = html.match(/src="(\/static\/main-[^"]+\.js)"/)![1]
    const first = await fetch(`${base}${script}`, { headers: { "accept-encoding": "gzip" } })
    expect(first.status).toBe(200)
    expect(first.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
    expect(first.headers.get("content-encoding")).toBe("gzip")
    await first.arrayBuffer()
    const second = await fetch(`${base}${script}`, { headers: { "accept-encoding": "gzip" } })
    expect(second.headers.get("x-cache-status")).toBe("HIT")
    await second.arrayBuffer()

    const ping = await fetch(`${base}/api/v4/system/ping`, { headers: { "accept-encoding": "gzip" } })
    expect(ping.status).toBe(200)
    expect(ping.headers.get("content-type")).toBe("application/json")
    expect(ping.headers.get("x-version-id")).toBeTruthy()
    expect((await fetch(`${base}/api/v4/users/me`)).status).toBe(401)
    expect((await fetch(`${base}/hooks/nothing-here`)).status).toBe(404)
  })

  it("carries both WebSockets through the upgrade", async () => {
    const admin = client4(base)
    await admin.createUser({ username: "proxied", email: "proxied@example.com", password: PASSWORD } as never, "", "")
    await admin.login("proxied", PASSWORD)
    const token = admin.getToken()
    for (const path of ["/api/v4/websocket", "/api/v1/ws"]) {
      const ws = new WebSocket(`${base.replace("http", "ws")}${path}`, { headers: { authorization: `Bearer ${token}` } })
      const first = await new Promise<string>((resolve, reject) => {
        ws.once("message", (data) => resolve(String(data)))
        ws.once("error", reject)
        ws.once("unexpected-response", (_req, res) => reject(new Error(`${path}: HTTP ${res.statusCode}`)))
      })
      expect(first, path).toContain("hello")
      ws.close()
    }
  })

  it("forwards the client's address, which the service uses (rate limits per address)", async () => {
    const attempt = (address: string) =>
      fetch(`${base}/api/v4/users/login`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": address },
        body: JSON.stringify({ login_id: "nobody", password: "wrong-password-1" })
      }).then((r) => r.status)
    const statuses = await inOneMinute(async (n) => {
      const burst: Array<number> = []
      for (let i = 0; i < 11; i++) burst.push(await attempt(`203.0.113.${n}`))
      return burst
    })
    expect(statuses.slice(0, 10)).not.toContain(429)
    expect(statuses[10]).toBe(429)
    expect(await attempt("198.51.100.9")).not.toBe(429)
  })

  it.skipIf(!haveChromium)("lets a browser sign in and receive live posts over the proxied socket", async () => {
    const member = client4(base)
    await member.createUser({ username: "viewer", email: "viewer@example.com", password: PASSWORD } as never, "", "")
    await member.login("viewer", PASSWORD)
    const poster = client4(base)
    await poster.login("proxied", PASSWORD)
    const team = await poster.createTeam({ name: "proxied-team", display_name: "Proxied", type: "O" } as never)
    await poster.addToTeam(team.id, (await member.getMe()).id)
    const town = await poster.getChannelByName(team.id, "town-square")
    const { browser, close } = await launch()
    try {
      const page = await browser.newPage({ baseURL: base })
      page.setDefaultTimeout(10_000)
      await page.goto("/login")
      await page.getByLabel("Email or username").fill("viewer")
      await page.getByLabel("Password").fill(PASSWORD)
      await page.getByRole("button", { name: "Sign in" }).click()
      await page.waitForURL(/\/proxied-team\/channels\/town-square$/)
      await page.getByRole("heading", { name: /Town Square/ }).waitFor()
      await page.waitForFunction(() => document.querySelector("[role=log]") !== null)
      await poster.createPost({ channel_id: town.id, message: "through nginx, live" } as never)
      await page.getByRole("log", { name: "Messages" }).getByText("through nginx, live").waitFor()
    } finally {
      await close()
    }
  }, 60_000)
})

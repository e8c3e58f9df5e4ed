import { randomBytes } from "node:crypto"
import { Agent, request } from "node:http"
import type { Socket } from "node:net"
import { afterAll, describe, expect, it } from "vitest"
import { FROM_BUILD } from "../cli/Cli.ts"
import { tempDir } from "../support/Cleanup.ts"
import { createTestDatabase } from "../support/Databases.ts"
import { freePort, requestInFlight, type ServiceProcess, startProcess, stop, waitUntilInFlight, waitUntilLive } from "./Process.ts"

/**
 * A stop is bounded whatever its HTTP clients do: an idle keep-alive connection is closed at once, a request that
 * never finishes is cut after the request grace (10 s, REQUEST_GRACE_MS in src/Server.ts) instead of holding the
 * process (a node once took 20 s to exit behind a hung keep-alive request, issue 11), and a stop that still runs at
 * the deadline ends the process with exit code 1.
 */
const dataDir = tempDir("service-shutdown-", { shared: true })
let running: ServiceProcess | undefined
const LIVE_WITHIN_MS = 60_000
const REQUEST_GRACE_MS = 10_000

afterAll(async () => {
  if (running !== undefined) await stop(running, dataDir).catch(() => {})
})

/** One answered request on a keep-alive agent; resolves with the connection it left open and idle. */
const idleKeepAlive = (url: string) =>
  new Promise<Socket>((resolve, reject) => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    const req = request(`${url}/api/v1/health/live`, { agent }, (res) => {
      res.resume()
      res.on("end", () => {
        expect(res.headers.connection).toBe("keep-alive")
        resolve(req.socket as Socket)
      })
    })
    req.on("error", reject)
    req.end()
  })

const closedAt = (socket: Socket) =>
  new Promise<number>((resolve) => socket.destroyed ? resolve(Date.now()) : socket.once("close", () => resolve(Date.now())))

const start = async (env: Record<string, string> = {}) => {
  const service = running = startProcess({
    SERVICE_PORT: String(await freePort()),
    SERVICE_DATA_DIR: dataDir,
    SERVICE_DATABASE_URL: await createTestDatabase(),
    SERVICE_JWT_SECRET: randomBytes(48).toString("base64"),
    SERVICE_ENCRYPTION_KEY: randomBytes(48).toString("base64"),
    SERVICE_LOG_LEVEL: "warn",
    ...env
  }, FROM_BUILD) // the production build starts several times faster than tsx; `npm start` is Startup.test.ts's
  await waitUntilLive(service, LIVE_WITHIN_MS)
  return service
}

describe("a stop with HTTP clients holding connections", () => {
  it("closes idle keep-alive connections at once, cuts a request that never finishes after the grace, and exits 0", async () => {
    const service = await start()
    const idle = await idleKeepAlive(service.url)
    const idleClosed = closedAt(idle)
    // Headers and five bytes of the body sent; the rest never comes.
    const hung = requestInFlight(service.url, "/api/v4/users/login", { login_id: "nobody", password: "never-sent" })
    const hungOutcome = hung.response.then(() => "answered", (e: NodeJS.ErrnoException) => e.code ?? "error")
    await waitUntilInFlight(service, 1)

    const stopping = Date.now()
    service.child.kill("SIGTERM")
    const idleMs = (await idleClosed) - stopping
    const code = await service.exited
    const exitMs = Date.now() - stopping
    running = undefined
    console.log(`[startup] SIGTERM: idle keep-alive connection closed after ${idleMs} ms, hung request cut and exit after ${exitMs} ms`)
    expect(idleMs).toBeLessThan(2_000)
    // The hung request held the stop until the grace ran out, and no longer.
    expect(await hungOutcome).toBe("ECONNRESET")
    expect(exitMs).toBeGreaterThanOrEqual(REQUEST_GRACE_MS - 500)
    expect(exitMs).toBeLessThan(REQUEST_GRACE_MS + 5_000)
    expect(code).toBe(0)
  }, 120_000)

  it("exits 1 when a stop passes SERVICE_SHUTDOWN_DEADLINE_MS, whatever is still running", async () => {
    // A deadline shorter than the request grace, so the hung request is still holding the stop when it passes.
    const service = await start({ SERVICE_SHUTDOWN_DEADLINE_MS: "2000" })
    const hung = requestInFlight(service.url, "/api/v4/users/login", { login_id: "nobody", password: "never-sent" })
    void hung.response.catch(() => undefined)
    await waitUntilInFlight(service, 1)
    const stopping = Date.now()
    service.child.kill("SIGTERM")
    const code = await service.exited
    const exitMs = Date.now() - stopping
    running = undefined
    console.log(`[startup] SIGTERM with a 2000 ms deadline and a hung request: exit ${code} after ${exitMs} ms`)
    expect(code).toBe(1)
    expect(exitMs).toBeGreaterThanOrEqual(1_900)
    expect(exitMs).toBeLessThan(REQUEST_GRACE_MS - 2_000)
    expect(service.logs().map((l) => String(l.message))).toContain("shutdown took longer than 2000 ms: exiting")
  }, 120_000)
})

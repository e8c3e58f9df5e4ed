import { statSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { tempDir } from "../support/Cleanup.ts"
import { client4 } from "../support/Clients.ts"
import { freePort, requestInFlight, type ServiceProcess, startProcess, stop, waitUntilInFlight, waitUntilLive, waitUntilRefusing } from "./Process.ts"

/**
 * `npm start` with no configuration at all: embedded PostgreSQL under the data directory, in-memory cache, secrets
 * generated once. The data directory sits under /tmp with mode 0755 so that the postgres user can reach its cluster.
 */
const dataDir = tempDir("service-startup-", { shared: true })
let running: ServiceProcess | undefined
/** A few seconds on an idle machine; generous because the whole suite shares two cores. */
const LIVE_WITHIN_MS = 45_000

afterAll(async () => {
  if (running !== undefined) await stop(running, dataDir).catch(() => {})
})

const messages = (service: ServiceProcess) => service.logs().map((l) => String(l.message))

describe("start-up on embedded defaults", () => {
  it("serves with an empty environment, keeps accounts across a restart and stops cleanly on SIGTERM, finishing requests in flight", async () => {
    const port = String(await freePort())
    const first = running = startProcess({ SERVICE_PORT: port, SERVICE_DATA_DIR: dataDir })
    await waitUntilLive(first, LIVE_WITHIN_MS)
    expect(messages(first)).toContain(`Listening on http://0.0.0.0:${port}`)
    expect(messages(first)).toContain("generated development secrets (set SERVICE_JWT_SECRET and SERVICE_ENCRYPTION_KEY in production)")
    const secrets = statSync(join(dataDir, "secrets.json"))
    expect(secrets.mode & 0o777).toBe(0o600)

    const created = await client4(first.url).createUser(
      { username: "survivor", email: "survivor@example.com", password: "correct-horse-battery" } as never, "", "")
    expect(created.roles).toBe("system_admin system_user")
    // One JSON access line per request, with the fields of Effect's JSON logger (written in batches: polled).
    const accessLine = async () => {
      for (const started = Date.now(); Date.now() - started < 5000; await new Promise((r) => setTimeout(r, 20))) {
        const line = first.logs().find((l) => l.message === "http request" && l.annotations.method === "POST" && l.annotations.path === "/api/v4/users")
        if (line !== undefined) return line
      }
      throw new Error("no access log line for POST /api/v4/users")
    }
    const access = await accessLine()
    expect(access).toMatchObject({ logLevel: "INFO", spans: {}, annotations: { status: 201 } })
    expect(Object.keys(access).sort()).toEqual(["annotations", "fiberId", "logLevel", "message", "spans", "timestamp"])
    expect(Object.keys(access.annotations).sort()).toEqual(["duration_ms", "method", "path", "request_id", "status"])
    expect(access.annotations.request_id).toMatch(/^[a-z0-9]{26}$/)
    expect(typeof access.annotations.duration_ms).toBe("number")
    expect(Date.parse(String((access as unknown as Record<string, unknown>).timestamp))).toBeGreaterThan(0)

    // A request the server is still reading when SIGTERM arrives completes; new connections are refused once the
    // drain (SERVICE_SHUTDOWN_DRAIN_MS, 5 s by default) is over.
    const late = requestInFlight(first.url, "/api/v4/users", {
      username: "latecomer",
      email: "latecomer@example.com",
      password: "correct-horse-battery"
    })
    await waitUntilInFlight(first, 1)
    const exited = stop(first, dataDir)
    await waitUntilRefusing(first, 10_000)
    late.finish()
    expect((await late.response).status).toBe(201)
    expect(await exited).toBe(0)
    running = undefined
    const stopped = messages(first)
    expect(stopped).toContain("embedded PostgreSQL stopped")
    expect(stopped[stopped.length - 1]).toBe("shutdown complete")

    // Second start: the same data directory, and a weak JWT secret, which development only warns about.
    const second = running = startProcess({
      SERVICE_PORT: port,
      SERVICE_DATA_DIR: dataDir,
      SERVICE_JWT_SECRET: "password-password-password-password"
    })
    await waitUntilLive(second, LIVE_WITHIN_MS)
    const weak = second.logs().find((l) => l.annotations.security_event === "Weak secret detected")
    expect(weak).toMatchObject({ logLevel: "ERROR", annotations: { severity: "Critical", variable: "SERVICE_JWT_SECRET" } })
    expect(second.output()).not.toContain("password-password-password-password")
    expect(messages(second)).toContain("using development secrets from the data directory")

    const user = await client4(second.url).login("survivor", "correct-horse-battery")
    expect(user.id).toBe(created.id)
    expect((await client4(second.url).login("latecomer", "correct-horse-battery")).username).toBe("latecomer")

    expect(await stop(second, dataDir)).toBe(0)
    running = undefined
    expect(messages(second)).toContain("shutdown complete")
  }, 180_000)
})

import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { FROM_BUILD, root, runCli } from "../cli/Cli.ts"
import { freePort, type ServiceProcess, startProcess, stop, waitUntilLive } from "../startup/Process.ts"
import { tempDir } from "../support/Cleanup.ts"
import { createTestDatabase } from "../support/Databases.ts"

/**
 * `npm run build` (run by the global set-up, test/support/globalSetup.ts) then `node dist/main.js`, as the README's
 * production section runs it: no tsx anywhere, the migrations, the Mattermost route list and the web client carried
 * by dist/.
 */
const dataDir = tempDir("service-build-")
let running: ServiceProcess | undefined

afterAll(async () => {
  if (running !== undefined) await stop(running, dataDir).catch(() => {})
})

describe("the production build", { timeout: 120_000 }, () => {
  it("bundles the server without tsx or TypeScript sources", () => {
    const main = readFileSync(join(root, "dist/main.js"), "utf8")
    expect(main).not.toMatch(/from "tsx|\.ts"/)
  })

  it("node dist/main.js migrates a fresh database, serves /api/v1/health/ready, the web client and /api/v4, and stops on SIGTERM", async () => {
    const port = String(await freePort())
    const service = running = startProcess({
      SERVICE_PORT: port,
      SERVICE_HOST: "127.0.0.1",
      SERVICE_DATA_DIR: dataDir,
      SERVICE_DATABASE_URL: await createTestDatabase()
    }, FROM_BUILD)
    await waitUntilLive(service, 90_000)
    expect(service.logs().map((l) => l.message)).toContain("migrations applied")

    const ready = await fetch(`${service.url}/api/v1/health/ready`)
    expect(ready.status).toBe(200)
    expect(await ready.json()).toMatchObject({ status: "ready" })

    const page = await fetch(`${service.url}/login`)
    expect(page.status).toBe(200)
    const html = await page.text()
    const script = html.match(/src="(\/static\/[^"]+\.js)"/)?.[1]
    expect(script).toBeDefined()
    const asset = await fetch(`${service.url}${script}`)
    expect(asset.status).toBe(200)
    expect(asset.headers.get("content-type")).toContain("javascript")

    // The Mattermost route list is bundled: an unserved /api/v4 route answers 501, an unknown one 404.
    expect((await fetch(`${service.url}/api/v4/audits`)).status).toBe(501)
    expect((await fetch(`${service.url}/api/v4/no_such_route`)).status).toBe(404)

    expect(await stop(service, dataDir)).toBe(0)
    running = undefined
  })

  it("node dist/main.js --help answers", async () => {
    const result = await runCli(["--help"], {}, 60_000, FROM_BUILD)
    expect(result.code).toBe(0)
    expect(result.stdout).toContain("--check-config")
  })
})

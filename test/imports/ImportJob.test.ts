import * as fs from "node:fs/promises"
import * as path from "node:path"
import type { ImportJob } from "../../schemas/BulkImport.ts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client4, newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { fixtureLines, PASSWORDS, toJsonl, writeFixtureZip } from "./Fixture.ts"

/**
 * The admin API's import job: POST /api/v1/admin/import with the file as the body (or naming a file in
 * SERVICE_DATA_DIR/imports), then GET /api/v1/admin/import/{id} until it ends, with its progress and counts. System
 * admins only; a path outside the imports folder is refused.
 */
let server: TestServer
let adminToken: string
let userToken: string

type Job = ImportJob

const call = (method: string, route: string, token: string | undefined, body?: BodyInit, contentType?: string) =>
  fetch(`${server.url}${route}`, {
    method,
    headers: { ...(token === undefined ? {} : { Authorization: `Bearer ${token}` }), ...(contentType === undefined ? {} : { "Content-Type": contentType }) },
    body
  })

/** Polls the job until it has ended. */
const finished = async (id: string): Promise<Job> => {
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    const response = await call("GET", `/api/v1/admin/import/${id}`, adminToken)
    expect(response.status).toBe(200)
    const job = await response.json() as Job
    if (job.status === "succeeded" || job.status === "failed") return job
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`import job ${id} did not end`)
}

describe("the import job of the admin API", { timeout: 90_000 }, () => {
  beforeAll(async () => {
    server = await startServer()
    // The first account is the system admin.
    adminToken = (await newUser(server.url, "sysadmin")).client.getToken()
    userToken = (await newUser(server.url, "plain")).client.getToken()
  }, 90_000)
  afterAll(() => server?.close())

  it("is for system admins only", async () => {
    const zip = await fs.readFile(await writeFixtureZip())
    expect((await call("POST", "/api/v1/admin/import", userToken, zip, "application/zip")).status).toBe(403)
    expect((await call("POST", "/api/v1/admin/import", undefined, zip, "application/zip")).status).toBe(401)
    const denied = await call("GET", "/api/v1/admin/import/abcdefghijklmnopqrstuvwxyz", userToken)
    expect(denied.status).toBe(403)
    expect((await denied.json()).error.id).toBe("api.context.permissions.app_error")
    expect((await call("GET", "/api/v1/admin/import/abcdefghijklmnopqrstuvwxyz", adminToken)).status).toBe(404)
  })

  it("imports an uploaded zip as a job with progress and counts", async () => {
    const zip = await fs.readFile(await writeFixtureZip())
    const response = await call("POST", "/api/v1/admin/import", adminToken, zip, "application/zip")
    expect(response.status).toBe(201)
    expect(response.headers.get("content-type")).toBe("application/json")
    const started = await response.json() as Job
    expect(started.id).toMatch(/^[a-z0-9]{26}$/)
    const job = await finished(started.id)
    expect(job.status, job.error).toBe("succeeded")
    expect(job.lines_total).toBe(fixtureLines().length)
    expect(job.lines_done).toBe(job.lines_total)
    expect(job.created).toMatchObject({ team: 1, user: 3, bot: 1, post: 4, reply: 3, direct_post: 2, emoji: 1, attachment: 1 })
    expect(job.problems).toEqual([])
    // The upload is gone once the job has ended.
    expect(await fs.readdir(path.join(server.config.dataDir, "imports"))).toEqual([])
    await expect(client4(server.url).login("alice", PASSWORDS.alice)).resolves.toBeDefined()
  })

  it("a dry run of a broken upload reports the lines and imports nothing", async () => {
    const lines = [...fixtureLines().slice(0, 2), "[1, 2]", { type: "channel", channel: { team: "acme", name: "x", type: "O" } }]
    const response = await call("POST", "/api/v1/admin/import?dry_run=true", adminToken, toJsonl(lines), "application/octet-stream")
    expect(response.status).toBe(201)
    const job = await finished((await response.json() as Job).id)
    expect(job.status).toBe("failed")
    expect(job.dry_run).toBe(true)
    expect(job.problems.map((p) => p.line)).toEqual([3, 4])
    expect(job.problems[1].message).toContain("display_name")
  })

  it("reads a file named by path only inside SERVICE_DATA_DIR/imports", async () => {
    const dir = path.join(server.config.dataDir, "imports")
    await fs.mkdir(dir, { recursive: true })
    await fs.copyFile(await writeFixtureZip(), path.join(dir, "mattermost.zip"))
    for (const outside of ["../secrets.json", "/etc/passwd", "missing.zip", ""]) {
      const refused = await call("POST", "/api/v1/admin/import", adminToken, JSON.stringify({ path: outside }), "application/json")
      expect(refused.status, outside).toBe(400)
      expect((await refused.json()).error.id).toBe("api.import.path.app_error")
    }
    await fs.symlink("/etc/hostname", path.join(dir, "link.jsonl"))
    expect((await call("POST", "/api/v1/admin/import", adminToken, JSON.stringify({ path: "link.jsonl" }), "application/json")).status).toBe(400)

    const response = await call("POST", "/api/v1/admin/import", adminToken, JSON.stringify({ path: "mattermost.zip", dry_run: true }), "application/json")
    expect(response.status).toBe(201)
    const job = await finished((await response.json() as Job).id)
    expect(job.status, job.error).toBe("succeeded")
    expect(job.created).toEqual({})
    // A file the operator placed stays.
    expect(await fs.readdir(dir)).toContain("mattermost.zip")
  })
})

import { readFile } from "node:fs/promises"
import type { ImportJob } from "../../schemas/BulkImport.ts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { failureOf, newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { days, diagramPng, exportFiles, writeSlackZip } from "./SlackFixture.ts"
import { expectedCounts, writeLargeSlackZip } from "./SlackLargeExport.ts"

/**
 * A Slack export imported as a job of the admin API, as the console does it: the zip uploaded to
 * POST /api/v1/admin/import?format=slack&team=NAME, then GET /api/v1/admin/import/{id} polled for its progress
 * (converting → validating → importing, with lines done of total) and, at the end, the counts and the Slack report
 * in the job. Checked through the API as an admin who joins the team.
 */
let server: TestServer
let admin: Awaited<ReturnType<typeof newUser>>
let member: Awaited<ReturnType<typeof newUser>>

const call = (method: string, route: string, token: string, body?: BodyInit, contentType?: string) =>
  fetch(`${server.url}${route}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(contentType === undefined ? {} : { "Content-Type": contentType }) },
    body
  })

/** Polls the job until it has ended, keeping each state seen on the way. */
const follow = async (id: string) => {
  const seen: Array<Pick<ImportJob, "status" | "lines_done" | "lines_total">> = []
  const deadline = Date.now() + 240_000
  while (Date.now() < deadline) {
    const response = await call("GET", `/api/v1/admin/import/${id}`, admin.client.getToken())
    expect(response.status).toBe(200)
    const job = await response.json() as ImportJob
    seen.push({ status: job.status, lines_done: job.lines_done, lines_total: job.lines_total })
    if (job.status === "succeeded" || job.status === "failed") return { job, seen }
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error(`import job ${id} did not end`)
}

const upload = async (zip: string, query: string) => {
  const response = await call("POST", `/api/v1/admin/import?${query}`, admin.client.getToken(), await readFile(zip), "application/zip")
  expect(response.status, await response.clone().text()).toBe(201)
  return await response.json() as ImportJob
}

describe("a Slack export as an import job of the admin API", { timeout: 300_000 }, () => {
  beforeAll(async () => {
    server = await startServer()
    // The first account is the system admin.
    admin = await newUser(server.url, "sysadmin")
    member = await newUser(server.url, "member")
  }, 120_000)
  afterAll(async () => {
    await server?.close()
  })

  it("is for system admins, and needs a valid team", async () => {
    const zip = await writeSlackZip()
    const body = await readFile(zip)
    expect((await call("POST", "/api/v1/admin/import?format=slack&team=x1", member.client.getToken(), body, "application/zip")).status).toBe(403)
    const noTeam = await call("POST", "/api/v1/admin/import?format=slack", admin.client.getToken(), body, "application/zip")
    expect(noTeam.status).toBe(400)
    expect((await noTeam.json()).error.id).toBe("api.import.team.app_error")
    const badTeam = await call("POST", "/api/v1/admin/import?format=slack&team=Not%20A%20Name", admin.client.getToken(), body, "application/zip")
    expect(badTeam.status).toBe(400)
    expect((await badTeam.json()).error.id).toBe("api.import.team.app_error")
    const json = await call("POST", "/api/v1/admin/import", admin.client.getToken(), JSON.stringify({ path: "x.zip", format: "slack" }), "application/json")
    expect(json.status).toBe(400)
  })

  it("uploads, shows its progress, ends with the counts and the Slack report", async () => {
    const spec = { messages: 3_000, channels: 4, people: 12 }
    const started = await upload(await writeLargeSlackZip(spec), "format=slack&team=moved-in")
    expect(started).toMatchObject({ format: "slack", team: "moved-in", dry_run: false, report: null })
    const { job, seen } = await follow(started.id)
    expect(job.status, job.error).toBe("succeeded")
    // Progress: the states it went through, with lines done of a known total while importing.
    const statuses = [...new Set(seen.map((s) => s.status))]
    expect(statuses.at(-1)).toBe("succeeded")
    expect(seen.some((s) => s.status === "importing" && s.lines_total > 0 && s.lines_done < s.lines_total)).toBe(true)
    expect(job.report).toMatchObject({ people: 12, channels: 4, direct: 1, messages: 3_000, files: 0, linked_total: 0, skipped: {} })
    expect(job.created).toMatchObject({ team: 1, channel: 4, user: 12 })
    expect((job.created.post ?? 0) + (job.created.reply ?? 0) + (job.created.direct_post ?? 0)).toBe(3_000)

    const team = await admin.client.getTeamByName("moved-in")
    await admin.client.addToTeam(team.id, admin.user.id)
    const channel = await admin.client.getChannelByName(team.id, "channel-1")
    expect(channel.total_msg_count).toBe(expectedCounts(spec).perChannel(1))

    // The same export again: a job that creates nothing.
    const again = await follow((await upload(await writeLargeSlackZip(spec), "format=slack&team=moved-in")).id)
    expect(again.job.status).toBe("succeeded")
    expect(again.job.created).toEqual({})
  })

  it("a dry run reports the export (files attached, files only linked) and writes nothing", async () => {
    const { job } = await follow((await upload(await writeSlackZip(exportFiles(await diagramPng())), "format=slack&team=dry-job&dry_run=true")).id)
    expect(job.status, job.error).toBe("succeeded")
    expect(job.report).toMatchObject({ people: 3, bots: 2, channels: 3, direct: 2, messages: 15, files: 2, linked_total: 1 })
    expect(job.report?.linked).toEqual([
      { conversation: "general", ts: "1700086406.000000", name: "all-hands.mp4", url: "https://files.slack.com/files-pri/T1-F03BIG/all-hands.mp4" }
    ])
    expect(job.created).toEqual({})
    expect(await failureOf(admin.client.getTeamByName("dry-job"))).toMatchObject({ status: 404 })
  })

  it("a broken export fails the job, naming the entry, and writes nothing", async () => {
    const broken = { ...exportFiles(), "general/2023-11-14.json": [{ ...(days()["general/2023-11-14.json"][0] as object), ts: 12 }] }
    const { job } = await follow((await upload(await writeSlackZip(broken), "format=slack&team=broken-job")).id)
    expect(job.status).toBe("failed")
    expect(job.error).toMatch(/entry general\/2023-11-14\.json: 0\.ts: Expected string/)
    expect(await failureOf(admin.client.getTeamByName("broken-job"))).toMatchObject({ status: 404 })
  })
})

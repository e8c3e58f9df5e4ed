import { mkdir, rm, utimes, writeFile } from "node:fs/promises"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client4 } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { writeFixtureZip } from "../imports/Fixture.ts"
import { writeSlackZip } from "../imports/SlackFixture.ts"
import { signedInPages } from "./support/WebTeam.ts"
import { haveChromium, withScreenshots } from "./support/Chromium.ts"
import { checkConsolePage, expectRefused, openConsolePage } from "./support/Console.ts"
import { createPeople } from "./support/People.ts"

/**
 * Issue 29, Environment > Import and export, as a system admin (ann): a Mattermost bulk export and a Slack export
 * uploaded from the page and followed to their end, their posts then read through the API; the past jobs listed; an
 * export started, followed, and downloaded. bob, a member, gets none of it: the page refuses him and so does the API.
 */
let server: TestServer
let closeBrowser: () => Promise<void>
let ann: Page
let bob: Page
let apis: Record<string, ReturnType<typeof client4>>
const headers = { "X-Requested-With": "XMLHttpRequest" }

type ImportJob = { id: string; status: string; format: string; team: string; created: Record<string, number> }
type ExportJob = { name: string; status: string; size: number; error: string }

const call = (method: string, path: string, token = apis.ann.getToken()) =>
  fetch(`${server.url}${path}`, { method, headers: { Authorization: `Bearer ${token}` } })

beforeAll(async () => {
  server = await startServer()
  ;({ apis } = await createPeople(server.url, ["ann", "bob"]))
  if (!haveChromium) return
  ;({ close: closeBrowser, pages: [ann, bob] } = await signedInPages(server.url, ["ann", "bob"]))
}, 60_000)

afterAll(async () => {
  await closeBrowser?.()
  await server?.close()
})

const step = (name: string, body: () => Promise<void>) => withScreenshots(name, () => [ann, bob].filter(Boolean), body)
const status = (text: string | RegExp) => ann.getByRole("status").getByText(text).waitFor({ timeout: 60_000 })
const postsOf = async (team: string, channel: string) => {
  const id = (await apis.ann.getChannelByNameAndTeamName(team, channel, true)).id
  const list = await apis.ann.getPosts(id, 0, 200)
  return list.order.map((p) => list.posts[p].message)
}

describe("System Console: import and export API", () => {
  it("lists jobs and exports to system admins only, bounded, and serves only finished exports by name", async () => {
    for (const path of ["/api/v1/admin/import?per_page=0", "/api/v1/admin/import?per_page=101", "/api/v1/admin/export/passwd", "/api/v1/admin/export/..%2F..%2Fetc%2Fpasswd"]) {
      expect((await call("GET", path)).status, path).toBe(400)
    }
    expect((await call("GET", "/api/v1/admin/export/export-20260101-000000-abcdef.zip")).status).toBe(404)
    for (const [method, path] of [["GET", "/api/v1/admin/import"], ["GET", "/api/v1/admin/export"], ["POST", "/api/v1/admin/export"], ["GET", "/api/v1/admin/export/export-20260101-000000-abcdef.zip"]]) {
      expect((await call(method, path, apis.bob.getToken())).status, `${method} ${path}`).toBe(403)
      expect((await fetch(`${server.url}${path}`, { method })).status, `${method} ${path}`).toBe(401)
    }
    expect(await (await call("GET", "/api/v1/admin/export")).json()).toEqual({ exports: [] })
  })

  it("lists an export whose node stopped before it finished as failed, and never serves its partial zip", async () => {
    // What a node killed in the middle of an export leaves: its marker and a partial zip, no longer touched. Beside it,
    // an export whose marker was touched a moment ago, as a running export's node does every 15 s.
    const dir = join(server.config.dataDir, "exports")
    const stale = "export-20260101-000000-abcdef.zip"
    const fresh = "export-20260101-000100-fedcba.zip"
    await mkdir(dir, { recursive: true })
    for (const name of [stale, fresh]) {
      await writeFile(join(dir, `${name}.running`), "")
      await writeFile(join(dir, name), "PK partial")
    }
    const threeMinutesAgo = new Date(Date.now() - 3 * 60_000)
    await utimes(join(dir, `${stale}.running`), threeMinutesAgo, threeMinutesAgo)
    try {
      const { exports } = await (await call("GET", "/api/v1/admin/export")).json() as { exports: Array<ExportJob> }
      expect(exports.map((e) => [e.name, e.status, e.error])).toEqual([
        [fresh, "running", ""],
        [stale, "failed", "interrupted: the node running this export stopped before it finished"]
      ])
      for (const name of [stale, fresh]) expect((await call("GET", `/api/v1/admin/export/${name}`)).status, name).toBe(404)
    } finally {
      for (const name of [stale, fresh]) await rm(join(dir, name), { force: true }).then(() => rm(join(dir, `${name}.running`), { force: true }))
    }
  })
})

describe.skipIf(!haveChromium)("System Console: import and export", () => {
  it("shows a member none of it", async () => {
    await step("member", async () => {
      await expectRefused(bob, "/admin_console/environment/data")
      for (const [method, path] of [["GET", "/api/v1/admin/import"], ["POST", "/api/v1/admin/export"], ["POST", "/api/v1/admin/import?format=slack&team=bobs"]]) {
        expect((await bob.request.fetch(path, { method, headers, data: method === "POST" ? Buffer.from("PK") : undefined })).status(), path).toBe(403)
      }
      expect((await (await call("GET", "/api/v1/admin/export")).json()).exports).toEqual([])
      expect((await (await call("GET", "/api/v1/admin/import")).json()).jobs).toEqual([])
    })
  }, 60_000)

  it("imports a Mattermost bulk export uploaded from the page and follows it to its end", async () => {
    await step("import", async () => {
      await ann.goto("/admin_console/user_management/users")
      await openConsolePage(ann, "Import and export")
      await ann.getByRole("heading", { name: "Import and export" }).waitFor()
      await ann.getByRole("cell", { name: "No imports yet." }).waitFor()
      const form = ann.getByRole("form", { name: "Import a Mattermost bulk export" })
      await form.getByRole("button", { name: "Start import" }).click()
      await ann.getByRole("alert").getByText("Choose the file to import first.").waitFor()
      await form.getByLabel("Export file").setInputFiles(await writeFixtureZip())
      // A dry run first: the file is checked, nothing is written.
      await form.getByLabel("Only check the file (dry run)").check()
      await form.getByRole("button", { name: "Start import" }).click()
      await status("Import started")
      await status("Import finished")
      await ann.getByText("The file is valid; nothing was written (dry run).").waitFor()
      expect((await call("GET", "/api/v4/teams/name/acme")).status).toBe(404)
      await form.getByLabel("Only check the file (dry run)").uncheck()
      await form.getByRole("button", { name: "Start import" }).click()
      await status("Import started")
      await status("Import finished")
      await ann.getByText(/^Created: .*1 team, .*3 replies/).waitFor()
      const [job, dryRun] = (await (await call("GET", "/api/v1/admin/import")).json()).jobs as Array<ImportJob & { dry_run: boolean }>
      expect(job).toMatchObject({ status: "succeeded", format: "mattermost", dry_run: false })
      expect(dryRun).toMatchObject({ status: "succeeded", format: "mattermost", dry_run: true })
      expect(job.created.post).toBeGreaterThan(0)
      expect(await postsOf("acme", "general")).toEqual(expect.arrayContaining(["hello imported world #launch", "second root post"]))
      await ann.getByRole("region", { name: "Import jobs" }).getByRole("row").filter({ hasText: "Mattermost", hasNotText: "dry run" }).getByRole("cell", { name: "Done" }).waitFor()
    })
  }, 120_000)

  it("imports a Slack export into a team, and lists both jobs", async () => {
    await step("slack-import", async () => {
      const form = ann.getByRole("form", { name: "Import a Slack workspace export" })
      await form.getByLabel("Slack export file").setInputFiles(await writeSlackZip())
      await form.getByLabel("Team name").fill("slackers")
      await form.getByRole("button", { name: "Start Slack import" }).click()
      await status("Slack import started")
      await status("Import finished")
      const [job] = (await (await call("GET", "/api/v1/admin/import?per_page=1")).json()).jobs as Array<ImportJob>
      expect(job).toMatchObject({ status: "succeeded", format: "slack", team: "slackers" })
      expect(await postsOf("slackers", "general")).toEqual(expect.arrayContaining(["reply one", "a reply the next day"]))
      const rows = ann.getByRole("region", { name: "Import jobs" }).getByRole("row")
      await rows.filter({ hasText: "Slack into slackers" }).getByRole("cell", { name: "Done" }).waitFor()
      expect(await rows.count()).toBe(4)
      await rows.filter({ hasText: "Mattermost (dry run)" }).getByRole("cell", { name: "Done" }).waitFor()
      await checkConsolePage(ann, "data")
    })
  }, 120_000)

  it("starts an export, follows it, and downloads it", async () => {
    await step("export", async () => {
      await ann.getByRole("button", { name: "Start export" }).click()
      await status("Export started")
      const exports = ann.getByRole("region", { name: "Exports" })
      const link = exports.getByRole("link", { name: /^export-\d{8}-\d{6}-[a-z0-9]{6}\.zip$/ })
      await link.waitFor({ timeout: 60_000 })
      const [done] = (await (await call("GET", "/api/v1/admin/export")).json()).exports as Array<ExportJob>
      expect(done).toMatchObject({ status: "succeeded", error: "" })
      expect(await link.textContent()).toBe(done.name)
      const download = await ann.request.get(`/api/v1/admin/export/${done.name}`)
      expect(download.status()).toBe(200)
      expect(download.headers()["content-type"]).toBe("application/zip")
      const zip = await download.body()
      expect(zip.length).toBe(done.size)
      expect(zip.subarray(0, 2).toString()).toBe("PK")
      // The export holds what the imports wrote.
      expect(zip.includes(Buffer.from("import.jsonl"))).toBe(true)
      await checkConsolePage(ann, "data-export")
    })
  }, 120_000)
})

import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client4 } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { signedInPages } from "./support/WebTeam.ts"
import { haveChromium, withScreenshots } from "./support/Chromium.ts"
import { checkConsolePage, expectRefused, openConsolePage } from "./support/Console.ts"
import { createPeople, shot } from "./support/People.ts"

/**
 * Issue 29, Reporting: Site statistics (the counts of /api/v4/analytics/old, posts and posting people per day as
 * charts with their numbers, the busiest channels and teams) and Health (each dependency's state and latency, the
 * breakers, the Prometheus endpoint, the node's recent security events), as a system admin (ann), each figure compared
 * with the API's own answer. bob, a member, gets neither page and his direct calls are refused.
 */
let server: TestServer
let closeBrowser: () => Promise<void>
let ann: Page
let bob: Page
let apis: Record<string, ReturnType<typeof client4>>
let ids: Record<string, string>
let planning = ""
const headers = { "X-Requested-With": "XMLHttpRequest" }

type Row = { name: string; value: number }
const api = async <T>(path: string, token = apis.ann.getToken()) => {
  const response = await fetch(`${server.url}${path}`, { headers: { Authorization: `Bearer ${token}` } })
  expect(response.status, path).toBe(200)
  return await response.json() as T
}
const today = () => new Date().toISOString().slice(0, 10)

beforeAll(async () => {
  server = await startServer()
  ;({ apis, ids } = await createPeople(server.url, ["ann", "bob", "cyd"]))
  const crew = (await apis.ann.createTeam({ name: "crew", display_name: "Crew", type: "O" } as never)).id
  const quiet = (await apis.ann.createTeam({ name: "quiet", display_name: "Quiet Room", type: "O" } as never)).id
  await apis.ann.addToTeam(crew, ids.bob)
  await apis.ann.addToTeam(quiet, ids.cyd)
  planning = (await apis.ann.createChannel({ team_id: crew, name: "planning", display_name: "Planning", type: "O" } as never)).id
  const secrets = (await apis.ann.createChannel({ team_id: crew, name: "secrets", display_name: "Secrets", type: "P" } as never)).id
  const idle = (await apis.ann.createChannel({ team_id: quiet, name: "idle", display_name: "Idle", type: "O" } as never)).id
  await apis.ann.addToChannel(ids.bob, planning)
  for (const message of ["one", "two", "three"]) await apis.ann.createPost({ channel_id: planning, message } as never)
  await apis.bob.createPost({ channel_id: planning, message: "four" } as never)
  await apis.ann.createPost({ channel_id: secrets, message: "hush" } as never)
  await apis.ann.createPost({ channel_id: idle, message: "anyone?" } as never)
  if (!haveChromium) return
  ;({ close: closeBrowser, pages: [ann, bob] } = await signedInPages(server.url, ["ann", "bob"]))
}, 60_000)

afterAll(async () => {
  await closeBrowser?.()
  await server?.close()
})

const step = (name: string, body: () => Promise<void>) => withScreenshots(name, () => [ann, bob].filter(Boolean), body)
const rowOf = (region: string, text: string) => ann.getByRole("region", { name: region }).getByRole("row").filter({ hasText: text })
const card = (label: string) => ann.locator(".stat-card").filter({ has: ann.getByText(label, { exact: true }) }).locator("dd")

describe("System Console: reporting API", () => {
  it("answers the busiest channels and teams, bounded, to system admins only", async () => {
    const top = await api<{ days: number; channels: Array<{ display_name: string; post_count: number; type: string }>; teams: Array<{ name: string; post_count: number; active_member_count: number }> }>(
      "/api/v1/admin/analytics/top?days=7&limit=2"
    )
    expect(top.days).toBe(7)
    expect(top.channels.map((c) => [c.display_name, c.post_count, c.type])).toEqual([["Planning", 4, "O"], ["Idle", 1, "O"]])
    expect(top.teams.map((t) => [t.name, t.post_count, t.active_member_count])).toEqual([["crew", 5, 2], ["quiet", 1, 2]])
    for (const bad of ["limit=51", "limit=0", "days=366", "days=x"]) {
      const response = await fetch(`${server.url}/api/v1/admin/analytics/top?${bad}`, { headers: { Authorization: `Bearer ${apis.ann.getToken()}` } })
      expect(response.status, bad).toBe(400)
    }
    for (const path of ["/api/v1/admin/analytics/top", "/api/v1/admin/health", "/api/v1/admin/security_events", "/api/v4/analytics/old?name=standard"]) {
      expect((await fetch(`${server.url}${path}`, { headers: { Authorization: `Bearer ${apis.bob.getToken()}` } })).status, path).toBe(403)
      expect((await fetch(`${server.url}${path}`)).status, path).toBe(401)
    }
  })

  it("keeps failed sign-ins and revoked sessions among the security events, newest first, a bounded page", async () => {
    expect((await fetch(`${server.url}/api/v4/users/login`, { method: "POST", body: JSON.stringify({ login_id: "cyd", password: "wrong-password" }) })).status).toBe(401)
    await apis.ann.revokeAllSessionsForUser(ids.cyd)
    const page = await api<{ events: Array<{ name: string; severity: string; details: Record<string, unknown> }>; total: number }>("/api/v1/admin/security_events?per_page=2")
    expect(page.events.map((e) => e.name)).toEqual(["Sessions revoked", "Sign-in failed"])
    expect(page.events[0].details).toMatchObject({ user_id: ids.cyd, by_user_id: ids.ann })
    expect(page.events[1].details).toMatchObject({ user_id: ids.cyd, failed_attempts: 1 })
    expect(JSON.stringify(page.events)).not.toContain("wrong-password")
    expect(page.total).toBeGreaterThanOrEqual(2)
    const next = await api<{ events: Array<unknown> }>(`/api/v1/admin/security_events?per_page=2&page=${Math.ceil(page.total / 2)}`)
    expect(next.events).toEqual([])
    const tooMany = await fetch(`${server.url}/api/v1/admin/security_events?per_page=201`, { headers: { Authorization: `Bearer ${apis.ann.getToken()}` } })
    expect(tooMany.status).toBe(400)
  })
})

describe.skipIf(!haveChromium)("System Console: site statistics and health", () => {
  it("shows a member none of it", async () => {
    await step("member", async () => {
      await expectRefused(bob, "/admin_console/reporting/system_analytics")
      await expectRefused(bob, "/admin_console/health")
      for (const path of ["/api/v1/admin/analytics/top", "/api/v1/admin/health", "/api/v1/admin/security_events", "/api/v4/analytics/old?name=post_counts_day"]) {
        expect((await bob.request.get(path, { headers })).status(), path).toBe(403)
      }
    })
  }, 60_000)

  it("shows the site's figures, charts with their numbers, and the busiest channels and teams", async () => {
    await step("stats", async () => {
      await ann.goto("/admin_console/user_management/users")
      await openConsolePage(ann, "Site statistics")
      await ann.getByRole("heading", { name: "Site statistics" }).waitFor()
      const standard = await api<Array<Row>>("/api/v4/analytics/old?name=standard")
      const value = (name: string) => String(standard.find((r) => r.name === name)!.value)
      await expect.poll(() => card("Posts").textContent()).toBe(value("post_count"))
      expect(await card("Teams").textContent()).toBe(value("team_count"))
      expect(await card("Public channels").textContent()).toBe(value("channel_open_count"))
      expect(await card("Private channels").textContent()).toBe(value("channel_private_count"))
      expect(await card("Active accounts").textContent()).toBe("3")

      const posts = await api<Array<Row>>("/api/v4/analytics/old?name=post_counts_day")
      const postsToday = posts.find((r) => r.name === today())!.value
      const total = posts.reduce((sum, r) => sum + r.value, 0)
      await ann.getByRole("img", { name: new RegExp(`^Posts per day, bar chart of the 30 days from .* to ${today()}: ${total} posts in all, most on ${today()} \\(${postsToday}\\)`) }).waitFor()
      const people = (await api<Array<Row>>("/api/v4/analytics/old?name=user_counts_with_posts_day")).find((r) => r.name === today())!.value
      await ann.getByRole("img", { name: new RegExp(`^Active users per day, bar chart of the 30 days .*: ${people} people posting in all`) }).waitFor()
      await ann.getByText("Posts per day: the numbers").click()
      const table = ann.getByRole("region", { name: "Posts per day, by day" })
      expect(await table.getByRole("row").count()).toBe(31)
      await table.getByRole("row").filter({ hasText: today() }).getByRole("cell", { name: String(postsToday), exact: true }).waitFor()
      await ann.getByText("Posts per day: the numbers").click()

      await rowOf("Top channels", "Planning").getByRole("cell", { name: "4", exact: true }).waitFor()
      expect(await ann.getByRole("region", { name: "Top channels" }).getByRole("row").nth(1).textContent()).toContain("Planning")
      await rowOf("Top channels", "Secrets").getByRole("cell", { name: "Private" }).waitFor()
      await rowOf("Top teams", "Crew").getByRole("cell", { name: "5", exact: true }).waitFor()

      // A new post shows after a refresh, as the API counts it.
      await apis.bob.createPost({ channel_id: planning, message: "five" } as never)
      await ann.getByRole("button", { name: "Refresh" }).click()
      await rowOf("Top channels", "Planning").getByRole("cell", { name: "5", exact: true }).waitFor()
      const after = await api<Array<Row>>("/api/v4/analytics/old?name=standard")
      await expect.poll(() => card("Posts").textContent()).toBe(String(after.find((r) => r.name === "post_count")!.value))
      await checkConsolePage(ann, "stats")
      await ann.getByRole("region", { name: "Top teams" }).scrollIntoViewIfNeeded()
      await shot(ann, "console-stats-top-1280")
    })
  }, 90_000)

  it("shows the node's health for people, and its recent security events", async () => {
    await step("health", async () => {
      await openConsolePage(ann, "Health")
      await ann.getByRole("heading", { name: "Health", exact: true }).waitFor()
      const deps = (name: string) => rowOf("Dependencies", name)
      for (const name of ["Database", "Cache", "Event bus"]) {
        await deps(name).getByRole("cell", { name: "Working" }).waitFor()
        expect(await deps(name).getByRole("cell", { name: /^\d+ ms$/ }).count(), name).toBe(1)
      }
      await deps("Push notifications").getByRole("cell", { name: "Not configured" }).waitFor()
      const health = await api<{ version: string; circuit_breakers: Record<string, string> }>("/api/v1/admin/health")
      await ann.getByText(health.version, { exact: true }).waitFor()
      // Breakers are made on first use (an outbound call by an earlier test's background job can add one after the page
      // loaded): the page, refreshed, lists every one the API listed before.
      await ann.getByRole("button", { name: "Refresh" }).click()
      // Each breaker in the state the API gave (an earlier test's unreachable outbound address may have opened one).
      const label: Record<string, RegExp> = { closed: /^Closed/, open: /^Open/, halfopen: /^Half open/ }
      for (const [name, state] of Object.entries(health.circuit_breakers)) await rowOf("Circuit breakers", name).getByText(label[state] ?? /./).first().waitFor()
      await ann.getByText("Single node (events stay on this node)").waitFor()
      const metrics = ann.getByRole("link", { name: `${server.url}/api/v1/health/metrics` })
      expect(await metrics.getAttribute("href")).toBe("/api/v1/health/metrics")
      expect((await ann.request.get("/api/v1/health/metrics")).status()).toBe(200)

      // A failed sign-in made now shows among the events once the page is refreshed, as the API lists it.
      const before = (await api<{ total: number }>("/api/v1/admin/security_events")).total
      expect((await fetch(`${server.url}/api/v4/users/login`, { method: "POST", body: JSON.stringify({ login_id: "bob", password: "not-his" }) })).status).toBe(401)
      await expect.poll(async () => (await api<{ total: number }>("/api/v1/admin/security_events")).total).toBe(before + 1)
      await ann.getByRole("button", { name: "Refresh" }).click()
      const events = ann.getByRole("region", { name: "Security events" })
      await events.getByRole("row").nth(1).filter({ hasText: "Sign-in failed" }).filter({ hasText: "user: @bob, client ip: 127.0.0.1, failed attempts: 1" }).waitFor()
      await events.getByRole("row").filter({ hasText: "Sessions revoked" }).filter({ hasText: "by: @ann, user: @cyd, sessions: 1" }).waitFor()
      await checkConsolePage(ann, "health")
      await events.scrollIntoViewIfNeeded()
      await shot(ann, "console-health-events-1280")
    })
  }, 90_000)
})

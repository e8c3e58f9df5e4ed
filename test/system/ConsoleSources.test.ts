import type { Channel } from "@mattermost/types/channels"
import type { Team } from "@mattermost/types/teams"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { newUser, unique } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * What the web console reads from /api/v1/admin: where each setting comes from (writable at run time, or fixed by a
 * named SERVICE_* variable), and the team list with member and channel counts, archived teams on request. System
 * admins only.
 */
let server: TestServer
let admin: Awaited<ReturnType<typeof newUser>>
let member: Awaited<ReturnType<typeof newUser>>

beforeAll(async () => {
  server = await startServer()
  admin = await newUser(server.url, "srcadmin")
  member = await newUser(server.url, "srcmember")
})
afterAll(() => server?.close())

const get = async <T,>(who: typeof admin, path: string): Promise<T> => {
  const response = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${who.client.getToken()}` } })
  expect(response.status, path).toBe(200)
  return response.json() as Promise<T>
}
/** The answer's status (the native API's error body is not Client4's). */
const statusOf = (who: typeof admin, path: string) =>
  fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${who.client.getToken()}` } }).then((r) => r.status)

describe("the console's /api/v1/admin answers", () => {
  it("names the writable settings and the variable behind each environment one", async () => {
    const sources = await get<{ writable: Array<string>; environment: Record<string, string> }>(admin, "/api/v1/admin/config/sources")
    expect(sources.writable).toEqual(expect.arrayContaining(["TeamSettings.SiteName", "TeamSettings.MaxUsersPerTeam", "ServiceSettings.EnableLinkPreviews"]))
    expect(sources.environment).toMatchObject({ "ServiceSettings.SiteURL": "SERVICE_SITE_URL", "RateLimitSettings.Enable": "SERVICE_SECURITY_RATE_LIMIT_ENABLED" })
    // No setting is both.
    expect(sources.writable.filter((key) => key in sources.environment)).toEqual([])
    // Every named setting is in the document the console reads.
    const doc = await admin.client.getConfig() as unknown as Record<string, Record<string, unknown>>
    for (const key of [...sources.writable, ...Object.keys(sources.environment)]) {
      const [section, name] = key.split(".")
      expect(doc[section], key).toHaveProperty(name)
    }
    expect(await statusOf(member, "/api/v1/admin/config/sources")).toBe(403)
  })

  it("lists teams with their counts, searched, archived ones on request", async () => {
    const team = await admin.client.createTeam({ name: unique("counted"), display_name: "Counted Team", type: "O" } as Team)
    await admin.client.addToTeam(team.id, member.user.id)
    await admin.client.createChannel({ team_id: team.id, name: unique("extra"), display_name: "Extra", type: "P" } as Channel)
    type Page = { teams: Array<Team & { member_count: number; active_member_count: number; channel_count: number }>; total_count: number }
    const found = await get<Page>(admin, "/api/v1/admin/teams?term=counted")
    expect(found.total_count).toBe(1)
    expect(found.teams[0]).toMatchObject({ id: team.id, member_count: 2, active_member_count: 2, channel_count: 3 })
    await admin.client.updateUserActive(member.user.id, false)
    expect((await get<Page>(admin, "/api/v1/admin/teams?term=counted")).teams[0]).toMatchObject({ member_count: 2, active_member_count: 1 })
    await admin.client.deleteTeam(team.id)
    expect((await get<Page>(admin, "/api/v1/admin/teams?term=counted")).total_count).toBe(0)
    const archived = await get<Page>(admin, "/api/v1/admin/teams?term=counted&include_deleted=true")
    expect(archived.teams[0].delete_at).toBeGreaterThan(0)
    expect(await statusOf(admin, "/api/v1/admin/teams?per_page=0")).toBe(400)
  })

  it("refuses members", async () => {
    const fresh = await newUser(server.url, "srcother")
    expect(await statusOf(fresh, "/api/v1/admin/teams")).toBe(403)
  })
})

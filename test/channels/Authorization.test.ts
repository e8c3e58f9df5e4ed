import type { Channel } from "@mattermost/types/channels"
import type { Team } from "@mattermost/types/teams"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { raw } from "../compat/Raw.ts"
import { newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * The authorization matrix of the team, channel and category routes: each resource route as an anonymous caller
 * (401), as an outsider (403), and as a member (2xx). Private channels are closed to team members outside them.
 */

let server: TestServer
let owner: Awaited<ReturnType<typeof newUser>>
let member: Awaited<ReturnType<typeof newUser>>
let teamMate: Awaited<ReturnType<typeof newUser>>
let outsider: Awaited<ReturnType<typeof newUser>>
let team: Team
let secret: Channel

beforeAll(async () => {
  server = await startServer()
  // The first user is the system admin; keep it out of the matrix.
  await newUser(server.url, "root")
  owner = await newUser(server.url, "mxo")
  member = await newUser(server.url, "mxm")
  teamMate = await newUser(server.url, "mxt")
  outsider = await newUser(server.url, "mxx")
  team = await owner.client.createTeam({ name: `mx${Date.now().toString(36)}`, display_name: "Matrix", type: "I" } as Team)
  await owner.client.addUsersToTeam(team.id, [member.user.id, teamMate.user.id])
  secret = await owner.client.createChannel({ team_id: team.id, name: "secret", display_name: "Secret", type: "P" } as Channel)
  await owner.client.addToChannel(member.user.id, secret.id)
})
afterAll(() => server?.close())

interface Route {
  readonly method: string
  readonly path: () => string
  readonly body?: () => unknown
}

const get = (path: () => string): Route => ({ method: "GET", path })
const post = (path: () => string, body: () => unknown): Route => ({ method: "POST", path, body })
const put = (path: () => string, body: () => unknown): Route => ({ method: "PUT", path, body })

/** Team resources: outsiders of the team get 403, members 2xx. */
const teamRoutes: Array<Route> = [
  get(() => `/api/v4/teams/${team.id}`),
  get(() => `/api/v4/teams/name/${team.name}`),
  get(() => `/api/v4/teams/${team.id}/stats`),
  get(() => `/api/v4/teams/${team.id}/members`),
  get(() => `/api/v4/teams/${team.id}/members/${owner.user.id}`),
  post(() => `/api/v4/teams/${team.id}/members/ids`, () => [owner.user.id]),
  get(() => `/api/v4/teams/${team.id}/channels`),
  get(() => `/api/v4/teams/${team.id}/channels/deleted`),
  get(() => `/api/v4/teams/${team.id}/channels/name/town-square`),
  get(() => `/api/v4/teams/name/${team.name}/channels/name/town-square`),
  get(() => `/api/v4/teams/${team.id}/channels/autocomplete?name=to`),
  get(() => `/api/v4/teams/${team.id}/channels/search_autocomplete?name=to`),
  post(() => `/api/v4/teams/${team.id}/channels/search`, () => ({ term: "to" })),
  get(() => `/api/v4/users/me/teams/${team.id}/channels`),
  get(() => `/api/v4/users/me/teams/${team.id}/channels/members`),
  get(() => `/api/v4/users/me/teams/${team.id}/channels/categories`),
  get(() => `/api/v4/users/me/teams/${team.id}/channels/categories/order`),
  get(() => `/api/v4/users/me/teams/${team.id}/unread`)
]

/** Private-channel resources: team members outside the channel and outsiders get 403, members 2xx. */
const channelRoutes: Array<Route> = [
  get(() => `/api/v4/channels/${secret.id}`),
  put(() => `/api/v4/channels/${secret.id}/patch`, () => ({ header: "matrix" })),
  get(() => `/api/v4/channels/${secret.id}/stats`),
  get(() => `/api/v4/channels/${secret.id}/members`),
  get(() => `/api/v4/channels/${secret.id}/members/${owner.user.id}`),
  post(() => `/api/v4/channels/${secret.id}/members/ids`, () => [owner.user.id]),
  get(() => `/api/v4/channels/${secret.id}/timezones`),
  get(() => `/api/v4/users/me/channels/${secret.id}/unread`),
  get(() => `/api/v4/teams/${team.id}/channels/name/secret`)
]

/** Writes that need a team admin (or channel admin): plain members get 403 as well. */
const adminRoutes: Array<Route> = [
  put(() => `/api/v4/teams/${team.id}/patch`, () => ({ description: "matrix" })),
  put(() => `/api/v4/teams/${team.id}`, () => ({ display_name: "Matrix" })),
  post(() => `/api/v4/teams/${team.id}/regenerate_invite_id`, () => ({})),
  put(() => `/api/v4/teams/${team.id}/members/${teamMate.user.id}/roles`, () => ({ roles: "team_user" })),
  put(() => `/api/v4/channels/${secret.id}/members/${owner.user.id}/roles`, () => ({ roles: "channel_user channel_admin" })),
  put(() => `/api/v4/channels/${secret.id}/privacy`, () => ({ privacy: "P" })),
  get(() => `/api/v4/teams/${team.id}/channels/private`)
]

/** Another user's own data: 403 for everyone but that user (and system admins). */
const otherUserRoutes: Array<Route> = [
  get(() => `/api/v4/users/${owner.user.id}/teams`),
  get(() => `/api/v4/users/${owner.user.id}/teams/members`),
  get(() => `/api/v4/users/${owner.user.id}/teams/unread`),
  get(() => `/api/v4/users/${owner.user.id}/channels`),
  get(() => `/api/v4/users/${owner.user.id}/channel_members`),
  get(() => `/api/v4/users/${owner.user.id}/teams/${team.id}/channels`),
  get(() => `/api/v4/users/${owner.user.id}/teams/${team.id}/channels/categories`),
  post(() => `/api/v4/channels/members/${owner.user.id}/view`, () => ({ channel_id: secret.id })),
  put(() => `/api/v4/channels/${secret.id}/members/${owner.user.id}/notify_props`, () => ({ mark_unread: "mention" }))
]

const call = (route: Route, token?: string) =>
  raw(server.url, route.path(), { method: route.method, token, body: route.body?.() })

const label = (route: Route) => `${route.method} ${route.path()}`

describe("authorization matrix", () => {
  it("answers 401 to anonymous callers on every route", async () => {
    for (const route of [...teamRoutes, ...channelRoutes, ...adminRoutes, ...otherUserRoutes]) {
      const res = await call(route)
      expect(res.status, label(route)).toBe(401)
      expect(res.body.id, label(route)).toBe("api.context.session_expired.app_error")
    }
  })

  it("answers 403 with the error body to outsiders of the team", async () => {
    for (const route of [...teamRoutes, ...channelRoutes, ...adminRoutes]) {
      const res = await call(route, outsider.client.getToken())
      expect(res.status, label(route)).toBe(403)
      expect(res.body).toMatchObject({ status_code: 403, id: expect.any(String) })
    }
  })

  it("lets team members use team routes, but not private channels they are not in", async () => {
    for (const route of teamRoutes) expect((await call(route, teamMate.client.getToken())).status, label(route)).toBeLessThan(300)
    for (const route of channelRoutes) expect((await call(route, teamMate.client.getToken())).status, label(route)).toBe(403)
  })

  it("lets channel members use channel routes, but not admin writes or other users' data", async () => {
    for (const route of channelRoutes) expect((await call(route, member.client.getToken())).status, label(route)).toBeLessThan(300)
    for (const route of [...adminRoutes, ...otherUserRoutes]) expect((await call(route, member.client.getToken())).status, label(route)).toBe(403)
  })

  it("lets the team and channel admin do the admin writes and the user read their own data", async () => {
    for (const route of [...adminRoutes.filter((r) => !r.path().endsWith("/private")), ...otherUserRoutes]) {
      expect((await call(route, owner.client.getToken())).status, label(route)).toBeLessThan(300)
    }
    // Listing every private channel is for system admins only.
    expect((await call(adminRoutes.find((r) => r.path().endsWith("/private"))!, owner.client.getToken())).status).toBe(403)
  })
})

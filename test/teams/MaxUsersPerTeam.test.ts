import type { Team } from "@mattermost/types/teams"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { failureOf, newUser, unique } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * TeamSettings.MaxUsersPerTeam enforced with Mattermost's error on every way into a team (an admin's add, a batch, a
 * self-join of an open team, the CLI-free paths a client has), counting active members only, and holding when joins race.
 */
let server: TestServer
let admin: Awaited<ReturnType<typeof newUser>>

const FULL = "app.team.join_user_to_team.max_accounts.app_error"

const activeMembers = async (teamId: string) =>
  (await admin.client.getTeamMembers(teamId, 0, 200)).filter((m) => m.delete_at === 0).length

describe("TeamSettings.MaxUsersPerTeam", () => {
  beforeAll(async () => {
    server = await startServer()
    admin = await newUser(server.url, "teamlimitadmin")
  })
  afterAll(async () => {
    await admin?.client.patchConfig({ TeamSettings: { MaxUsersPerTeam: 50_000 } } as never)
    await server?.close()
  })

  it("refuses a join beyond the limit on each way in, a batch whole, and counts only active members", async () => {
    const team = await admin.client.createTeam({ name: unique("t"), display_name: "Limited", type: "O", allow_open_invite: true } as Team)
    const people = await Promise.all([1, 2, 3, 4].map((i) => newUser(server.url, `tl${i}`)))
    await admin.client.patchConfig({ TeamSettings: { MaxUsersPerTeam: 3 } } as never)
    expect((await admin.client.getConfig()).TeamSettings.MaxUsersPerTeam).toBe(3)

    await admin.client.addToTeam(team.id, people[0].user.id)
    await people[1].client.addToTeam(team.id, people[1].user.id) // joining an open team oneself
    expect(await activeMembers(team.id)).toBe(3)
    expect(await failureOf(admin.client.addToTeam(team.id, people[2].user.id))).toEqual({ status: 400, id: FULL })
    expect(await failureOf(people[3].client.addToTeam(team.id, people[3].user.id))).toEqual({ status: 400, id: FULL })
    // Adding someone who is already a member is not a new seat.
    expect((await admin.client.addToTeam(team.id, people[0].user.id)).user_id).toBe(people[0].user.id)

    // A deactivated member frees a seat; a batch that does not fit is refused whole.
    await admin.client.updateUserActive(people[1].user.id, false)
    expect(await failureOf(admin.client.addUsersToTeam(team.id, [people[2].user.id, people[3].user.id]))).toEqual({ status: 400, id: FULL })
    const members = await admin.client.getTeamMembers(team.id, 0, 200)
    expect(members.map((m) => m.user_id)).not.toContain(people[2].user.id)
    expect(members.map((m) => m.user_id)).not.toContain(people[3].user.id)
    expect((await admin.client.addToTeam(team.id, people[2].user.id)).user_id).toBe(people[2].user.id)
  })

  it("lets exactly as many racing joins through as there are seats", async () => {
    const team = await admin.client.createTeam({ name: unique("t"), display_name: "Race", type: "O", allow_open_invite: true } as Team)
    const people = await Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map((i) => newUser(server.url, `tr${i}`)))
    await admin.client.patchConfig({ TeamSettings: { MaxUsersPerTeam: 3 } } as never)
    const results = await Promise.allSettled(people.map((p) => p.client.addToTeam(team.id, p.user.id)))
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(2)
    const refused = await Promise.all(results.filter((r) => r.status === "rejected").map((r) => failureOf(Promise.reject((r as PromiseRejectedResult).reason))))
    expect(refused.every((f) => f.status === 400 && f.id === FULL)).toBe(true)
    expect(await activeMembers(team.id)).toBe(3)
  })
})

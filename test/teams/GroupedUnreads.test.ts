import type { Post } from "@mattermost/types/posts"
import type { Team } from "@mattermost/types/teams"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { newUser, unique } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * GET /users/me/teams/unread under concurrency (src/teams/TeamUnreads.ts, layers/Grouped.ts): requests of
 * different users that arrive together share statements, and each still gets exactly their own totals.
 */
const USERS = 24
const ROUNDS = 3

let server: TestServer
let users: Array<Awaited<ReturnType<typeof newUser>>>
let teamA: Team
let teamB: Team

/** Each user's totals asked alone, before any concurrency: what they must keep seeing when requests come together. */
let alone: Array<Array<{ team_id: string; mention_count: number }>>

const unreads = async (i: number, query = "") => {
  const response = await fetch(`${server.url}/api/v4/users/me/teams/unread${query}`, {
    headers: { Authorization: `Bearer ${users[i].client.getToken()}` }
  })
  expect(response.status).toBe(200)
  const body = await response.json() as Array<{ team_id: string; mention_count: number }>
  return body.sort((x, y) => x.team_id.localeCompare(y.team_id))
}

/** The metric's value for `unit` (requests answered; statements that answered them). */
const grouped = async (unit: "requests" | "statements") => {
  const text = await (await fetch(`${server.url}/api/v1/health/metrics`)).text()
  const line = text.split("\n").find((l) => l.startsWith(`service_grouped_requests_total{kind="team_unreads",unit="${unit}"}`))
  expect(line, text.slice(0, 2000)).toBeDefined()
  return Number(line!.split(" ")[1])
}

beforeAll(async () => {
  server = await startServer()
  const owner = await newUser(server.url, "guo")
  users = await Promise.all(Array.from({ length: USERS }, () => newUser(server.url, "gum")))
  teamA = await owner.client.createTeam({ name: unique("gua"), display_name: "A", type: "O" } as Team)
  teamB = await owner.client.createTeam({ name: unique("gub"), display_name: "B", type: "O" } as Team)
  await owner.client.addUsersToTeam(teamA.id, users.map((u) => u.user.id))
  await owner.client.addUsersToTeam(teamB.id, users.filter((_, i) => i % 2 === 0).map((u) => u.user.id))
  const square = await owner.client.getChannelByName(teamA.id, "town-square")
  for (const u of users) await u.client.viewMyChannel(square.id)
  // Post j mentions every user whose i % 4 >= j: user i is mentioned (i % 4) + 1 times in four posts.
  for (let j = 0; j < 4; j++) {
    const named = users.filter((_, i) => i % 4 >= j).map((u) => `@${u.username}`).join(" ")
    await owner.client.createPost({ channel_id: square.id, message: `round ${j} ${named}` } as Post)
  }
  alone = []
  for (let i = 0; i < USERS; i++) alone.push(await unreads(i))
}, 60_000)

afterAll(async () => {
  await server?.close()
})

describe("team unreads read together", () => {
  it("answers each of many simultaneous callers with their own totals, in fewer statements than requests", async () => {
    // The users differ: four mention counts in team A (and team B for the even ones among them).
    expect(new Set(alone.map((a) => JSON.stringify(a.map((t) => [t.team_id, t.mention_count])))).size).toBe(4)
    const requests0 = await grouped("requests")
    const statements0 = await grouped("statements")
    for (let round = 0; round < ROUNDS; round++) {
      const answers = await Promise.all(users.map((_, i) => unreads(i)))
      answers.forEach((answer, i) => expect(answer, `user ${i}, round ${round}`).toEqual(alone[i]))
    }
    const requests = (await grouped("requests")) - requests0
    const statements = (await grouped("statements")) - statements0
    expect(requests).toBe(USERS * ROUNDS)
    expect(statements).toBeGreaterThan(0)
    expect(statements).toBeLessThan(requests)
  })

  it("leaves out the excluded team per request while others in the same statement keep theirs", async () => {
    const answers = await Promise.all(users.map((_, i) => unreads(i, i % 3 === 0 ? `?exclude_team=${teamA.id}` : "")))
    answers.forEach((answer, i) => {
      const want = i % 3 === 0 ? alone[i].filter((t) => t.team_id !== teamA.id) : alone[i]
      expect(answer, `user ${i}`).toEqual(want)
    })
  })

  it("sees a change made between two requests of the same user", async () => {
    const square = await users[1].client.getChannelByName(teamA.id, "town-square")
    await users[1].client.viewMyChannel(square.id)
    const [one, two] = await Promise.all([unreads(1), unreads(2)])
    // Town square's two mentions of user 1 are read now.
    expect(one.find((t) => t.team_id === teamA.id)!.mention_count).toBe(alone[1].find((t) => t.team_id === teamA.id)!.mention_count - 2)
    expect(two).toEqual(alone[2])
  })
})

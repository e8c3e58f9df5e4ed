import type { Channel } from "@mattermost/types/channels"
import type { Team } from "@mattermost/types/teams"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { send } from "../http/Fetch.ts"
import { failureOf, newUser, unique } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * TeamSettings.MaxChannelsPerTeam enforced with Mattermost's error, also when creations race; and the per-user rate
 * limit on channel and team creation (a burst, then a few per minute), answered 429 as the other rate limits.
 */
let server: TestServer
let limited: TestServer
let admin: Awaited<ReturnType<typeof newUser>>

const LIMIT = "store.sql_channel.save_channel.limit.app_error"

const newChannel = (member: Awaited<ReturnType<typeof newUser>>, teamId: string) =>
  member.client.createChannel({ team_id: teamId, name: unique("c"), display_name: "Chan", type: "O" } as Channel)

describe("channel and team creation limits", () => {
  beforeAll(async () => {
    ;[server, limited] = await Promise.all([
      startServer(),
      startServer({ env: { SERVICE_SECURITY_RATE_LIMIT_CREATE_BURST: "5", SERVICE_SECURITY_RATE_LIMIT_CREATE_PER_MINUTE: "1" } })
    ])
    admin = await newUser(server.url, "limitadmin")
  })
  afterAll(() => Promise.all([server?.close(), limited?.close()]))

  it("refuses a channel beyond TeamSettings.MaxChannelsPerTeam with Mattermost's error, counting open and private channels", async () => {
    expect(await failureOf(admin.client.patchConfig({ TeamSettings: { MaxChannelsPerTeam: 0 } } as never)))
      .toEqual({ status: 400, id: "model.config.is_valid.max_channels.app_error" })
    const owner = await newUser(server.url, "chanowner")
    const team = await owner.client.createTeam({ name: unique("t"), display_name: "Team", type: "O" } as Team)
    await admin.client.patchConfig({ TeamSettings: { MaxChannelsPerTeam: 5 } } as never)
    try {
      expect((await admin.client.getConfig()).TeamSettings.MaxChannelsPerTeam).toBe(5)
      // The team's two default channels count: three more fit.
      for (let i = 0; i < 3; i++) await newChannel(owner, team.id)
      expect(await failureOf(newChannel(owner, team.id))).toEqual({ status: 400, id: LIMIT })
      expect(await failureOf(admin.client.createChannel({ team_id: team.id, name: unique("p"), display_name: "Private", type: "P" } as Channel)))
        .toEqual({ status: 400, id: LIMIT })
      // Another team has its own count.
      const other = await owner.client.createTeam({ name: unique("t"), display_name: "Other", type: "O" } as Team)
      expect((await newChannel(owner, other.id)).team_id).toBe(other.id)
    } finally {
      await admin.client.patchConfig({ TeamSettings: { MaxChannelsPerTeam: 2000 } } as never)
    }
  })

  it("lets racing creations through only up to the limit", async () => {
    const owner = await newUser(server.url, "racer")
    const team = await owner.client.createTeam({ name: unique("t"), display_name: "Team", type: "O" } as Team)
    await admin.client.patchConfig({ TeamSettings: { MaxChannelsPerTeam: 6 } } as never)
    try {
      const results = await Promise.allSettled(Array.from({ length: 12 }, () => newChannel(owner, team.id)))
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(4)
      for (const r of results) if (r.status === "rejected") expect(r.reason).toMatchObject({ status_code: 400, server_error_id: LIMIT })
      const channels = await owner.client.getChannels(team.id, 0, 100)
      expect(channels).toHaveLength(6)
    } finally {
      await admin.client.patchConfig({ TeamSettings: { MaxChannelsPerTeam: 2000 } } as never)
    }
  })

  it("answers a user's creations beyond the burst with 429, the rate-limit headers and body; other users are not affected", async () => {
    await newUser(limited.url, "ratefirst") // the first account is the admin
    // The allowance is counted in fixed windows of five minutes (burst 5 / 1 per minute): not across a window's end.
    const left = 300_000 - (Date.now() % 300_000)
    if (left < 20_000) await new Promise((resolve) => setTimeout(resolve, left + 50))
    const user = await newUser(limited.url, "rated")
    const team = await user.client.createTeam({ name: unique("t"), display_name: "Team", type: "O" } as Team)
    for (let i = 0; i < 4; i++) await newChannel(user, team.id)
    const refused = await send(`${limited.url}/api/v4/channels`, {
      method: "POST",
      headers: { authorization: `Bearer ${user.client.getToken()}` },
      json: { team_id: team.id, name: unique("c"), display_name: "Chan", type: "O" }
    })
    expect(refused.status).toBe(429)
    expect(refused.headers.get("x-ratelimit-limit")).toBe("5")
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("0")
    const retryAfter = Number(refused.headers.get("retry-after"))
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(300)
    expect(refused.body.error).toEqual({ code: "RATE_LIMIT_EXCEEDED", message: expect.any(String), retry_after: retryAfter })
    // Teams count against the same allowance.
    expect(await failureOf(user.client.createTeam({ name: unique("t"), display_name: "More", type: "O" } as Team))).toMatchObject({ status: 429 })
    const other = await newUser(limited.url, "unrated")
    const own = await other.client.createTeam({ name: unique("t"), display_name: "Theirs", type: "O" } as Team)
    expect((await newChannel(other, own.id)).team_id).toBe(own.id)
  })
})

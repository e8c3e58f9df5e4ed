import type { PreferenceType } from "@mattermost/types/preferences"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { recordEvents } from "../compat/Events.ts"
import { raw } from "../compat/Raw.ts"
import { expectShape, Wire } from "../compat/Shapes.ts"
import { client4, newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

let server: TestServer
let recorder: Awaited<ReturnType<typeof recordEvents>>

beforeAll(async () => {
  server = await startServer()
  recorder = await recordEvents(server)
})
afterAll(async () => {
  await recorder?.stop()
  await server?.close()
})

const mine = async (client: { getMyPreferences: () => Promise<unknown> }): Promise<Array<PreferenceType>> => (await client.getMyPreferences()) as Array<PreferenceType>

const pref = (user_id: string, category: string, name: string, value: string): PreferenceType => ({ user_id, category, name, value })

describe("preferences", () => {
  it("saves, reads by category and name, updates and deletes the categories the clients use", async () => {
    const { client, user } = await newUser(server.url, "prefs")
    expect(await mine(client)).toEqual([])
    const theme = JSON.stringify({ type: "Denim", sidebarBg: "#1e325c" })
    const batch = [
      pref(user.id, "display_settings", "collapsed_reply_threads", "on"),
      pref(user.id, "teams_order", "", "abcdefghijklmnopqrstuvwxyz"),
      pref(user.id, "direct_channel_show", "abcdefghijklmnopqrstuvwxy1", "true"),
      pref(user.id, "group_channel_show", "abcdefghijklmnopqrstuvwxy2", "true"),
      pref(user.id, "channel_open_time", "abcdefghijklmnopqrstuvwxy3", "1700000000000"),
      pref(user.id, "flagged_post", "abcdefghijklmnopqrstuvwxy4", "true"),
      pref(user.id, "theme", "", theme),
      pref(user.id, "some_plugin_category", "anything", "x")
    ]
    expect(await client.savePreferences(user.id, batch)).toEqual({ status: "OK" })
    const all = await mine(client)
    expect(all).toHaveLength(batch.length)
    for (const p of all) expectShape(p, Wire.Preference)
    expect(all).toEqual(expect.arrayContaining(batch))

    const category = await raw(server.url, `/api/v4/users/me/preferences/display_settings`, { token: client.getToken() })
    expect(category.body).toEqual([batch[0]])
    const named = await raw(server.url, `/api/v4/users/${user.id}/preferences/display_settings/name/collapsed_reply_threads`, { token: client.getToken() })
    expect(named.body).toEqual(batch[0])
    const missing = await raw(server.url, `/api/v4/users/${user.id}/preferences/display_settings/name/nope`, { token: client.getToken() })
    expect(missing.status).toBe(404)

    await client.savePreferences(user.id, [pref(user.id, "display_settings", "collapsed_reply_threads", "off")])
    const updated = await raw(server.url, `/api/v4/users/me/preferences/display_settings`, { token: client.getToken() })
    expect(updated.body).toEqual([pref(user.id, "display_settings", "collapsed_reply_threads", "off")])

    await client.deletePreferences(user.id, [batch[5], batch[7]])
    const after = await mine(client)
    expect(after).toHaveLength(batch.length - 2)
    expect(after.find((p) => p.category === "flagged_post")).toBeUndefined()
  })

  it("publishes preferences_changed and preferences_deleted to the user with the list as a JSON string", async () => {
    const { client, user } = await newUser(server.url, "prefev")
    const saved = [pref(user.id, "direct_channel_show", "abcdefghijklmnopqrstuvwxy9", "true")]
    await client.savePreferences(user.id, saved)
    const changed = await recorder.waitFor((e) => e.event === "preferences_changed" && e.broadcast.user_id === user.id)
    expect(typeof changed.data.preferences).toBe("string")
    expect(JSON.parse(changed.data.preferences as string)).toEqual(saved)
    expect(changed.broadcast).toMatchObject({ user_id: user.id, channel_id: "", team_id: "", broadcast_to_all: false })

    await client.deletePreferences(user.id, saved)
    const deleted = await recorder.waitFor((e) => e.event === "preferences_deleted" && e.broadcast.user_id === user.id)
    expect(JSON.parse(deleted.data.preferences as string)).toEqual(saved)
  })

  it("keeps each user's preferences their own: 403 for others, nothing written", async () => {
    const owner = await newUser(server.url, "owner")
    const other = await newUser(server.url, "other")
    await owner.client.savePreferences(owner.user.id, [pref(owner.user.id, "theme", "", "{}")])
    await expect(other.client.getUserPreferences(owner.user.id)).rejects.toMatchObject({ status_code: 403 })
    await expect(other.client.savePreferences(owner.user.id, [pref(owner.user.id, "theme", "", "hacked")])).rejects.toMatchObject({ status_code: 403 })
    await expect(other.client.savePreferences(other.user.id, [pref(owner.user.id, "theme", "", "hacked")])).rejects.toMatchObject({ status_code: 403 })
    await expect(other.client.deletePreferences(owner.user.id, [pref(owner.user.id, "theme", "", "")])).rejects.toMatchObject({ status_code: 403 })
    expect(await mine(owner.client)).toEqual([pref(owner.user.id, "theme", "", "{}")])
    await expect(mine(client4(server.url))).rejects.toMatchObject({ status_code: 401 })
  })

  it("rejects bad input with 400 and the error body", async () => {
    const { client, user } = await newUser(server.url, "prefbad")
    const token = client.getToken()
    const cases: Array<unknown> = [
      [],
      [{ user_id: user.id, category: "", name: "x", value: "y" }],
      [{ user_id: user.id, category: "c".repeat(33), name: "x", value: "y" }],
      [{ user_id: user.id, category: "theme", name: "n".repeat(33), value: "y" }],
      [{ user_id: user.id, category: "theme", name: "x", value: "v".repeat(2001) }],
      { not: "an array" }
    ]
    for (const body of cases) {
      const response = await raw(server.url, "/api/v4/users/me/preferences", { method: "PUT", token, body })
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(400)
      expect(response.body).toMatchObject({ status_code: 400 })
      expect(typeof response.body.id).toBe("string")
    }
    const malformed = await raw(server.url, "/api/v4/users/me/preferences", { method: "PUT", token, body: "{not json", headers: { "content-type": "application/json" } })
    expect(malformed.status).toBe(400)
    expect(await mine(client)).toEqual([])
  })
})

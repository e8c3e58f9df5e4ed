import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { failureOf, newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * TeamSettings.TeammateNameDisplay and LockTeammateNameDisplay (issue 28): Mattermost's defaults (username, not
 * locked), changed through PATCH /config by an administrator with Mattermost's validation, and reported to every
 * signed-in client in GET /config/client, where the apps read how to show people's names.
 */
let server: TestServer
let admin: Awaited<ReturnType<typeof newUser>>
let member: Awaited<ReturnType<typeof newUser>>

describe("teammate name display setting", () => {
  beforeAll(async () => {
    server = await startServer()
    admin = await newUser(server.url, "namesadmin")
    member = await newUser(server.url, "namesmember")
  })
  afterAll(() => server?.close())

  it("defaults to usernames, unlocked, and changes through /config for every client", async () => {
    const client = async () => (await member.client.getClientConfig()) as unknown as Record<string, string>
    expect((await admin.client.getConfig()).TeamSettings).toMatchObject({ TeammateNameDisplay: "username", LockTeammateNameDisplay: false })
    expect(await client()).toMatchObject({ TeammateNameDisplay: "username", LockTeammateNameDisplay: "false" })

    expect(await failureOf(admin.client.patchConfig({ TeamSettings: { TeammateNameDisplay: "nickname" } } as never)))
      .toEqual({ status: 400, id: "model.config.is_valid.teammate_name_display.app_error" })
    expect(await failureOf(member.client.patchConfig({ TeamSettings: { TeammateNameDisplay: "full_name" } } as never)))
      .toMatchObject({ status: 403 })

    await admin.client.patchConfig({ TeamSettings: { TeammateNameDisplay: "nickname_full_name", LockTeammateNameDisplay: true } } as never)
    expect((await admin.client.getConfig()).TeamSettings).toMatchObject({ TeammateNameDisplay: "nickname_full_name", LockTeammateNameDisplay: true })
    expect(await client()).toMatchObject({ TeammateNameDisplay: "nickname_full_name", LockTeammateNameDisplay: "true" })
  })
})

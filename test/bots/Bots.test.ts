import type { Bot } from "@mattermost/types/bots"
import type { Channel } from "@mattermost/types/channels"
import type { Post } from "@mattermost/types/posts"
import type { Team } from "@mattermost/types/teams"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { raw } from "../compat/Raw.ts"
import { expectShape, Wire } from "../compat/Shapes.ts"
import { client4, failureOf, newUser, unique } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/** Bot accounts through Client4: creation switch, CRUD, paging and filters, tokens and posting, who may. */
let server: TestServer
let admin: Awaited<ReturnType<typeof newUser>>
let member: Awaited<ReturnType<typeof newUser>>

beforeAll(async () => {
  server = await startServer()
  admin = await newUser(server.url, "admin")
  member = await newUser(server.url, "member")
})
afterAll(() => server?.close())

const failure = failureOf

const setCreation = (on: boolean) => admin.client.patchConfig({ ServiceSettings: { EnableBotAccountCreation: on } } as never)

describe("bots", () => {
  it("creation is off by default (403 api.bot.create_disabled) and config/client says so", async () => {
    expect((await admin.client.getClientConfig() as Record<string, string>).EnableBotAccountCreation).toBe("false")
    expect(await failure(admin.client.createBot({ username: "offbot" }))).toEqual({ status: 403, id: "api.bot.create_disabled" })
    await setCreation(true)
    expect((await admin.client.getClientConfig() as Record<string, string>).EnableBotAccountCreation).toBe("true")
  })

  it("a bot is a user with is_bot; with a token it posts, and its posts carry props.from_bot", async () => {
    await setCreation(true)
    const bot = await admin.client.createBot({ username: unique("ci").toLowerCase().slice(0, 20), display_name: "CI", description: "builds" })
    expectShape(bot, Wire.Bot, "created bot")
    expect(bot).toMatchObject({ display_name: "CI", description: "builds", owner_id: admin.user.id, delete_at: 0 })
    expect(await admin.client.getBot(bot.user_id)).toEqual(bot)
    const asUser = await admin.client.getUser(bot.user_id)
    expect(asUser).toMatchObject({ is_bot: true, username: bot.username })

    const team: Team = await admin.client.createTeam({ name: unique("team"), display_name: "Team", type: "O" } as Team)
    await admin.client.addToTeam(team.id, bot.user_id)
    const channel: Channel = await admin.client.createChannel({ team_id: team.id, name: unique("ch"), display_name: "Builds", type: "O" } as Channel)
    await admin.client.addToChannel(bot.user_id, channel.id)
    const token = await admin.client.createUserAccessToken(bot.user_id, "poster")
    const botClient = client4(server.url, token.token!)
    const post = await botClient.createPost({ channel_id: channel.id, message: "build #12 passed" } as Post)
    expect(post.user_id).toBe(bot.user_id)
    expect(post.props).toMatchObject({ from_bot: "true" })
    // A person cannot claim it.
    const human = await admin.client.createPost({ channel_id: channel.id, message: "me", props: { from_bot: "true", from_webhook: "true" } } as unknown as Post)
    expect(human.props?.from_bot).toBeUndefined()
    expect(human.props?.from_webhook).toBeUndefined()

    // Disabling revokes its tokens; enabling brings the bot back but not its tokens.
    const disabled = await admin.client.disableBot(bot.user_id)
    expect(disabled.delete_at).toBeGreaterThan(0)
    expect((await raw(server.url, "/api/v4/users/me", { token: token.token! })).status).toBe(401)
    expect((await admin.client.getUserAccessToken(token.id)).is_active).toBe(false)
    expect((await admin.client.enableBot(bot.user_id)).delete_at).toBe(0)
    expect((await raw(server.url, "/api/v4/users/me", { token: token.token! })).status).toBe(401)
    await admin.client.enableUserAccessToken(token.id)
    expect((await raw(server.url, "/api/v4/users/me", { token: token.token! })).status).toBe(200)
  })

  it("patches, lists with paging, include_deleted and only_orphaned, and assigns to another owner", async () => {
    await setCreation(true)
    const prefix = `zz${Date.now().toString(36)}`
    const made: Array<Bot> = []
    for (const n of [1, 2, 3]) made.push(await admin.client.createBot({ username: `${prefix}b${n}` }))
    const patched = await admin.client.patchBot(made[0].user_id, { display_name: "Renamed", description: "new" })
    expect(patched).toMatchObject({ display_name: "Renamed", description: "new", username: `${prefix}b1` })
    const renamed = await admin.client.patchBot(made[0].user_id, { username: `${prefix}b0` })
    expect(renamed.username).toBe(`${prefix}b0`)

    const ours = (bots: Array<Bot>) => bots.filter((b) => b.username.startsWith(prefix)).map((b) => b.username)
    const all = await admin.client.getBots(0, 200)
    all.forEach((b, i) => expectShape(b, Wire.Bot, `bots[${i}]`))
    expect(ours(all)).toEqual([`${prefix}b0`, `${prefix}b2`, `${prefix}b3`])
    const page0 = await admin.client.getBots(0, 1)
    const page1 = await admin.client.getBots(1, 1)
    expect(page0).toHaveLength(1)
    expect(page1[0].user_id).not.toBe(page0[0].user_id)

    await admin.client.disableBot(made[1].user_id)
    expect(ours(await admin.client.getBots(0, 200))).toEqual([`${prefix}b0`, `${prefix}b3`])
    expect(ours(await admin.client.getBotsIncludeDeleted(0, 200))).toEqual([`${prefix}b0`, `${prefix}b2`, `${prefix}b3`])
    expect(await failure(admin.client.getBot(made[1].user_id))).toEqual({ status: 404, id: "store.sql_bot.get.missing.app_error" })
    const withDeleted = await raw(server.url, `/api/v4/bots/${made[1].user_id}?include_deleted=true`, { token: admin.client.getToken() })
    expect(withDeleted.body.delete_at).toBeGreaterThan(0)

    const owner = await newUser(server.url, "owner")
    expect((await admin.client.assignBot(made[2].user_id, owner.user.id)).owner_id).toBe(owner.user.id)
    expect(ours(await admin.client.getBotsOrphaned(0, 200))).toEqual([])
    await admin.client.updateUserActive(owner.user.id, false)
    expect(ours(await admin.client.getBotsOrphaned(0, 200))).toEqual([`${prefix}b3`])
  })

  it("members cannot create, read or manage bots (Mattermost's default permissions)", async () => {
    await setCreation(true)
    const bot = await admin.client.createBot({ username: unique("adm").toLowerCase().slice(0, 20) })
    const denied = [
      () => member.client.createBot({ username: unique("mine").toLowerCase().slice(0, 20) }),
      () => member.client.getBots(),
      () => member.client.getBot(bot.user_id),
      () => member.client.patchBot(bot.user_id, { display_name: "hijacked" }),
      () => member.client.disableBot(bot.user_id),
      () => member.client.enableBot(bot.user_id),
      () => member.client.assignBot(bot.user_id, member.user.id),
      () => member.client.createUserAccessToken(bot.user_id, "steal")
    ]
    for (const call of denied) expect((await failure(call())).status).toBe(403)
    expect(await admin.client.getBot(bot.user_id)).toMatchObject({ owner_id: admin.user.id, display_name: "", delete_at: 0 })
  })

  it("converts a bot to a user (password required) and a user to a bot (system admins only)", async () => {
    await setCreation(true)
    const token = admin.client.getToken()
    const bot = await admin.client.createBot({ username: unique("conv").toLowerCase().slice(0, 20) })
    const path = `/api/v4/bots/${bot.user_id}/convert_to_user`
    expect((await raw(server.url, path, { method: "POST", token, body: {} })).status).toBe(400)
    expect((await raw(server.url, path, { method: "POST", token, body: { password: "short" } })).status).toBe(400)
    expect((await raw(server.url, path, { method: "POST", token: member.client.getToken(), body: { password: "correct-horse-battery-2" } })).status).toBe(403)
    const email = `${bot.username}@example.com`
    const converted = await raw(server.url, path, { method: "POST", token, body: { password: "correct-horse-battery-2", email } })
    expect(converted.status).toBe(200)
    expect(converted.body).toMatchObject({ id: bot.user_id, is_bot: false, email })
    expect((await failureOf(admin.client.getBot(bot.user_id))).status).toBe(404)
    const signedIn = client4(server.url)
    expect((await signedIn.login(bot.username, "correct-horse-battery-2")).id).toBe(bot.user_id)

    const person = await newUser(server.url, "tobot")
    const toBot = `/api/v4/users/${person.user.id}/convert_to_bot`
    expect((await raw(server.url, toBot, { method: "POST", token: member.client.getToken() })).status).toBe(403)
    const made = await raw(server.url, toBot, { method: "POST", token })
    expect(made.status).toBe(200)
    expect(made.body).toMatchObject({ user_id: person.user.id, username: person.username, owner_id: person.user.id })
    expect((await admin.client.getUser(person.user.id)).is_bot).toBe(true)
    // Its sessions ended and its password no longer signs in.
    expect((await raw(server.url, "/api/v4/users/me", { token: person.client.getToken() })).status).toBe(401)
    expect((await failureOf(client4(server.url).login(person.username, person.password))).status).toBe(401)
    expect((await raw(server.url, toBot, { method: "POST", token })).status).toBe(404)
    expect((await raw(server.url, `/api/v4/users/${admin.user.id}/convert_to_bot`, { method: "POST", token })).status).toBe(400)
  })

  it("answers bad input with 4xx and the error body", async () => {
    await setCreation(true)
    const token = admin.client.getToken()
    const bot = await admin.client.createBot({ username: unique("bad").toLowerCase().slice(0, 20) })
    const cases: Array<[string, string, unknown, number]> = [
      ["POST", "/api/v4/bots", {}, 400],
      ["POST", "/api/v4/bots", { username: "A Bot" }, 400],
      ["POST", "/api/v4/bots", { username: "ab" }, 400],
      ["POST", "/api/v4/bots", { username: admin.username }, 400],
      ["POST", "/api/v4/bots", { username: "fine", display_name: "x".repeat(65) }, 400],
      ["POST", "/api/v4/bots", { username: "fine", description: 7 }, 400],
      ["POST", "/api/v4/bots", "{\"username\": ", 400],
      ["PUT", `/api/v4/bots/${bot.user_id}`, { username: "no spaces" }, 400],
      ["PUT", "/api/v4/bots/short", { display_name: "x" }, 400],
      ["GET", "/api/v4/bots?per_page=x", undefined, 400],
      ["GET", "/api/v4/bots/abcdefghijklmnopqrstuvwxyz", undefined, 404],
      ["POST", `/api/v4/bots/${bot.user_id}/assign/abcdefghijklmnopqrstuvwxyz`, undefined, 404],
      ["POST", `/api/v4/bots/${bot.user_id}/assign/nope`, undefined, 400]
    ]
    for (const [method, path, body, status] of cases) {
      const response = await raw(server.url, path, { method, token, body })
      expect([method, path, response.status]).toEqual([method, path, status])
      expect(Object.keys(response.body).sort()).toEqual(["detailed_error", "id", "message", "request_id", "status_code"])
    }
  })
})

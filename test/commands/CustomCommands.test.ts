import type { Channel } from "@mattermost/types/channels"
import type { Command, CommandResponse } from "@mattermost/types/integrations"
import type { Post } from "@mattermost/types/posts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CommandResponse as CommandResponseSchema, SubmitDialogResponse } from "../../schemas/wire/Command.ts"
import { expectShape } from "../compat/Shapes.ts"
import { failureOf, unique } from "../support/Clients.ts"
import { teamOfTwo } from "../support/Teams.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { type EventLog, recordEvents } from "../teams/EventLog.ts"
import { eventually, MattermostSocket, wsUrl } from "../realtime/Sockets.ts"
import { json, type Receiver, startReceiver } from "./Receiver.ts"

/**
 * Custom slash commands end to end against a loopback receiver: Mattermost's request (POST and GET), the answer
 * posted or shown, response_url, interactive dialogs, failing and slow integrations, and the SSRF guard.
 */
const TIMEOUT_MS = 1500
let server: TestServer
let log: EventLog
let receiver: Receiver
let team: Awaited<ReturnType<typeof teamOfTwo>>
let channel: Channel
let other: Channel

beforeAll(async () => {
  receiver = await startReceiver()
  // Only 127.0.0.1 is allowed: 127.0.0.2 (loopback too) stands for an internal address nobody listed.
  server = await startServer({ env: { SERVICE_ALLOW_INTERNAL_CONNECTIONS: "127.0.0.1", SERVICE_INTEGRATION_TIMEOUT_MS: String(TIMEOUT_MS) } })
  log = await recordEvents(server)
  team = await teamOfTwo(server.url, ["lead", "dev"])
  channel = await team.owner.client.createChannel({ team_id: team.team.id, name: unique("ops"), display_name: "Ops", type: "O" } as Channel)
  other = await team.owner.client.createChannel({ team_id: team.team.id, name: unique("other"), display_name: "Other", type: "O" } as Channel)
  await team.owner.client.addToChannel(team.member.user.id, channel.id)
  await team.owner.client.addToChannel(team.member.user.id, other.id)
})
afterAll(async () => {
  await log?.stop()
  await server?.close()
  await receiver?.close()
})

const addCommand = (fields: Partial<Command> = {}) =>
  team.owner.client.addCommand({ team_id: team.team.id, trigger: unique("cmd"), method: "P", url: `${receiver.url}/slash`, ...fields } as Command)

/** Runs a command; the answer must be the wire CommandResponse. */
const run = async (command: string, channelId = channel.id): Promise<CommandResponse> => {
  const response = await team.member.client.executeCommand(command, { channel_id: channelId, team_id: team.team.id })
  expectShape(response, CommandResponseSchema, "command response")
  return response
}

const lastPost = async (channelId: string) => {
  const posts = await team.owner.client.getPosts(channelId, 0, 1)
  return posts.posts[posts.order[0]]
}

const ephemeral = (text: string) =>
  eventually(() =>
    log.named("ephemeral_message").map((e) => ({ post: JSON.parse(e.data.post as string) as Post, to: e.broadcast.user_id }))
      .find((e) => e.post.message === text), `ephemeral "${text}"`)

/** A response_url pointed at the test server's port (the site URL of a test server names no port of its own). */
const local = (responseUrl: string) => `${server.url}${new URL(responseUrl).pathname}`

describe("executing a custom command", () => {
  it("POSTs Mattermost's form to the URL and posts an in_channel answer as the user, marked from_webhook", async () => {
    const cmd = await addCommand()
    receiver.reply = () => json({
      response_type: "in_channel",
      text: `Deployed <https://ci.example.com/7|build 7> for <@${team.owner.user.id}> <!here>`,
      attachments: [{ title: "prod", text: "all green", fields: [{ title: "Took", value: 42, short: true }] }]
    })
    const text = `prod  now for @${team.owner.username}, @nobody-at-all in ~${other.name}`
    const response = await run(`/${cmd.trigger} ${text}`)
    const request = receiver.received.at(-1)!
    expect(request.method).toBe("POST")
    expect(request.headers["content-type"]).toBe("application/x-www-form-urlencoded")
    expect(request.headers.authorization).toBe(`Token ${cmd.token}`)
    expect(request.headers.accept).toBe("application/json")
    expect(Object.fromEntries(request.form)).toMatchObject({
      token: cmd.token, team_id: team.team.id, team_domain: team.team.name, channel_id: channel.id, channel_name: channel.name,
      user_id: team.member.user.id, user_name: team.member.username, command: `/${cmd.trigger}`, text
    })
    expect(request.form.getAll("user_mentions")).toEqual([team.owner.username])
    expect(request.form.getAll("user_mentions_ids")).toEqual([team.owner.user.id])
    expect(request.form.getAll("channel_mentions")).toEqual([other.name])
    expect(request.form.getAll("channel_mentions_ids")).toEqual([other.id])
    expect(request.form.get("response_url")).toMatch(/\/hooks\/commands\/[a-z0-9]{26}$/)
    expect(request.form.get("trigger_id")).not.toBe("")
    const shown = `Deployed [build 7](https://ci.example.com/7) for @${team.owner.username} @here`
    expect(response).toMatchObject({ response_type: "in_channel", text: shown })
    expect(response.trigger_id).toMatch(/^[a-z0-9]{26}$/)
    const post = await lastPost(channel.id)
    expect(post).toMatchObject({ user_id: team.member.user.id, message: shown })
    expect(post.props).toMatchObject({ from_webhook: "true", attachments: [{ title: "prod", text: "all green", fields: [{ title: "Took", value: "42", short: true }] }] })
  })

  it("sends GET commands as a query and shows a plain-text answer to the user alone", async () => {
    const cmd = await addCommand({ method: "G", url: `${receiver.url}/get?fixed=1` })
    receiver.reply = () => ({ body: "only you see this" })
    const before = (await team.owner.client.getPosts(channel.id, 0, 1)).order[0]
    const response = await run(`/${cmd.trigger} status`)
    const request = receiver.received.at(-1)!
    expect(request.method).toBe("GET")
    expect(request.url.searchParams.get("fixed")).toBe("1")
    expect(request.url.searchParams.get("text")).toBe("status")
    expect(request.url.searchParams.get("token")).toBe(cmd.token)
    expect(response).toMatchObject({ response_type: "", text: "only you see this" })
    const shown = await ephemeral("only you see this")
    expect(shown).toMatchObject({ to: team.member.user.id, post: { channel_id: channel.id, user_id: team.member.user.id, type: "system_ephemeral" } })
    expect((await team.owner.client.getPosts(channel.id, 0, 1)).order[0]).toBe(before)
  })

  it("handles extra_responses, another channel, goto_location, skip_slack_parsing and overrides while allowed", async () => {
    const cmd = await addCommand({ username: "deploy-bot", icon_url: "https://example.com/bot.png" })
    receiver.reply = () => json({
      response_type: "ephemeral",
      text: "working on <https://x.example.com|it>",
      goto_location: "https://example.com/dashboard",
      extra_responses: [
        { response_type: "in_channel", channel_id: other.id, text: "keep <https://x.example.com|as is>", skip_slack_parsing: true, username: "ignored" },
        { response_type: "in_channel", text: "done", props: { card: "details" } }
      ]
    })
    const response = await run(`/${cmd.trigger}`)
    expect(response.goto_location).toBe("https://example.com/dashboard")
    expect(response.extra_responses.map((r) => [r.response_type, r.text])).toEqual([
      ["in_channel", "keep <https://x.example.com|as is>"],
      ["in_channel", "done"]
    ])
    await ephemeral("working on [it](https://x.example.com)")
    expect(await lastPost(other.id)).toMatchObject({ message: "keep <https://x.example.com|as is>", props: { from_webhook: "true" } })
    expect((await lastPost(other.id)).props.override_username).toBeUndefined()
    expect(await lastPost(channel.id)).toMatchObject({ message: "done", props: { card: "details", from_webhook: "true" } })

    // The first user of the server (the team's owner) is its system admin.
    await team.owner.client.patchConfig({ ServiceSettings: { EnablePostUsernameOverride: true, EnablePostIconOverride: true } } as never)
    try {
      await run(`/${cmd.trigger}`)
      expect((await lastPost(other.id)).props).toMatchObject({ override_username: "deploy-bot", override_icon_url: "https://example.com/bot.png" })
    } finally {
      await team.owner.client.patchConfig({ ServiceSettings: { EnablePostUsernameOverride: false, EnablePostIconOverride: false } } as never)
    }
  })

  it("runs from a DM for the team the client names, and only for a team the user belongs to", async () => {
    const cmd = await addCommand()
    receiver.reply = () => json({ response_type: "in_channel", text: "from the DM" })
    const dm = await team.member.client.createDirectChannel([team.member.user.id, team.owner.user.id])
    await team.member.client.executeCommand(`/${cmd.trigger}`, { channel_id: dm.id, team_id: team.team.id })
    expect(Object.fromEntries(receiver.received.at(-1)!.form)).toMatchObject({ channel_id: dm.id, team_id: team.team.id })
    expect(await lastPost(dm.id)).toMatchObject({ message: "from the DM", user_id: team.member.user.id })
    expect((await failureOf(team.member.client.executeCommand(`/${cmd.trigger}`, { channel_id: dm.id }))).status).toBe(404)
    const elsewhere = await team.owner.client.createTeam({ name: unique("team"), display_name: "Elsewhere", type: "O" } as never)
    expect((await failureOf(team.member.client.executeCommand("/away", { channel_id: dm.id, team_id: elsewhere.id }))).status).toBe(403)
  })

  it("refuses an answer for a channel the user is not in, and an answer with a system post type", async () => {
    const cmd = await addCommand()
    const secret = await team.owner.client.createChannel({ team_id: team.team.id, name: unique("secret"), display_name: "Secret", type: "P" } as Channel)
    receiver.reply = () => json({ response_type: "in_channel", channel_id: secret.id, text: "sneaky" })
    expect(await failureOf(run(`/${cmd.trigger}`))).toEqual({ status: 403, id: "api.command.command_post.forbidden.app_error" })
    receiver.reply = () => json({ response_type: "in_channel", type: "system_join_channel", text: "fake" })
    expect((await failureOf(run(`/${cmd.trigger}`))).status).toBe(400)
  })
})

describe("response_url", () => {
  it("accepts delayed answers (JSON or text) five times within its lifetime", async () => {
    const cmd = await addCommand()
    receiver.reply = () => json({ response_type: "in_channel", text: "" })
    const before = (await team.owner.client.getPosts(channel.id, 0, 1)).order[0]
    await run(`/${cmd.trigger}`)
    expect((await team.owner.client.getPosts(channel.id, 0, 1)).order[0]).toBe(before)
    const url = local(receiver.received.at(-1)!.form.get("response_url")!)
    const later = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ response_type: "in_channel", text: "finished later" }) })
    expect(later.status).toBe(200)
    expect(await later.text()).toBe("ok")
    expect(await lastPost(channel.id)).toMatchObject({ message: "finished later", user_id: team.member.user.id, props: { from_webhook: "true" } })
    const text = await fetch(url, { method: "POST", headers: { "content-type": "text/plain" }, body: "a private follow-up" })
    expect(text.status).toBe(200)
    await ephemeral("a private follow-up")
    for (let i = 0; i < 3; i++) expect((await fetch(url, { method: "POST", body: "again" })).status).toBe(200)
    const spent = await fetch(url, { method: "POST", body: "one too many" })
    expect(spent.status).toBe(400)
    expect((await spent.json()).id).toBe("app.command_webhook.try_use.invalid")
  })

  it("answers 404 for an unknown response URL and 400 for an unreadable answer", async () => {
    const unknown = await fetch(`${server.url}/hooks/commands/${"a".repeat(26)}`, { method: "POST", body: "hi" })
    expect(unknown.status).toBe(404)
    expect((await unknown.json()).id).toBe("app.command_webhook.get.missing")
    const garbled = await fetch(`${server.url}/hooks/commands/${"a".repeat(26)}`, { method: "POST", headers: { "content-type": "application/json" }, body: "{oops" })
    expect(garbled.status).toBe(400)
    expect((await garbled.json()).id).toBe("web.command_webhook.parse.app_error")
  })
})

describe("failing, slow and forbidden integrations", () => {
  it("a failing integration is a clear 502, never a 500", async () => {
    const cmd = await addCommand()
    receiver.reply = () => ({ status: 500, body: "boom" })
    const failed = await fetch(`${server.url}/api/v4/commands/execute`, {
      method: "POST",
      headers: { authorization: `Bearer ${team.member.client.getToken()}`, "content-type": "application/json" },
      body: JSON.stringify({ command: `/${cmd.trigger}`, channel_id: channel.id })
    })
    expect(failed.status).toBe(502)
    expect(await failed.json()).toMatchObject({ id: "api.command.execute_command.failed_resp.app_error", message: `Command with a trigger of '${cmd.trigger}' returned response 500 Internal Server Error.` })
    receiver.reply = () => ({ contentType: "application/json", body: "{not json" })
    expect(await failureOf(run(`/${cmd.trigger}`))).toEqual({ status: 502, id: "api.command.execute_command.failed.app_error" })
    receiver.reply = () => ({ contentType: "application/json", body: "null" })
    expect(await failureOf(run(`/${cmd.trigger}`))).toEqual({ status: 502, id: "api.command.execute_command.failed_empty.app_error" })
    const closed = await startReceiver()
    await closed.close()
    const dead = await addCommand({ url: `${closed.url}/gone` })
    expect(await failureOf(run(`/${dead.trigger}`))).toEqual({ status: 502, id: "api.command.execute_command.failed.app_error" })
  })

  it("a slow integration times out with 504 and never delays anyone else's requests", async () => {
    const cmd = await addCommand()
    let release = () => {}
    const held = new Promise<void>((resolve) => (release = resolve))
    receiver.reply = async () => {
      await held
      return json({ text: "too late" })
    }
    const started = Date.now()
    let settled = false
    const slow = failureOf(run(`/${cmd.trigger}`)).finally(() => (settled = true))
    await eventually(() => receiver.received.some((r) => r.form.get("command") === `/${cmd.trigger}`), "the slow request")
    // While the integration holds its request, the same user posts and reads: all served before the command ends.
    for (let i = 0; i < 3; i++) {
      await team.member.client.createPost({ channel_id: channel.id, message: `meanwhile ${i}` } as Post)
      await team.member.client.getMe()
    }
    expect(settled).toBe(false)
    expect((await lastPost(channel.id)).message).toBe("meanwhile 2")
    expect(await slow).toEqual({ status: 504, id: "api.command.execute_command.failed.app_error" })
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS * 3)
    release()
  })

  it("the SSRF guard refuses an internal address that is not on the allow-list, before connecting", async () => {
    const port = new URL(receiver.url).port
    const cmd = await addCommand({ url: `http://127.0.0.2:${port}/internal` })
    const count = receiver.received.length
    const refused = await fetch(`${server.url}/api/v4/commands/execute`, {
      method: "POST",
      headers: { authorization: `Bearer ${team.member.client.getToken()}`, "content-type": "application/json" },
      body: JSON.stringify({ command: `/${cmd.trigger}`, channel_id: channel.id })
    })
    expect(refused.status).toBe(502)
    expect((await refused.json()).detailed_error).toContain("SERVICE_ALLOW_INTERNAL_CONNECTIONS")
    expect(receiver.received.length).toBe(count)
    const submit = await failureOf(team.member.client.submitInteractiveDialog({
      url: `http://127.0.0.2:${port}/dialog`, callback_id: "c", state: "", user_id: "", channel_id: channel.id, team_id: team.team.id, submission: {}, cancelled: false
    }))
    expect(submit).toEqual({ status: 502, id: "app.submit_interactive_dialog.app_error" })
  })
})

describe("interactive dialogs", () => {
  it("a command's trigger id opens a dialog on the user's sockets; the submission reaches the integration", async () => {
    const socket = new MattermostSocket(wsUrl(server.url), team.member.client.getToken())
    await socket.connect()
    await socket.hello()
    const cmd = await addCommand()
    const dialog = { callback_id: "deploy", title: "Deploy", state: "s1", elements: [{ display_name: "Service", name: "service", type: "text" }] }
    receiver.reply = async (request) => {
      const opened = await fetch(`${server.url}/api/v4/actions/dialogs/open`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ trigger_id: request.form.get("trigger_id"), url: `${receiver.url}/dialog`, dialog })
      })
      return { body: opened.status === 200 ? "" : `open failed ${opened.status}` }
    }
    const response = await run(`/${cmd.trigger}`)
    const event = await socket.waitFor((e) => e.event === "open_dialog", "open_dialog")
    expect(JSON.parse(event.data!.dialog as string)).toEqual({ trigger_id: response.trigger_id, url: `${receiver.url}/dialog`, dialog })
    socket.close()

    receiver.reply = () => json({ errors: { service: "Unknown service" } })
    const answer = await team.member.client.submitInteractiveDialog({
      url: `${receiver.url}/dialog`, callback_id: "deploy", state: "s1", user_id: "", channel_id: channel.id, team_id: team.team.id,
      submission: { service: "nope" }, cancelled: false
    })
    expect(answer).toEqual({ errors: { service: "Unknown service" } })
    expectShape(answer, SubmitDialogResponse, "dialog answer")
    const submitted = receiver.received.at(-1)!
    expect(submitted.headers["content-type"]).toBe("application/json")
    expect(JSON.parse(submitted.body)).toEqual({
      type: "dialog_submission", callback_id: "deploy", state: "s1", user_id: team.member.user.id, channel_id: channel.id,
      team_id: team.team.id, submission: { service: "nope" }, cancelled: false
    })
    receiver.reply = () => ({ body: "" })
    expect(await team.member.client.submitInteractiveDialog({ url: `${receiver.url}/dialog`, callback_id: "", state: "", user_id: "", channel_id: channel.id, team_id: team.team.id, submission: {}, cancelled: true })).toEqual({})
  })

  it("refuses forged or garbled trigger ids, invalid dialogs and missing URLs", async () => {
    const cmd = await addCommand()
    receiver.reply = () => json({})
    await run(`/${cmd.trigger}`)
    const triggerId = receiver.received.at(-1)!.form.get("trigger_id")!
    const open = (body: unknown) =>
      fetch(`${server.url}/api/v4/actions/dialogs/open`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
    const dialog = { title: "Fine", elements: [] }
    const decoded = Buffer.from(triggerId, "base64").toString()
    const [client, , issued, signature] = decoded.split(":")
    const forged = Buffer.from(`${client}:${team.owner.user.id}:${issued}:${signature}`).toString("base64")
    const cases: Array<[unknown, string]> = [
      [{ trigger_id: forged, url: "https://x.example.com", dialog }, "interactive_message.decode_trigger_id.verify_signature_failed"],
      [{ trigger_id: "garbage", url: "https://x.example.com", dialog }, "interactive_message.decode_trigger_id.missing_data"],
      [{ trigger_id: triggerId, url: "", dialog }, "api.context.invalid_param.app_error"],
      [{ trigger_id: triggerId, url: "https://x.example.com", dialog: { title: "" } }, "api.context.invalid_body_param.app_error"],
      [{ trigger_id: triggerId, url: "https://x.example.com", dialog: { title: "T", elements: [{ display_name: "A", name: "a", type: "text" }, { display_name: "B", name: "a", type: "text" }] } }, "api.context.invalid_body_param.app_error"],
      [{ trigger_id: triggerId, url: "https://x.example.com", dialog: { title: "T", elements: [{ display_name: "A", name: "a", type: "slider" }] } }, "api.context.invalid_body_param.app_error"]
    ]
    for (const [body, id] of cases) {
      const answer = await open(body)
      expect({ body, status: answer.status, id: (await answer.json()).id }).toEqual({ body, status: 400, id })
    }
    expect((await open({ trigger_id: triggerId, url: "https://x.example.com", dialog })).status).toBe(200)
    expect((await failureOf(team.member.client.submitInteractiveDialog({ url: "", callback_id: "", state: "", user_id: "", channel_id: channel.id, team_id: team.team.id, submission: {}, cancelled: false }))).status).toBe(400)
  })
})

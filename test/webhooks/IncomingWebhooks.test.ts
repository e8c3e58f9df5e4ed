import type { Channel } from "@mattermost/types/channels"
import type { IncomingWebhook } from "@mattermost/types/integrations"
import type { Post } from "@mattermost/types/posts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { raw } from "../compat/Raw.ts"
import { expectShape, Wire } from "../compat/Shapes.ts"
import { failureOf, newUser, unique } from "../support/Clients.ts"
import { teamOfTwo } from "../support/Teams.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/** Incoming webhooks through Client4 and raw HTTP: management, who may, and posting Mattermost's and Slack's payloads. */
let server: TestServer
let admin: Awaited<ReturnType<typeof newUser>>
let team: Awaited<ReturnType<typeof teamOfTwo>>
let channel: Channel
let other: Channel

beforeAll(async () => {
  server = await startServer()
  admin = await newUser(server.url, "admin")
  // The team's creator is its team admin; the member is a plain member.
  team = await teamOfTwo(server.url, ["lead", "dev"])
  channel = await team.owner.client.createChannel({ team_id: team.team.id, name: unique("alerts"), display_name: "Alerts", type: "O" } as Channel)
  other = await team.owner.client.createChannel({ team_id: team.team.id, name: unique("other"), display_name: "Other", type: "O" } as Channel)
  await team.owner.client.addToChannel(team.member.user.id, channel.id)
})
afterAll(() => server?.close())

const send = (hookId: string, body: string, contentType = "application/json") =>
  fetch(`${server.url}/hooks/${hookId}`, { method: "POST", headers: { "content-type": contentType }, body })

const lastPost = async (channelId: string) => {
  const posts = await team.owner.client.getPosts(channelId, 0, 1)
  return posts.posts[posts.order[0]] as Post
}

describe("incoming webhooks", () => {
  it("a team admin creates a hook; a JSON payload posts as the creator, marked from_webhook, answered `ok`", async () => {
    const hook = await team.owner.client.createIncomingWebhook({ channel_id: channel.id, display_name: "CI", description: "builds" })
    expect(hook).toMatchObject({ channel_id: channel.id, team_id: team.team.id, user_id: team.owner.user.id, display_name: "CI", channel_locked: false })
    expectShape(hook, Wire.IncomingWebhook, "created hook")
    const response = await send(hook.id, JSON.stringify({ text: "build #7 **passed**" }))
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toMatch(/^text\/plain/)
    expect(await response.text()).toBe("ok")
    const post = await lastPost(channel.id)
    expect(post).toMatchObject({ message: "build #7 **passed**", user_id: team.owner.user.id })
    expect(post.props).toMatchObject({ from_webhook: "true" })
    expect((await team.owner.client.getIncomingWebhook(hook.id)).last_used).toBeGreaterThan(0)
  })

  it("accepts Slack's form payload with attachments, and a channel override unless locked", async () => {
    const hook = await team.owner.client.createIncomingWebhook({ channel_id: channel.id })
    const attachments = [{
      fallback: "Deploy failed", color: "#ff0000", pretext: "Deploy", author_name: "ci", title: "prod", title_link: "https://ci.example.com/1",
      text: "step 3 failed", fields: [{ title: "Env", value: "prod", short: true }], image_url: "https://ci.example.com/i.png", footer: "ci"
    }]
    const form = new URLSearchParams({ payload: JSON.stringify({ attachments, channel: other.name }) }).toString()
    const response = await send(hook.id, form, "application/x-www-form-urlencoded")
    expect(await response.text()).toBe("ok")
    const post = await lastPost(other.id)
    expect(post.props).toMatchObject({ from_webhook: "true", attachments })

    const locked = await team.owner.client.createIncomingWebhook({ channel_id: channel.id, channel_locked: true })
    const refused = await send(locked.id, JSON.stringify({ text: "elsewhere", channel: `#${other.name}` }))
    expect(refused.status).toBe(403)
    expect((await refused.json()).id).toBe("web.incoming_webhook.channel_locked.app_error")
    const missing = await send(hook.id, JSON.stringify({ text: "x", channel: "no-such-channel" }))
    expect(missing.status).toBe(404)
  })

  it("applies username and icon overrides only while the override switches are on", async () => {
    const hook = await team.owner.client.createIncomingWebhook({ channel_id: channel.id, username: "hook-name", icon_url: "https://example.com/hook.png" })
    await send(hook.id, JSON.stringify({ text: "no override" }))
    expect((await lastPost(channel.id)).props.override_username).toBeUndefined()
    await admin.client.patchConfig({ ServiceSettings: { EnablePostUsernameOverride: true, EnablePostIconOverride: true } } as never)
    try {
      expect(await admin.client.getClientConfig() as Record<string, string>).toMatchObject({ EnablePostUsernameOverride: "true", EnablePostIconOverride: "true" })
      await send(hook.id, JSON.stringify({ text: "hook's own" }))
      expect((await lastPost(channel.id)).props).toMatchObject({ override_username: "hook-name", override_icon_url: "https://example.com/hook.png" })
      await send(hook.id, JSON.stringify({ text: "payload's", username: "deploy-bot", icon_url: "https://example.com/p.png" }))
      expect((await lastPost(channel.id)).props).toMatchObject({ override_username: "deploy-bot", override_icon_url: "https://example.com/p.png" })
    } finally {
      await admin.client.patchConfig({ ServiceSettings: { EnablePostUsernameOverride: false, EnablePostIconOverride: false } } as never)
    }
  })

  it("answers Mattermost's errors for bad payloads and unknown hooks", async () => {
    const hook = await team.owner.client.createIncomingWebhook({ channel_id: channel.id })
    const cases: Array<[string, string, string, number, string]> = [
      [hook.id, JSON.stringify({}), "application/json", 400, "web.incoming_webhook.text.app_error"],
      [hook.id, JSON.stringify({ text: "   " }), "application/json", 400, "web.incoming_webhook.text.app_error"],
      [hook.id, "{not json", "application/json", 400, "web.incoming_webhook.parse.app_error"],
      [hook.id, JSON.stringify({ text: 5 }), "application/json", 400, "web.incoming_webhook.parse.app_error"],
      [hook.id, JSON.stringify({ text: "x", attachments: "no" }), "application/json", 400, "web.incoming_webhook.parse.app_error"],
      [hook.id, "payload=%7Bbroken", "application/x-www-form-urlencoded", 400, "web.incoming_webhook.parse.app_error"],
      [hook.id, JSON.stringify({ text: "x".repeat(20000) }), "application/json", 400, "model.post.is_valid.message_length.app_error"],
      ["abcdefghijklmnopqrstuvwxyz", JSON.stringify({ text: "x" }), "application/json", 400, "web.incoming_webhook.invalid.app_error"],
      ["not-an-id", JSON.stringify({ text: "x" }), "application/json", 400, "web.incoming_webhook.invalid.app_error"]
    ]
    for (const [id, body, type, status, errorId] of cases) {
      const response = await send(id, body, type)
      expect([body.slice(0, 40), response.status]).toEqual([body.slice(0, 40), status])
      const error = await response.json()
      expect(error.id).toBe(errorId)
      expect(Object.keys(error).sort()).toEqual(["detailed_error", "id", "message", "request_id", "status_code"])
    }
    await team.owner.client.removeIncomingWebhook(hook.id)
    expect((await send(hook.id, JSON.stringify({ text: "gone" }))).status).toBe(400)
  })

  it("manages hooks: list per team, update, delete; members and outsiders may not", async () => {
    const hook = await team.owner.client.createIncomingWebhook({ channel_id: channel.id, display_name: "one" })
    const listed = await team.owner.client.getIncomingWebhooks(team.team.id, 0, 200) as Array<IncomingWebhook>
    expect(listed.map((h) => h.id)).toContain(hook.id)
    listed.forEach((h, i) => expectShape(h, Wire.IncomingWebhook, `hooks[${i}]`))
    const updated = await team.owner.client.updateIncomingWebhook({ ...hook, display_name: "renamed", channel_id: other.id })
    expect(updated).toMatchObject({ display_name: "renamed", channel_id: other.id })
    expectShape(updated, Wire.IncomingWebhook, "updated hook")
    const all = await admin.client.getIncomingWebhooks("", 0, 200) as Array<IncomingWebhook>
    expect(all.map((h) => h.id)).toContain(hook.id)
    const counted = await raw(server.url, `/api/v4/hooks/incoming?team_id=${team.team.id}&include_total_count=true`, { token: team.owner.client.getToken() })
    expect(counted.status).toBe(200)
    const withCount = expectShape(counted.body, Wire.IncomingWebhooksWithCount, "hooks with their count")
    expect(withCount.total_count).toBe(withCount.incoming_webhooks.length)
    expect(withCount.incoming_webhooks.map((h) => h.id)).toContain(hook.id)

    const outsider = await newUser(server.url, "out")
    const denied = [
      () => team.member.client.createIncomingWebhook({ channel_id: channel.id }),
      () => team.member.client.getIncomingWebhooks(team.team.id),
      () => team.member.client.getIncomingWebhook(hook.id),
      () => team.member.client.updateIncomingWebhook({ ...updated, display_name: "mine" }),
      () => team.member.client.removeIncomingWebhook(hook.id),
      () => team.member.client.getIncomingWebhooks(),
      () => outsider.client.createIncomingWebhook({ channel_id: channel.id }),
      () => outsider.client.getIncomingWebhook(hook.id),
      () => team.owner.client.createIncomingWebhook({ channel_id: channel.id, user_id: team.member.user.id })
    ]
    for (const call of denied) expect((await failureOf(call())).status).toBe(403)
    expect((await team.owner.client.getIncomingWebhook(hook.id)).display_name).toBe("renamed")
    await team.owner.client.removeIncomingWebhook(hook.id)
    expect((await failureOf(team.owner.client.getIncomingWebhook(hook.id))).status).toBe(404)

    const token = team.owner.client.getToken()
    for (const [method, path, body] of [
      ["POST", "/api/v4/hooks/incoming", {}],
      ["POST", "/api/v4/hooks/incoming", { channel_id: "bad" }],
      ["POST", "/api/v4/hooks/incoming", { channel_id: channel.id, display_name: "x".repeat(65) }],
      ["PUT", `/api/v4/hooks/incoming/${hook.id}`, { id: "other", channel_id: channel.id }],
      ["GET", "/api/v4/hooks/incoming?team_id=nope", undefined],
      ["GET", "/api/v4/hooks/incoming/short", undefined]
    ] as Array<[string, string, unknown]>) {
      expect([path, (await raw(server.url, path, { method, token, body })).status]).toEqual([path, 400])
    }
  })

  it("limits each hook to 120 posts a minute (429 with Retry-After), other hooks unaffected", async () => {
    const busy = await team.owner.client.createIncomingWebhook({ channel_id: other.id })
    const quiet = await team.owner.client.createIncomingWebhook({ channel_id: other.id })
    for (let batch = 0; batch < 12; batch++) {
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => send(busy.id, JSON.stringify({ text: `n${batch * 10 + i}` }))))
      expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200))
    }
    const over = await send(busy.id, JSON.stringify({ text: "one too many" }))
    // Unless the minute turned meanwhile; then the next 120 are allowed again and this one passed.
    if (over.status !== 200) {
      expect(over.status).toBe(429)
      expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0)
      expect((await over.json()).id).toBe("api.context.rate_limit_exceeded.app_error")
    }
    expect((await send(quiet.id, JSON.stringify({ text: "fine" }))).status).toBe(200)
  })

  it("EnableIncomingWebhooks off: posting answers 501; config/client reports it", async () => {
    const hook = await team.owner.client.createIncomingWebhook({ channel_id: channel.id })
    await admin.client.patchConfig({ ServiceSettings: { EnableIncomingWebhooks: false } } as never)
    try {
      expect((await admin.client.getClientConfig() as Record<string, string>).EnableIncomingWebhooks).toBe("false")
      const response = await send(hook.id, JSON.stringify({ text: "x" }))
      expect(response.status).toBe(501)
      expect((await response.json()).id).toBe("api.incoming_webhook.disabled.app_error")
    } finally {
      await admin.client.patchConfig({ ServiceSettings: { EnableIncomingWebhooks: true } } as never)
    }
  })
})

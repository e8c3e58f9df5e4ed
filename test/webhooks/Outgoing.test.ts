import type { Channel } from "@mattermost/types/channels"
import type { OutgoingWebhook } from "@mattermost/types/integrations"
import type { Post } from "@mattermost/types/posts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { raw } from "../compat/Raw.ts"
import { expectShape, Wire } from "../compat/Shapes.ts"
import { failureOf, newUser, unique } from "../support/Clients.ts"
import { teamOfTwo } from "../support/Teams.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { eventually, type Receiver, startReceiver } from "./Receiver.ts"

/**
 * Outgoing webhooks through Client4 against loopback receivers: management and who may, the payloads (JSON and form),
 * trigger words both ways, channel and team scope, answers posted, retries, a hanging receiver that never delays a
 * post, and the SSRF guard for an address outside the allow-list.
 */
let server: TestServer
let receiver: Receiver
let admin: Awaited<ReturnType<typeof newUser>>
let team: Awaited<ReturnType<typeof teamOfTwo>>
let town: Channel
let other: Channel
let secret: Channel

beforeAll(async () => {
  receiver = await startReceiver()
  // 127.0.0.1 is allowed (and 127.0.0.3, where nothing listens); 127.0.0.2, loopback as well, stands for the
  // server's own network.
  server = await startServer({ env: { SERVICE_ALLOW_INTERNAL_CONNECTIONS: "127.0.0.1,127.0.0.3" } })
  admin = await newUser(server.url, "admin")
  team = await teamOfTwo(server.url, ["lead", "dev"])
  const channel = (name: string, type: "O" | "P") =>
    team.owner.client.createChannel({ team_id: team.team.id, name: unique(name), display_name: name, type } as Channel)
  town = await channel("town", "O")
  other = await channel("other", "O")
  secret = await channel("secret", "P")
  for (const c of [town, other, secret]) await team.owner.client.addToChannel(team.member.user.id, c.id)
})
afterAll(async () => {
  await server?.close()
  await receiver?.close()
})

const hook = (fields: Partial<OutgoingWebhook>) =>
  team.owner.client.createOutgoingWebhook({ team_id: team.team.id, display_name: "bot", ...fields } as OutgoingWebhook)

const say = (channelId: string, message: string, rootId = "") =>
  team.member.client.createPost({ channel_id: channelId, message, root_id: rootId } as Post)

/** The post answering `to` (a reply or the channel's newest from a webhook), once there. */
const answerIn = (channelId: string, match: (p: Post) => boolean) =>
  eventually(async () => {
    const list = await team.owner.client.getPosts(channelId, 0, 30)
    return Object.values(list.posts).find((p) => p.props?.from_webhook === "true" && match(p))
  }, "the webhook's answer")

describe("outgoing webhooks", () => {
  it("a trigger word sends Mattermost's JSON payload; a comment answer is posted in the thread, from_webhook", async () => {
    const url = receiver.url("/json", () => ({ json: { text: "deploy started", response_type: "comment", props: { build: 7 } } }))
    const created = await hook({ channel_id: town.id, trigger_words: ["deploy"], callback_urls: [url], content_type: "application/json", description: "ci" })
    expect(created).toMatchObject({ channel_id: town.id, team_id: team.team.id, creator_id: team.owner.user.id, trigger_when: 0, content_type: "application/json" })
    expect(created.token).toMatch(/^[a-z0-9]{26}$/)

    const post = await say(town.id, "deploy   prod now")
    const [request] = await eventually(() => receiver.at("/json").length > 0 && receiver.at("/json"), "the call")
    expect(request.headers["content-type"]).toBe("application/json")
    expect(JSON.parse(request.body)).toEqual({
      token: created.token, team_id: team.team.id, team_domain: team.team.name, channel_id: town.id, channel_name: town.name,
      timestamp: post.create_at, user_id: team.member.user.id, user_name: team.member.user.username, post_id: post.id,
      text: "deploy   prod now", trigger_word: "deploy", file_ids: ""
    })
    const answer = await answerIn(town.id, (p) => p.root_id === post.id)
    expect(answer).toMatchObject({ message: "deploy started", user_id: team.owner.user.id })
    expect(answer.props).toMatchObject({ from_webhook: "true", webhook_display_name: "bot", build: 7 })
    // The answer starts with the trigger word, yet a webhook's post never fires hooks.
    // A trigger in a thread: the answer goes to the same thread.
    const reply = await say(town.id, "deploy again", post.id)
    await eventually(() => receiver.at("/json").length === 2, "the second call")
    expect(JSON.parse(receiver.at("/json")[1].body)).toMatchObject({ post_id: reply.id, text: "deploy again" })
    await eventually(async () => (await team.owner.client.getPostThread(post.id)).order.length === 4 || undefined, "the second answer in the thread")
    expect(receiver.at("/json")).toHaveLength(2)
    await team.owner.client.removeOutgoingWebhook(created.id)
  })

  it("form content: the form payload (timestamp in seconds); an answer with attachments and overrides when allowed", async () => {
    const attachments = [{ fallback: "ok", color: "#00ff00", title: "Result", text: "all green" }]
    const url = receiver.url("/form", () => ({ json: { text: "", attachments, username: "robot", icon_url: "https://example.com/r.png" } }))
    const created = await hook({ channel_id: other.id, trigger_words: ["status"], callback_urls: [url], content_type: "application/x-www-form-urlencoded", username: "hooky" })
    await admin.client.patchConfig({ ServiceSettings: { EnablePostUsernameOverride: true, EnablePostIconOverride: true } } as never)
    try {
      const post = await say(other.id, "status please")
      expect(receiver.at("/form")).toHaveLength(0)
      const [request] = await eventually(() => receiver.at("/form").length > 0 && receiver.at("/form"), "the call")
      expect(request.headers["content-type"]).toBe("application/x-www-form-urlencoded")
      const form = Object.fromEntries(new URLSearchParams(request.body))
      expect(form).toEqual({
        token: created.token, team_id: team.team.id, team_domain: team.team.name, channel_id: other.id, channel_name: other.name,
        timestamp: String(Math.floor(post.create_at / 1000)), user_id: team.member.user.id, user_name: team.member.user.username,
        post_id: post.id, text: "status please", trigger_word: "status", file_ids: ""
      })
      const answer = await answerIn(other.id, (p) => Array.isArray(p.props?.attachments))
      expect(answer.root_id).toBe("")
      expect(answer.props).toMatchObject({ attachments, override_username: "robot", override_icon_url: "https://example.com/r.png" })
    } finally {
      await admin.client.patchConfig({ ServiceSettings: { EnablePostUsernameOverride: false, EnablePostIconOverride: false } } as never)
      await team.owner.client.removeOutgoingWebhook(created.id)
    }
  })

  it("Slack's markup in an answer becomes Mattermost's: announcements, user references, links", async () => {
    const memberId = team.member.user.id
    const url = receiver.url("/slack", () => ({
      json: {
        text: `<!here> <@${memberId}> see <https://ci.example.com/7|build 7> and <@nosuchuser>`,
        attachments: [{ pretext: "<!channel>", text: "<https://ci.example.com/log|log>", title: `for <@${memberId}>`, fields: [{ title: "by", value: `<@${memberId}>`, short: true }] }]
      }
    }))
    const created = await hook({ channel_id: other.id, trigger_words: ["slack"], callback_urls: [url] })
    await say(other.id, "slack markup")
    const at = `@${team.member.user.username}`
    const answer = await answerIn(other.id, (p) => p.message.startsWith("@here"))
    expect(answer.message).toBe(`@here ${at} see [build 7](https://ci.example.com/7) and <@nosuchuser>`)
    expect(answer.props.attachments).toEqual([{ pretext: "@channel", text: "[log](https://ci.example.com/log)", title: `for ${at}`, fields: [{ title: "by", value: at, short: true }] }])
    await team.owner.client.removeOutgoingWebhook(created.id)
  })

  it("an answer longer than a post may be goes out as several posts, the attachments with the last", async () => {
    const long = "é".repeat(16_383) + "tail"
    const url = receiver.url("/long", () => ({ json: { text: long, attachments: [{ text: "summary" }] } }))
    const created = await hook({ channel_id: other.id, trigger_words: ["log"], callback_urls: [url] })
    await say(other.id, "log please")
    const tail = await answerIn(other.id, (p) => p.message === "tail")
    expect(tail.props.attachments).toEqual([{ text: "summary" }])
    const list = await team.owner.client.getPosts(other.id, 0, 5)
    const head = list.posts[list.order[list.order.indexOf(tail.id) + 1]]
    expect(head.message).toBe("é".repeat(16_383))
    expect(head.props).toMatchObject({ from_webhook: "true" })
    expect(head.props.attachments).toBeUndefined()
    await team.owner.client.removeOutgoingWebhook(created.id)
  })

  it("trigger_when: 0 wants the first word exactly, 1 a first word starting with a trigger; other posts send nothing", async () => {
    const exact = receiver.url("/exact")
    const prefix = receiver.url("/prefix")
    const done = receiver.url("/done", () => ({ json: { text: "done" } }))
    const hooks = [
      await hook({ channel_id: town.id, trigger_words: ["build", "ship"], callback_urls: [exact] }),
      await hook({ channel_id: town.id, trigger_words: ["build"], trigger_when: 1, callback_urls: [prefix] }),
      await hook({ channel_id: town.id, trigger_words: ["sentinel"], callback_urls: [done] })
    ]
    const building = await say(town.id, "building the thing")
    const build = await say(town.id, "build it")
    const ship = await say(town.id, "ship")
    await say(town.id, "please build")
    await say(town.id, "Build")
    const last = await say(town.id, "sentinel")
    await answerIn(town.id, (p) => p.message === "done")
    await eventually(() => receiver.at("/exact").length >= 2 && receiver.at("/prefix").length >= 2, "the calls")
    const postsAt = (path: string) => receiver.at(path).map((r) => Object.fromEntries(new URLSearchParams(r.body))).map((f) => [f.post_id, f.trigger_word])
    expect(postsAt("/exact").sort()).toEqual([[build.id, "build"], [ship.id, "ship"]].sort())
    expect(postsAt("/prefix").sort()).toEqual([[building.id, "build"], [build.id, "build"]].sort())
    expect(postsAt("/done")).toEqual([[last.id, "sentinel"]])
    for (const h of hooks) await team.owner.client.removeOutgoingWebhook(h.id)
  })

  it("scope: a team hook watches every public channel, a channel hook its channel (all posts without words), never private ones", async () => {
    const teamWide = receiver.url("/team", () => ({ json: { text: "heard" } }))
    const channelOnly = receiver.url("/channel")
    const hooks = [
      await hook({ trigger_words: ["ask"], callback_urls: [teamWide] }),
      await hook({ channel_id: other.id, callback_urls: [channelOnly] })
    ]
    expect(hooks[0].channel_id).toBe("")
    // A public channel the hook's creator is not in: the answer is posted there all the same, as Mattermost does.
    const theirs = await team.member.client.createChannel({ team_id: team.team.id, name: unique("theirs"), display_name: "Theirs", type: "O" } as Channel)
    await say(secret.id, "ask in private")
    const inTown = await say(town.id, "ask in town")
    const inOther = await say(other.id, "just chatting")
    const inTheirs = await say(theirs.id, "ask there")
    await answerIn(town.id, (p) => p.message === "heard")
    const answer = await eventually(async () => {
      const list = await team.member.client.getPosts(theirs.id, 0, 10)
      return Object.values(list.posts).find((p) => p.message === "heard")
    }, "the answer where the creator is no member")
    expect(answer.user_id).toBe(team.owner.user.id)
    await eventually(() => receiver.at("/channel").length > 0, "the channel hook")
    expect(receiver.at("/team").map((r) => Object.fromEntries(new URLSearchParams(r.body)).post_id).sort()).toEqual([inTown.id, inTheirs.id].sort())
    expect(receiver.at("/channel").map((r) => Object.fromEntries(new URLSearchParams(r.body))))
      .toEqual([expect.objectContaining({ post_id: inOther.id, trigger_word: "" })])
    for (const h of hooks) await team.owner.client.removeOutgoingWebhook(h.id)
  })

  it("a hanging or failing receiver never delays posting, nor other hooks; transient failures are retried", async () => {
    const release: Array<() => void> = []
    const hanging = receiver.url("/hang", () => new Promise((resolve) => release.push(() => resolve({ json: { text: "late" } }))))
    const flaky = receiver.url("/flaky", (_r, count) => count <= 2 ? { status: 503 } : { json: { text: "third time lucky" } })
    const hooks = [
      await hook({ channel_id: town.id, trigger_words: ["slow"], callback_urls: [hanging, "http://127.0.0.3:1/refused"] }),
      await hook({ channel_id: other.id, trigger_words: ["flaky"], callback_urls: [flaky] })
    ]
    try {
      const timings: Array<number> = []
      for (let i = 0; i < 3; i++) {
        const started = Date.now()
        await say(town.id, `slow ${i}`)
        timings.push(Date.now() - started)
      }
      await eventually(() => receiver.at("/hang").length === 3, "the hanging calls")
      // Every post was answered while its hook's receiver still holds the call.
      expect(release).toHaveLength(3)
      expect(Math.max(...timings)).toBeLessThan(1000)
      await say(other.id, "flaky one")
      const answer = await answerIn(other.id, (p) => p.message === "third time lucky")
      expect(receiver.at("/flaky")).toHaveLength(3)
      expect(answer.root_id).toBe("")
      // The refused URL was tried 4 times (3 retries) for each of the 3 posts, then counted as failed.
      const metrics = await eventually(async () => {
        const text = await (await fetch(`${server.url}/api/v1/health/metrics`)).text()
        return /service_outgoing_webhook_calls_total\{outcome="failed"\} [3-9]/.test(text) && text
      }, "the failed calls counted")
      expect(metrics).toMatch(/service_outgoing_webhook_calls_total\{outcome="posted"\} [1-9]/)
    } finally {
      for (const r of release) r()
      for (const h of hooks) await team.owner.client.removeOutgoingWebhook(h.id)
    }
  })

  it("refuses a callback on the server's own network outside the allow-list (SSRF guard)", async () => {
    const internal = await startReceiver("127.0.0.2")
    try {
      const allowed = receiver.url("/allowed", () => ({ json: { text: "allowed answered" } }))
      const created = await hook({ channel_id: other.id, trigger_words: ["probe"], callback_urls: [internal.url("/metadata"), allowed] })
      await say(other.id, "probe")
      await answerIn(other.id, (p) => p.message === "allowed answered")
      expect(internal.received).toHaveLength(0)
      await team.owner.client.removeOutgoingWebhook(created.id)
    } finally {
      await internal.close()
    }
  })

  it("manages hooks: list by team and channel, update, regenerate the token; members and outsiders may not", async () => {
    const url = receiver.url("/managed")
    const created = await hook({ channel_id: town.id, trigger_words: ["one"], callback_urls: [url] })
    expect((await team.owner.client.getOutgoingWebhooks("", team.team.id)).map((h) => h.id)).toContain(created.id)
    expect((await team.owner.client.getOutgoingWebhooks(town.id)).map((h) => h.id)).toEqual([created.id])
    expect(await team.owner.client.getOutgoingWebhooks(other.id)).toEqual([])
    expect((await admin.client.getOutgoingWebhooks()).map((h) => h.id)).toContain(created.id)
    const updated = await team.owner.client.updateOutgoingWebhook({ ...created, display_name: "renamed", trigger_words: ["two"], trigger_when: 1, channel_id: other.id })
    expect(updated).toMatchObject({ display_name: "renamed", trigger_words: ["two"], trigger_when: 1, channel_id: other.id, token: created.token })
    expectShape(created, Wire.OutgoingWebhook, "created hook")
    expectShape(updated, Wire.OutgoingWebhook, "updated hook")
    ;(await team.owner.client.getOutgoingWebhooks("", team.team.id)).forEach((h, i) => expectShape(h, Wire.OutgoingWebhook, `hooks[${i}]`))
    // Every change applies to the very next post (each node keeps the team's hooks in memory).
    const tokensSent = () => receiver.at("/managed").map((r) => Object.fromEntries(new URLSearchParams(r.body))).map((f) => [f.text, f.token])
    await say(other.id, "twofold")
    await eventually(() => receiver.at("/managed").length === 1, "the updated hook's call")
    const regenerated = await team.owner.client.regenOutgoingHookToken(created.id)
    expect(expectShape(regenerated, Wire.OutgoingWebhook, "regenerated hook").token).not.toBe(created.token)
    expect((await team.owner.client.getOutgoingWebhook(created.id)).token).toBe(regenerated.token)
    await say(other.id, "two")
    await eventually(() => receiver.at("/managed").length === 2, "the call with the new token")
    expect(tokensSent()).toEqual([["twofold", created.token], ["two", regenerated.token]])

    const outsider = await newUser(server.url, "out")
    const denied = [
      () => team.member.client.createOutgoingWebhook({ team_id: team.team.id, channel_id: town.id, callback_urls: [url] } as OutgoingWebhook),
      () => team.member.client.getOutgoingWebhooks("", team.team.id),
      () => team.member.client.getOutgoingWebhooks(town.id),
      () => team.member.client.getOutgoingWebhooks(),
      () => team.member.client.getOutgoingWebhook(created.id),
      () => team.member.client.updateOutgoingWebhook({ ...updated, display_name: "mine" }),
      () => team.member.client.regenOutgoingHookToken(created.id),
      () => team.member.client.removeOutgoingWebhook(created.id),
      () => outsider.client.getOutgoingWebhook(created.id),
      () => outsider.client.createOutgoingWebhook({ team_id: team.team.id, trigger_words: ["x"], callback_urls: [url] } as OutgoingWebhook)
    ]
    for (const call of denied) expect((await failureOf(call())).status).toBe(403)
    // A team admin may make a hook for a member of the team (manage_others_outgoing_webhooks), not for an outsider.
    const theirs = await hook({ creator_id: team.member.user.id, trigger_words: ["theirs"], callback_urls: [url] })
    expect(theirs.creator_id).toBe(team.member.user.id)
    expect((await failureOf(hook({ creator_id: outsider.user.id, trigger_words: ["x"], callback_urls: [url] }))).status).toBe(400)
    for (const h of [created, theirs]) await team.owner.client.removeOutgoingWebhook(h.id)
    expect((await failureOf(team.owner.client.getOutgoingWebhook(created.id))).status).toBe(404)
  })

  it("refuses bad input with Mattermost's errors", async () => {
    const url = receiver.url("/bad")
    const existing = await hook({ channel_id: town.id, trigger_words: ["taken"], callback_urls: [url] })
    const token = team.owner.client.getToken()
    const otherTeam = await team.owner.client.createTeam({ name: unique("elsewhere"), display_name: "Elsewhere", type: "O" } as never)
    const foreign = await team.owner.client.createChannel({ team_id: otherTeam.id, name: unique("foreign"), display_name: "F", type: "O" } as Channel)
    const base = { team_id: team.team.id, trigger_words: ["go"], callback_urls: [url] }
    const cases: Array<[string, string, unknown, number, string]> = [
      ["POST", "/api/v4/hooks/outgoing", { ...base, team_id: "" }, 400, "api.context.invalid_param.app_error"],
      ["POST", "/api/v4/hooks/outgoing", { ...base, callback_urls: [] }, 400, "model.outgoing_hook.is_valid.callback.app_error"],
      ["POST", "/api/v4/hooks/outgoing", { ...base, callback_urls: ["ftp://example.com/x"] }, 400, "model.outgoing_hook.is_valid.url.app_error"],
      ["POST", "/api/v4/hooks/outgoing", { ...base, callback_urls: ["not a url"] }, 400, "model.outgoing_hook.is_valid.url.app_error"],
      ["POST", "/api/v4/hooks/outgoing", { ...base, trigger_words: [" "] }, 400, "model.outgoing_hook.is_valid.trigger_words.app_error"],
      ["POST", "/api/v4/hooks/outgoing", { ...base, trigger_words: [] }, 400, "api.webhooks.create_outgoing.triggers.app_error"],
      ["POST", "/api/v4/hooks/outgoing", { ...base, channel_id: secret.id }, 403, "api.webhooks.create_outgoing.not_open.app_error"],
      ["POST", "/api/v4/hooks/outgoing", { ...base, channel_id: foreign.id }, 403, "api.webhooks.create_outgoing.permissions.app_error"],
      ["POST", "/api/v4/hooks/outgoing", { ...base, channel_id: "nope" }, 400, "api.context.invalid_param.app_error"],
      ["POST", "/api/v4/hooks/outgoing", { ...base, content_type: "text/plain" }, 400, "api.context.invalid_param.app_error"],
      ["POST", "/api/v4/hooks/outgoing", { ...base, trigger_when: 2 }, 400, "api.context.invalid_param.app_error"],
      ["POST", "/api/v4/hooks/outgoing", { ...base, display_name: "x".repeat(65) }, 400, "api.context.invalid_param.app_error"],
      ["POST", "/api/v4/hooks/outgoing", { ...base, channel_id: town.id, trigger_words: ["taken"] }, 400, "api.webhooks.create_outgoing.intersect.app_error"],
      ["PUT", `/api/v4/hooks/outgoing/${existing.id}`, { ...existing, id: "x".repeat(26) }, 400, "api.context.invalid_param.app_error"],
      ["PUT", `/api/v4/hooks/outgoing/${existing.id}`, { ...existing, team_id: otherTeam.id }, 400, "api.webhook.team_mismatch.app_error"],
      ["PUT", `/api/v4/hooks/outgoing/${existing.id}`, { ...existing, channel_id: "", trigger_words: [] }, 400, "api.webhooks.update_outgoing.triggers.app_error"],
      ["GET", "/api/v4/hooks/outgoing?team_id=nope", undefined, 400, "api.context.invalid_param.app_error"],
      ["GET", "/api/v4/hooks/outgoing/short", undefined, 400, "api.context.invalid_param.app_error"],
      ["GET", `/api/v4/hooks/outgoing/${"z".repeat(26)}`, undefined, 404, "app.webhooks.get_outgoing.app_error"]
    ]
    for (const [method, path, body, status, id] of cases) {
      const response = await raw(server.url, path, { method, token, body })
      expect([path, JSON.stringify(body)?.slice(0, 80), response.status, response.body.id]).toEqual([path, JSON.stringify(body)?.slice(0, 80), status, id])
    }
    await team.owner.client.removeOutgoingWebhook(existing.id)
  })

  it("EnableOutgoingWebhooks off: management answers 501; config/client reports it", async () => {
    await admin.client.patchConfig({ ServiceSettings: { EnableOutgoingWebhooks: false } } as never)
    try {
      expect((await admin.client.getClientConfig() as Record<string, string>).EnableOutgoingWebhooks).toBe("false")
      const failure = await failureOf(hook({ channel_id: town.id, callback_urls: [receiver.url("/off")] }))
      expect(failure).toEqual({ status: 501, id: "api.outgoing_webhook.disabled.app_error" })
    } finally {
      await admin.client.patchConfig({ ServiceSettings: { EnableOutgoingWebhooks: true } } as never)
    }
    expect((await admin.client.getClientConfig() as Record<string, string>).EnableOutgoingWebhooks).toBe("true")
  })
})

import type { Channel } from "@mattermost/types/channels"
import type { Post } from "@mattermost/types/posts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { withActionCookies } from "../../src/integrations/PostActions.ts"
import { expectShape, Wire } from "../compat/Shapes.ts"
import { RawSocket, wsUrl } from "../realtime/Sockets.ts"
import { failureOf, newUser, unique } from "../support/Clients.ts"
import { teamOfTwo } from "../support/Teams.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { type Receiver, startReceiver } from "./Receiver.ts"

/**
 * Interactive message actions through Client4: buttons and selects in a post's attachments get ids, clients never
 * see their integration, and a click calls the integration (loopback receiver) and applies its answer, seen over the
 * socket.
 */
let server: TestServer
let receiver: Receiver
let team: Awaited<ReturnType<typeof teamOfTwo>>
let channel: Channel
const sockets: Array<RawSocket> = []

beforeAll(async () => {
  receiver = await startReceiver()
  server = await startServer({ env: { SERVICE_ALLOW_INTERNAL_CONNECTIONS: "127.0.0.1" } })
  await newUser(server.url, "admin")
  team = await teamOfTwo(server.url, ["lead", "dev"])
  channel = await team.owner.client.createChannel({ team_id: team.team.id, name: unique("ops"), display_name: "Ops", type: "O" } as Channel)
  await team.owner.client.addToChannel(team.member.user.id, channel.id)
})
afterAll(async () => {
  for (const s of sockets) s.close()
  await server?.close()
  await receiver?.close()
})

const socketOf = async (client: { getToken: () => string }) => {
  const socket = new RawSocket(wsUrl(server.url), { headers: { authorization: `Bearer ${client.getToken()}` } })
  sockets.push(socket)
  await socket.waitFor((f) => f.event === "hello", "hello")
  return socket
}

interface Action {
  id?: string
  name: string
  type?: string
  integration?: { url: string; context?: Record<string, unknown> }
  options?: Array<{ text: string; value: string }>
  data_source?: string
}

const actionsOf = (post: Post) => ((post.props.attachments as Array<{ actions?: Array<Action> }>)[0].actions ?? [])

const postWith = (actions: Array<Action>, message = "deploy to prod?") =>
  team.owner.client.createPost({ channel_id: channel.id, message, props: { attachments: [{ text: "Approve?", actions }] } } as unknown as Post)

describe("interactive message actions", () => {
  it("actions get ids and lose their integration on the wire; a click calls it with the context and applies the update and ephemeral text", async () => {
    const url = receiver.url("/approve", (r) => {
      const request = JSON.parse(r.body)
      return {
        json: {
          update: { message: `approved by @${request.user_name}`, props: { attachments: [{ text: "Approved", actions: [] }], from_webhook: "true" } },
          ephemeral_text: "You approved the deploy."
        }
      }
    })
    const ownerSocket = await socketOf(team.owner.client)
    const memberSocket = await socketOf(team.member.client)
    const post = await postWith([
      { name: "Approve", integration: { url, context: { deploy: 42, secret: "ctx-secret-QQ" } } },
      { name: "Named", id: "named1", integration: { url, context: {} } }
    ])
    const [approve, named] = actionsOf(post)
    expect(approve.id).toMatch(/^[a-z0-9]{26}$/)
    expect(named.id).toBe("named1")
    for (const seen of [post, await team.member.client.getPost(post.id)]) {
      expect(JSON.stringify(seen)).not.toContain("integration")
      expect(JSON.stringify(seen)).not.toContain("ctx-secret-QQ")
    }
    const posted = await memberSocket.waitFor((f) => f.event === "posted" && JSON.parse(String(f.data?.post)).id === post.id, "posted")
    expect(String(posted.data?.post)).not.toContain("integration")

    const answer = await team.member.client.doPostActionWithCookie(post.id, approve.id!, "", "")
    expect(answer).toEqual({ status: "OK", trigger_id: expect.stringMatching(/^[a-z0-9]{26}$/), goto_location: "" })
    expectShape(answer, Wire.PostActionResponse, "post action answer")
    const [call] = receiver.at("/approve")
    expect(call.headers["content-type"]).toBe("application/json")
    expect(JSON.parse(call.body)).toEqual({
      user_id: team.member.user.id, user_name: team.member.user.username, channel_id: channel.id, channel_name: channel.name,
      team_id: team.team.id, team_domain: team.team.name, post_id: post.id, trigger_id: expect.any(String), type: "", data_source: "",
      context: { deploy: 42, secret: "ctx-secret-QQ" }
    })
    const edited = await memberSocket.waitFor((f) => f.event === "post_edited", "post_edited")
    const editedPost = JSON.parse(String(edited.data?.post)) as Post
    expect(editedPost).toMatchObject({ id: post.id, message: `approved by @${team.member.user.username}` })
    // A post that was not a webhook's does not become one through an update.
    expect(editedPost.props).toEqual({ attachments: [{ text: "Approved", actions: [] }] })
    expect(editedPost.edit_at).toBeGreaterThan(0)
    const ephemeral = await memberSocket.waitFor((f) => f.event === "ephemeral_message", "ephemeral_message")
    expect(JSON.parse(String(ephemeral.data?.post))).toMatchObject({ message: "You approved the deploy.", channel_id: channel.id, root_id: post.id, user_id: team.member.user.id, type: "system_ephemeral" })
    await ownerSocket.waitFor((f) => f.event === "post_edited", "the owner's post_edited")
    expect(ownerSocket.frames.some((f) => f.event === "ephemeral_message")).toBe(false)
    expect((await team.owner.client.getPost(post.id)).message).toBe(`approved by @${team.member.user.username}`)
  })

  it("a click hands the integration a trigger id that opens a dialog for the clicking user, matched by the id the click answered", async () => {
    const dialog = { callback_id: "why", title: "Reason", elements: [{ display_name: "Reason", name: "reason", type: "text" }] }
    const url = receiver.url("/ask", async (r) => {
      const opened = await fetch(`${server.url}/api/v4/actions/dialogs/open`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ trigger_id: JSON.parse(r.body).trigger_id, url: receiver.url("/reason"), dialog })
      })
      return { json: opened.status === 200 ? {} : { ephemeral_text: `open failed ${opened.status}` } }
    })
    const memberSocket = await socketOf(team.member.client)
    const post = await postWith([{ name: "Reject", integration: { url, context: {} } }], "reject the deploy?")
    const answer = await team.member.client.doPostActionWithCookie(post.id, actionsOf(post)[0].id!, "", "") as { trigger_id: string }
    const event = await memberSocket.waitFor((f) => f.event === "open_dialog", "open_dialog")
    expect(JSON.parse(String(event.data?.dialog))).toEqual({ trigger_id: answer.trigger_id, url: receiver.url("/reason"), dialog })
  })

  it("a select sends the chosen option and data source; an answer without update leaves the post; goto_location comes back", async () => {
    const url = receiver.url("/select", () => ({ json: { goto_location: "https://example.com/runbook" } }))
    const post = await postWith([{ name: "Env", type: "select", data_source: "", options: [{ text: "Prod", value: "prod" }, { text: "Dev", value: "dev" }], integration: { url, context: { step: "env" } } }])
    const [select] = actionsOf(post)
    expect(select.options).toHaveLength(2)
    const answer = await team.member.client.doPostAction(post.id, select.id!, "dev")
    expect(answer).toMatchObject({ status: "OK", goto_location: "https://example.com/runbook" })
    const request = JSON.parse(receiver.at("/select")[0].body)
    expect(request).toMatchObject({ type: "select", context: { step: "env", selected_option: "dev" } })
    const after = await team.owner.client.getPost(post.id)
    expect(after).toMatchObject({ message: "deploy to prod?", edit_at: 0 })
  })

  it("an incoming webhook's buttons work too, and its update keeps the webhook's marks", async () => {
    const url = receiver.url("/hooked", () => ({ json: { update: { message: "done", props: { attachments: [{ text: "done" }] } } } }))
    const hook = await team.owner.client.createIncomingWebhook({ channel_id: channel.id })
    const response = await fetch(`${server.url}/hooks/${hook.id}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text: "build failed", attachments: [{ text: "retry?", actions: [{ name: "Retry", integration: { url, context: { build: 9 } } }] }] })
    })
    expect(await response.text()).toBe("ok")
    const list = await team.member.client.getPosts(channel.id, 0, 1)
    const post = list.posts[list.order[0]]
    const [retry] = actionsOf(post)
    expect(retry.id).toMatch(/^[a-z0-9]{26}$/)
    expect(retry.integration).toBeUndefined()
    await team.member.client.doPostAction(post.id, retry.id!)
    expect(JSON.parse(receiver.at("/hooked")[0].body).context).toEqual({ build: 9 })
    const updated = await team.member.client.getPost(post.id)
    expect(updated.message).toBe("done")
    expect(updated.props).toEqual({ from_webhook: "true", attachments: [{ text: "done" }] })
  })

  it("an ephemeral post's actions carry a cookie instead of their integration; a click with the cookie works", async () => {
    const url = receiver.url("/ephemeral", () => ({ json: { ephemeral_text: "picked", update: { message: "ignored: not stored" } } }))
    const ephemeralId = "e".repeat(26)
    const sent = await server.runtime.runPromise(withActionCookies({
      id: ephemeralId, channel_id: channel.id, root_id: "",
      props: { from_webhook: "true", attachments: [{ actions: [{ name: "Pick", integration: { url, context: { contextMarkerGif: 3 } } }] }] }
    }))
    const [pick] = actionsOf(sent as unknown as Post) as Array<Action & { cookie: string }>
    expect(pick.integration).toBeUndefined()
    expect(pick.cookie).not.toContain("contextMarkerGif")
    const memberSocket = await socketOf(team.member.client)
    expect(await team.member.client.doPostActionWithCookie(ephemeralId, pick.id!, pick.cookie)).toMatchObject({ status: "OK", goto_location: "" })
    expect(JSON.parse(receiver.at("/ephemeral")[0].body)).toMatchObject({ post_id: ephemeralId, channel_id: channel.id, context: { contextMarkerGif: 3 } })
    const ephemeral = await memberSocket.waitFor((f) => f.event === "ephemeral_message", "ephemeral_message")
    expect(JSON.parse(String(ephemeral.data?.post))).toMatchObject({ message: "picked", root_id: ephemeralId, props: { from_webhook: "true" } })

    const invalid = { status: 400, id: "api.post.do_action.action_integration.app_error" }
    expect(await failureOf(team.member.client.doPostActionWithCookie(ephemeralId, pick.id!, pick.cookie.slice(0, -4) + "AAAA"))).toEqual(invalid)
    expect(await failureOf(team.member.client.doPostActionWithCookie("f".repeat(26), pick.id!, pick.cookie))).toEqual(invalid)
    expect((await failureOf(team.member.client.doPostAction(ephemeralId, pick.id!))).status).toBe(404)
    const outsider = await newUser(server.url, "peek")
    expect((await failureOf(outsider.client.doPostActionWithCookie(ephemeralId, pick.id!, pick.cookie))).status).toBe(403)
    expect(receiver.at("/ephemeral")).toHaveLength(1)
  })

  it("refuses: unknown action 404, a failing or unparsable integration 400, an internal address 400, an outsider 403", async () => {
    const failing = receiver.url("/failing", () => ({ status: 500, text: "boom" }))
    const garbage = receiver.url("/garbage", () => ({ text: "not json" }))
    const internal = await startReceiver("127.0.0.2")
    try {
      const post = await postWith([
        { name: "Fail", integration: { url: failing } },
        { name: "Garbage", integration: { url: garbage } },
        { name: "Internal", integration: { url: internal.url("/latest/meta-data") } },
        { name: "No integration" }
      ])
      const [fail, junk, inside, none] = actionsOf(post)
      const error = { status: 400, id: "api.post.do_action.action_integration.app_error" }
      expect(await failureOf(team.member.client.doPostAction(post.id, fail.id!))).toEqual(error)
      expect(await failureOf(team.member.client.doPostAction(post.id, junk.id!))).toEqual(error)
      expect(await failureOf(team.member.client.doPostAction(post.id, inside.id!))).toEqual(error)
      expect(internal.received).toHaveLength(0)
      const missing = { status: 404, id: "api.post.do_action.action_id.app_error" }
      expect(await failureOf(team.member.client.doPostAction(post.id, none.id!))).toEqual(missing)
      expect(await failureOf(team.member.client.doPostAction(post.id, "nosuchaction"))).toEqual(missing)
      expect((await failureOf(team.member.client.doPostAction("x".repeat(26), fail.id!))).status).toBe(404)
      const outsider = await newUser(server.url, "out")
      expect((await failureOf(outsider.client.doPostAction(post.id, fail.id!))).status).toBe(403)
      expect(receiver.at("/failing")).toHaveLength(1)
    } finally {
      await internal.close()
    }
  })
})

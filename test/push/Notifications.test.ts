import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Db } from "../../layers/Db.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { call, eventually, makeTeam, type Member, type PushFakes, settle, startPushFakes, verifySignature } from "./support.ts"

/**
 * Message and clear pushes end to end: posts made through POST /api/v4/posts reach exactly the right devices through
 * loopback FCM and APNs, with the spec's content, and nobody else.
 */

let server: TestServer
let fakes: PushFakes
let alice: Member
let bob: Member
let carol: Member
let dave: Member
let erin: Member
let townSquareId: string
let serverId: string
let publicKey: string

const CAROL_TOKEN = "c0ffee01"

const mark = () => ({ fcm: fakes.fcm.messages.length, apns: fakes.apns.requests.length })

const query = <A extends object>(text: string, params: ReadonlyArray<unknown> = []) =>
  server.runtime.runPromise(Effect.flatMap(Db, (db) => db.execute(db.sql.unsafe<A>(text, params as Array<unknown>))))

const post = (who: Member, channel_id: string, message: string, root_id = "") =>
  who.client.createPost({ channel_id, message, root_id } as never)

beforeAll(async () => {
  fakes = await startPushFakes()
  server = await startServer()
  const setup = await makeTeam(server.url, ["alice", "bob", "carol", "dave", "erin"])
  ;({ alice, bob, carol, dave, erin } = setup.members as Record<string, Member>)
  townSquareId = setup.townSquare.id
  const config = (await call(server.url, "GET", "/api/v4/config/client?format=old", setup.admin.token)).body as Record<string, string>
  serverId = config.DiagnosticId
  publicKey = config.AsymmetricSigningPublicKey
  const configured = await call(server.url, "PUT", "/api/v1/admin/push", setup.admin.token, fakes.settings)
  expect(configured.body.enabled_transports).toEqual(["fcm", "apns"])
  for (const [who, token] of [[alice, "alice-tok"], [bob, "bob-tok"], [erin, "erin-tok"]] as const) {
    await call(server.url, "PUT", "/api/v4/users/sessions/device", who.token, { device_id: `android_rn-v2:${token}`, mobile_version: "2.43.0" })
  }
  await call(server.url, "POST", "/api/v4/users/me/device", carol.token, { device_id: "carol-phone", token: CAROL_TOKEN, platform: "ios" })
  await call(server.url, "POST", "/api/v4/users/me/device", dave.token, { device_id: "dave-phone", token: "dave-tok", platform: "android" })
})

afterAll(async () => {
  await server?.close()
  await fakes?.close()
})

describe("message pushes", () => {
  let dmWithBob: string

  it("pushes a direct message to the recipient with the sender as title, 100 characters, normal priority, signed; never to the author", async () => {
    const before = mark()
    const dm = await alice.client.createDirectChannel([alice.id, bob.id])
    dmWithBob = dm.id
    const message = `hi bob ${"x".repeat(120)}`
    const created = await post(alice, dm.id, message)
    const [push] = await eventually(() => fakes.fcmTo("bob-tok", before.fcm).length > 0 ? fakes.fcmTo("bob-tok", before.fcm) : undefined)
    expect(push.projectId).toBe("chat-project")
    expect(push.message.notification).toEqual({ title: alice.username, body: [...message].slice(0, 100).join("") })
    expect(push.message.android).toMatchObject({ priority: "NORMAL", notification: { channel_id: "messages", sound: "default" } })
    expect(push.message.data).toMatchObject({
      type: "message",
      channel_id: dm.id,
      sender_name: alice.username,
      sender_id: alice.id,
      post_id: created.id,
      server_id: serverId,
      version: "v2"
    })
    const claims = await verifySignature(publicKey, push.message.data.signature)
    expect(claims).toMatchObject({ ack_id: push.message.data.ack_id, device_id: "bob-tok" })
    await settle()
    expect(fakes.fcmTo("bob-tok", before.fcm)).toHaveLength(1)
    expect(fakes.fcmTo("alice-tok")).toHaveLength(0)
  })

  it("clears the channel's notifications when the user reads it elsewhere, with the new badge, once", async () => {
    const before = mark()
    await call(server.url, "POST", `/api/v4/channels/members/${bob.id}/view`, bob.token, { channel_id: dmWithBob, prev_channel_id: "" })
    const [clear] = await eventually(() => fakes.fcmTo("bob-tok", before.fcm).length > 0 ? fakes.fcmTo("bob-tok", before.fcm) : undefined)
    expect(clear.message.data).toMatchObject({ type: "clear", channel_id: dmWithBob, badge: "0" })
    expect(clear.message.notification).toBeUndefined()
    await call(server.url, "POST", `/api/v4/channels/members/${bob.id}/view`, bob.token, { channel_id: dmWithBob, prev_channel_id: "" })
    await settle()
    expect(fakes.fcmTo("bob-tok", before.fcm)).toHaveLength(1)
  })

  it("pushes an @username mention in a channel to that member only, titled with sender and channel, over APNs", async () => {
    const before = mark()
    await post(alice, townSquareId, `hey @${carol.username}, lunch?`)
    const [push] = await eventually(() => fakes.apnsTo(CAROL_TOKEN, before.apns).length > 0 ? fakes.apnsTo(CAROL_TOKEN, before.apns) : undefined)
    expect(push.headers).toMatchObject({ "apns-topic": fakes.apns.bundleId, "apns-push-type": "alert", "apns-priority": "5" })
    expect(push.payload.aps).toMatchObject({
      alert: { title: `${alice.username} in Town Square`, body: `hey @${carol.username}, lunch?` },
      sound: "default"
    })
    expect(push.payload).toMatchObject({ channel_id: townSquareId, sender_name: alice.username, type: "message" })
    expect((await verifySignature(publicKey, push.payload.signature as string)).device_id).toBe(CAROL_TOKEN)
    await settle()
    expect(fakes.fcm.messages.length).toBe(before.fcm)
    expect(fakes.apnsTo(CAROL_TOKEN, before.apns)).toHaveLength(1)
  })

  it("pushes a group message to every other member", async () => {
    const before = mark()
    const gm = await alice.client.createGroupChannel([alice.id, bob.id, carol.id])
    await post(alice, gm.id, "group hello")
    const [toBob] = await eventually(() => fakes.fcmTo("bob-tok", before.fcm).length > 0 ? fakes.fcmTo("bob-tok", before.fcm) : undefined)
    const [toCarol] = await eventually(() => fakes.apnsTo(CAROL_TOKEN, before.apns).length > 0 ? fakes.apnsTo(CAROL_TOKEN, before.apns) : undefined)
    expect(toBob.message.notification?.title.startsWith(`${alice.username} in `)).toBe(true)
    expect(toCarol.payload).toMatchObject({ channel_id: gm.id, type: "message" })
    await settle()
    expect(fakes.fcmTo("dave-tok", before.fcm).length + fakes.fcmTo("erin-tok", before.fcm).length + fakes.fcmTo("alice-tok").length).toBe(0)
  })

  it("pushes @channel to every member but the author, except who muted the channel or is on do-not-disturb", async () => {
    await dave.client.updateChannelNotifyProps({ user_id: dave.id, channel_id: townSquareId, mark_unread: "mention" } as never)
    expect((await call(server.url, "PUT", `/api/v4/users/${erin.id}/status`, erin.token, { user_id: erin.id, status: "dnd" })).status).toBe(200)
    const before = mark()
    await post(alice, townSquareId, "@channel standup in 5")
    await eventually(() => fakes.fcmTo("bob-tok", before.fcm).length > 0 ? true : undefined)
    await eventually(() => fakes.apnsTo(CAROL_TOKEN, before.apns).length > 0 ? true : undefined)
    await settle()
    expect(fakes.fcmTo("dave-tok", before.fcm)).toHaveLength(0)
    expect(fakes.fcmTo("erin-tok", before.fcm)).toHaveLength(0)
    expect(fakes.fcmTo("alice-tok")).toHaveLength(0)
    await call(server.url, "PUT", `/api/v4/users/${erin.id}/status`, erin.token, { user_id: erin.id, status: "offline" })
  })

  it("pushes a reply to the members who follow its thread", async () => {
    const root = await post(bob, townSquareId, "who is up for a review?")
    const before = mark()
    const reply = await post(alice, townSquareId, "me", root.id)
    const [push] = await eventually(() => fakes.fcmTo("bob-tok", before.fcm).length > 0 ? fakes.fcmTo("bob-tok", before.fcm) : undefined)
    expect(push.message.data).toMatchObject({ root_id: root.id, post_id: reply.id })
    await settle()
    expect(fakes.apnsTo(CAROL_TOKEN, before.apns)).toHaveLength(0)
  })

  it("follows the user's and the channel's push settings", async () => {
    await carol.client.patchMe({ notify_props: { push: "none" } } as never)
    const dm = await alice.client.createDirectChannel([alice.id, carol.id])
    await bob.client.updateChannelNotifyProps({ user_id: bob.id, channel_id: townSquareId, push: "all" } as never)
    const before = mark()
    await post(alice, dm.id, "are you there?")
    await post(alice, townSquareId, "nothing special")
    const [push] = await eventually(() => fakes.fcmTo("bob-tok", before.fcm).length > 0 ? fakes.fcmTo("bob-tok", before.fcm) : undefined)
    expect(push.message.notification?.body).toBe("nothing special")
    await settle()
    expect(fakes.apnsTo(CAROL_TOKEN, before.apns)).toHaveLength(0)
    await carol.client.patchMe({ notify_props: { push: "mention" } } as never)
    await bob.client.updateChannelNotifyProps({ user_id: bob.id, channel_id: townSquareId, push: "default" } as never)
  })
})

describe("test notifications", () => {
  it("pushes the test notification a user asks for, from the system bot, even where their settings and status would not", async () => {
    await dave.client.patchMe({ notify_props: { push: "none" } } as never)
    await call(server.url, "PUT", `/api/v4/users/${dave.id}/status`, dave.token, { user_id: dave.id, status: "dnd" })
    try {
      const before = mark()
      expect(await call(server.url, "POST", "/api/v4/notifications/test", dave.token)).toMatchObject({ status: 200, body: { status: "OK" } })
      const [push] = await eventually(() => fakes.fcmTo("dave-tok", before.fcm).length > 0 ? fakes.fcmTo("dave-tok", before.fcm) : undefined)
      expect(push.message.notification).toMatchObject({ title: "system-bot", body: expect.stringContaining("test notification") })
      // The message is in a direct channel with the system bot, as any reminder is.
      const channel = await dave.client.getChannel(push.message.data.channel_id)
      expect(channel.type).toBe("D")
      const posts = await dave.client.getPosts(channel.id)
      expect(posts.posts[push.message.data.post_id].message).toContain("test notification")
    } finally {
      await dave.client.patchMe({ notify_props: { push: "mention" } } as never)
      await call(server.url, "PUT", `/api/v4/users/${dave.id}/status`, dave.token, { user_id: dave.id, status: "offline" })
    }
  })

  it("never lets a client force a push: force_notification in a post's props is dropped", async () => {
    await carol.client.patchMe({ notify_props: { push: "none" } } as never)
    try {
      const dm = await alice.client.createDirectChannel([alice.id, carol.id])
      const before = mark()
      const forced = await alice.client.createPost({ channel_id: dm.id, message: "forced?", props: { force_notification: "x" } } as never)
      expect(forced.props).not.toHaveProperty("force_notification")
      await settle()
      expect(fakes.apnsTo(CAROL_TOKEN, before.apns)).toHaveLength(0)
    } finally {
      await carol.client.patchMe({ notify_props: { push: "mention" } } as never)
    }
  })
})

describe("delivery", () => {
  it("retries a provider error after its backoff and delivers", async () => {
    fakes.fcm.behave("bob-tok", { kind: "status", status: 503, retryAfter: "0", times: 1 })
    const before = mark()
    const dm = await alice.client.createDirectChannel([alice.id, bob.id])
    await post(alice, dm.id, "second try")
    const [push] = await eventually(() => fakes.fcmTo("bob-tok", before.fcm).length > 0 ? fakes.fcmTo("bob-tok", before.fcm) : undefined, 8000)
    expect(push.message.notification?.body).toBe("second try")
    const rejected = fakes.fcm.rejections.find((r) => r.token === "bob-tok" && r.body === "second try")!
    expect(rejected.status).toBe(503)
    // The first retry waits at least a second (exponential from one second, or longer if Retry-After says so).
    expect(push.at - rejected.at).toBeGreaterThanOrEqual(900)
  })

  it("removes tokens the providers reject, and sends them nothing more", async () => {
    fakes.fcm.behave("dave-tok", { kind: "unregistered" })
    fakes.apns.behave(CAROL_TOKEN, { kind: "unregistered" })
    const toDave = await alice.client.createDirectChannel([alice.id, dave.id])
    const toCarol = await alice.client.createDirectChannel([alice.id, carol.id])
    await post(alice, toDave.id, "ping dave")
    await post(alice, toCarol.id, "ping carol")
    const registered = async () => (await query<{ token: string }>("SELECT token FROM device_registrations WHERE token IN ('dave-tok', $1)", [CAROL_TOKEN])).length
    const deadline = Date.now() + 5000
    while ((await registered()) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25))
    expect(await registered()).toBe(0)
    const before = mark()
    await post(alice, toDave.id, "still there?")
    await settle()
    expect(fakes.fcmTo("dave-tok", before.fcm)).toHaveLength(0)
  })

  it("counts sent and failed pushes in the metrics", async () => {
    const response = await fetch(`${server.url}/api/v1/health/metrics`)
    const text = await response.text()
    const sent = /service_push_sent_total\{transport="fcm",kind="message"\} (\d+)/.exec(text)
    expect(Number(sent?.[1])).toBeGreaterThan(0)
    expect(text).toMatch(/service_push_failed_total\{transport="fcm",reason="invalid_token"\} [1-9]/)
    expect(text).toMatch(/service_push_failed_total\{transport="apns",reason="invalid_token"\} [1-9]/)
    expect(text).toContain('service_push_dropped_total{reason="queue_full"} 0')
  })
})

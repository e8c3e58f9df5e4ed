import { Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CallChannelState, CallsConfig, CallState, CallsVersion } from "../../schemas/wire/Calls.ts"
import { expectShape } from "../compat/Shapes.ts"
import { type BusEvents, call, collectBusEvents, eventually, makeTeam, type Member, type PushFakes, settle, startPushFakes } from "../push/support.ts"
import { client4 } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * Calls, enough to ring: discovery through plugins/webapp, the plugin's config/version/channels, starting and ending
 * calls, automatic ringing in DMs and GMs, Ring, dismissal, and the WebSocket events on the event bus.
 */

const BASE = "/plugins/com.mattermost.calls"
const CAROL_TOKEN = "ca11ab1e"
const CAROL_VOIP = "5e55e5"

let server: TestServer
let fakes: PushFakes
let alice: Member
let bob: Member
let carol: Member
let dave: Member
let townSquareId: string
let bus: BusEvents

const mark = () => ({ fcm: fakes.fcm.messages.length, apns: fakes.apns.requests.length, events: bus.events.length })
const eventsSince = (from: number, name: string) => bus.events.slice(from).filter((e) => e.event === `custom_com.mattermost.calls_${name}`)

beforeAll(async () => {
  fakes = await startPushFakes()
  server = await startServer()
  bus = collectBusEvents(server)
  const setup = await makeTeam(server.url, ["alice", "bob", "carol", "dave"])
  ;({ alice, bob, carol, dave } = setup.members as Record<string, Member>)
  townSquareId = setup.townSquare.id
  await call(server.url, "PUT", "/api/v1/admin/push", setup.admin.token, fakes.settings)
  await call(server.url, "PUT", "/api/v4/users/sessions/device", alice.token, { device_id: "android_rn-v2:alice-tok" })
  await call(server.url, "PUT", "/api/v4/users/sessions/device", bob.token, { device_id: "android_rn-v2:bob-tok" })
  await call(server.url, "PUT", "/api/v4/users/sessions/device", carol.token, {
    device_id: `apple_rn-v2:${CAROL_TOKEN}`,
    voip_device_id: `apple_rn-v2:${CAROL_VOIP}`
  })
  await call(server.url, "POST", "/api/v4/users/me/device", dave.token, { device_id: "dave-phone", token: "dave-tok", platform: "android" })
})

afterAll(async () => {
  await bus?.stop()
  await server?.close()
  await fakes?.close()
})

describe("discovery", () => {
  it("lists the Calls plugin in plugins/webapp and serves its config, version and channels", async () => {
    const plugins = await alice.client.getWebappPlugins()
    expect(plugins).toEqual([expect.objectContaining({ id: "com.mattermost.calls", version: expect.any(String), webapp: { bundle_path: expect.any(String) } })])
    const config = await call(server.url, "GET", `${BASE}/config`, alice.token)
    expect(config.body).toMatchObject({ EnableRinging: true, DefaultEnabled: true, GroupCallsAllowed: true, ICEServersConfigs: [] })
    expectShape(config.body, CallsConfig, "calls config")
    expectShape((await call(server.url, "GET", `${BASE}/version`, undefined)).body, CallsVersion, "calls version")
    expect((await call(server.url, "GET", `${BASE}/channels?mobilev2=true`, alice.token)).body).toEqual([])
    expect((await call(server.url, "GET", `${BASE}/config`, undefined)).status).toBe(401)
    expect((await call(server.url, "GET", "/api/v4/plugins/statuses", alice.token)).status).toBe(403)
  })
})

describe("ringing", () => {
  let dmId: string
  let gmId: string
  let gmCallId: string

  it("rings the other member of a DM when a call starts there: high priority, calls channel, caller in the title", async () => {
    const before = mark()
    dmId = (await alice.client.createDirectChannel([alice.id, bob.id])).id
    const started = await call(server.url, "POST", `${BASE}/calls/${dmId}/start`, alice.token)
    expect(started.status).toBe(201)
    expect(started.body).toMatchObject({ channel_id: dmId, owner_id: alice.id, host_id: alice.id, sessions: [], dismissed_notification: {} })
    expectShape(started.body, CallState, "started call")
    const [ring] = await eventually(() => fakes.fcmTo("bob-tok", before.fcm).length > 0 ? fakes.fcmTo("bob-tok", before.fcm) : undefined)
    expect(ring.message.notification).toEqual({ title: `incoming call from ${alice.username}`, body: "Tap to answer." })
    expect(ring.message.android).toMatchObject({ priority: "HIGH", notification: { channel_id: "calls", sound: "default" } })
    expect(ring.message.data).toMatchObject({
      call_id: started.body.id,
      channel_id: dmId,
      caller_name: alice.username,
      type: "message",
      sub_type: "calls"
    })
    const [announced] = await eventually(() => eventsSince(before.events, "call_start").length > 0 ? eventsSince(before.events, "call_start") : undefined)
    expect(announced.data).toMatchObject({ id: started.body.id, channelID: dmId, owner_id: alice.id, start_at: started.body.start_at })
    expect(announced.broadcast.channel_id).toBe(dmId)
    await settle()
    expect(fakes.fcmTo("alice-tok")).toHaveLength(0)

    const state = await call(server.url, "GET", `${BASE}/${dmId}?mobilev2=true`, bob.token)
    expect(state.body).toMatchObject({ channel_id: dmId, enabled: true, call: { id: started.body.id, owner_id: alice.id } })
    expectShape(state.body, CallChannelState, "channel state")
    const channels = await call(server.url, "GET", `${BASE}/channels?mobilev2=true`, bob.token)
    expectShape(channels.body, Schema.Array(CallChannelState), "channel states")
    expect(channels.body).toEqual([expect.objectContaining({ channel_id: dmId, call: expect.objectContaining({ id: started.body.id }) })])
    expect((await call(server.url, "POST", `${BASE}/calls/${dmId}/start`, bob.token)).status).toBe(409)
  })

  it("rings every other member of a group message, over VoIP on iOS", async () => {
    const before = mark()
    gmId = (await alice.client.createGroupChannel([alice.id, bob.id, carol.id])).id
    const started = await call(server.url, "POST", `${BASE}/calls/${gmId}/start`, alice.token)
    gmCallId = started.body.id
    await eventually(() => fakes.fcmTo("bob-tok", before.fcm).length > 0 ? true : undefined)
    const [voip] = await eventually(() => fakes.apnsTo(CAROL_VOIP, before.apns).length > 0 ? fakes.apnsTo(CAROL_VOIP, before.apns) : undefined)
    expect(voip.headers).toMatchObject({ "apns-topic": `${fakes.apns.bundleId}.voip`, "apns-push-type": "voip", "apns-priority": "10", "apns-expiration": "0" })
    expect(voip.payload).toMatchObject({ call_id: gmCallId, channel_id: gmId, caller_name: alice.username, sub_type: "calls" })
    expect(voip.payload.aps).toMatchObject({ alert: { title: `incoming call from ${alice.username}` }, sound: "default" })
    await settle()
    expect(fakes.apnsTo(CAROL_TOKEN, before.apns)).toHaveLength(0)
  })

  it("does not ring again who dismissed the call, and tells their other devices", async () => {
    const before = mark()
    expect((await call(server.url, "POST", `${BASE}/calls/${gmId}/dismiss-notification`, carol.token)).status).toBe(200)
    const [dismissed] = await eventually(() => eventsSince(before.events, "user_dismissed_notification").length > 0 ? eventsSince(before.events, "user_dismissed_notification") : undefined)
    expect(dismissed.data).toEqual({ userID: carol.id, callID: gmCallId })
    expect(dismissed.broadcast.user_id).toBe(carol.id)
    const state = await call(server.url, "GET", `${BASE}/${gmId}`, carol.token)
    expect(expectShape(state.body, CallChannelState, "channel state").call?.dismissed_notification).toEqual({ [carol.id]: true })

    expect((await call(server.url, "POST", `${BASE}/calls/${gmId}/ring`, bob.token)).status).toBe(200)
    const [again] = await eventually(() => fakes.fcmTo("alice-tok", before.fcm).length > 0 ? fakes.fcmTo("alice-tok", before.fcm) : undefined)
    expect(again.message.notification?.title).toBe(`incoming call from ${bob.username}`)
    await settle()
    expect(fakes.apnsTo(CAROL_VOIP, before.apns)).toHaveLength(0)
    expect(fakes.fcmTo("bob-tok", before.fcm)).toHaveLength(0)
  })

  it("does not ring members on do-not-disturb", async () => {
    await call(server.url, "PUT", `/api/v4/users/${dave.id}/status`, dave.token, { user_id: dave.id, status: "dnd" })
    const before = mark()
    const dm = await bob.client.createDirectChannel([bob.id, dave.id])
    expect((await call(server.url, "POST", `${BASE}/calls/${dm.id}/start`, bob.token)).status).toBe(201)
    await settle()
    expect(fakes.fcmTo("dave-tok", before.fcm)).toHaveLength(0)
    await call(server.url, "PUT", `/api/v4/users/${dave.id}/status`, dave.token, { user_id: dave.id, status: "offline" })
  })

  it("ends a call for its owner only and announces it", async () => {
    expect((await call(server.url, "POST", `${BASE}/calls/${dmId}/end`, bob.token)).status).toBe(403)
    const before = mark()
    expect((await call(server.url, "POST", `${BASE}/calls/${dmId}/end`, alice.token)).body).toEqual({ status: "OK" })
    const [ended] = await eventually(() => eventsSince(before.events, "call_end").length > 0 ? eventsSince(before.events, "call_end") : undefined)
    expect(ended.data).toMatchObject({ channelID: dmId })
    expect(ended.broadcast.channel_id).toBe(dmId)
    expect((await call(server.url, "GET", `${BASE}/${dmId}`, alice.token)).body).toEqual({ channel_id: dmId, enabled: true })
    expect((await call(server.url, "POST", `${BASE}/calls/${dmId}/ring`, alice.token)).status).toBe(400)
    expect((await call(server.url, "POST", `${BASE}/calls/${dmId}/dismiss-notification`, bob.token)).status).toBe(400)
  })

  it("refuses ringing outside DMs and GMs, outsiders, and channels with calls switched off", async () => {
    const started = await call(server.url, "POST", `${BASE}/calls/${townSquareId}/start`, alice.token)
    expect(started.status).toBe(201)
    const ring = await call(server.url, "POST", `${BASE}/calls/${townSquareId}/ring`, alice.token)
    expect(ring.status).toBe(400)
    expect(ring.body).toMatchObject({ status_code: 400, id: expect.any(String), message: expect.any(String) })
    expect((await call(server.url, "POST", `${BASE}/calls/${dmId}/start`, carol.token)).status).toBe(403)
    expect((await call(server.url, "POST", `${BASE}/${dmId}`, bob.token, { enabled: false })).body).toEqual({ channel_id: dmId, enabled: false })
    const refused = await call(server.url, "POST", `${BASE}/calls/${dmId}/start`, alice.token)
    expect(refused.status).toBe(403)
    expect((await call(server.url, "POST", `${BASE}/${townSquareId}`, bob.token, { enabled: false })).status).toBe(403)
    expect((await call(server.url, "POST", `${BASE}/calls/notanid/start`, alice.token)).status).toBe(400)
    expect((await client4(server.url).getWebappPlugins().catch((e) => e)).status_code).toBe(401)
  })
})

import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Sessions } from "../../src/auth/Sessions.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { type FakeProxy, startFakeProxy } from "./fakes/FakeProxy.ts"
import { type BusEvents, call, collectBusEvents, eventually, makeTeam, type Member, settle, verifySignature } from "./support.ts"

/**
 * The Mattermost push-proxy route, as the store-built apps are reached: the push model, the signature the apps
 * verify with config/client's AsymmetricSigningPublicKey, VoIP for calls, REMOVE, and a hung proxy that must not
 * slow posting down.
 */

let server: TestServer
let proxy: FakeProxy
let alice: Member
let bob: Member
let carol: Member
let dave: Member
let serverId: string
let publicKey: string
let bus: BusEvents

const CAROL_VOIP = "f00dcafe"

const pushesTo = (token: string, from = 0) => proxy.pushes.slice(from).filter((p) => p.device_id === token)

beforeAll(async () => {
  proxy = await startFakeProxy()
  server = await startServer()
  bus = collectBusEvents(server)
  const setup = await makeTeam(server.url, ["alice", "bob", "carol", "dave"])
  ;({ alice, bob, carol, dave } = setup.members as Record<string, Member>)
  const config = (await call(server.url, "GET", "/api/v4/config/client?format=old", alice.token)).body as Record<string, string>
  serverId = config.DiagnosticId
  publicKey = config.AsymmetricSigningPublicKey
  expect(publicKey).toMatch(/^[A-Za-z0-9+/=]{80,}$/)
  const configured = await call(server.url, "PUT", "/api/v1/admin/push", setup.admin.token, { push_proxy_url: proxy.url })
  expect(configured.body.enabled_transports).toEqual(["proxy"])
  await call(server.url, "PUT", "/api/v4/users/sessions/device", bob.token, { device_id: "android_rn-v2:bob-proxy-token" })
  await call(server.url, "PUT", "/api/v4/users/sessions/device", carol.token, {
    device_id: "apple_rn-v2:carol-apns-token",
    voip_device_id: `apple_rn-v2:${CAROL_VOIP}`
  })
  await call(server.url, "POST", "/api/v4/users/me/device", dave.token, { device_id: "dave-phone", token: "dave-proxy-token", platform: "android" })
})

afterAll(async () => {
  await bus?.stop()
  await server?.close()
  await proxy?.close()
})

describe("push proxy", () => {
  it("sends the Mattermost push model, signed with the key config/client publishes", async () => {
    const dm = await alice.client.createDirectChannel([alice.id, bob.id])
    const created = await alice.client.createPost({ channel_id: dm.id, message: "through the proxy" } as never)
    const [push] = await eventually(() => pushesTo("bob-proxy-token").length > 0 ? pushesTo("bob-proxy-token") : undefined)
    expect(push).toMatchObject({
      platform: "android_rn-v2",
      server_id: serverId,
      type: "message",
      version: "v2",
      category: "CAN_REPLY",
      message: "through the proxy",
      channel_id: dm.id,
      channel_name: alice.username,
      sender_id: alice.id,
      sender_name: alice.username,
      post_id: created.id,
      badge: expect.any(Number),
      is_id_loaded: false
    })
    const claims = await verifySignature(publicKey, push.signature)
    expect(claims).toMatchObject({ ack_id: push.ack_id, device_id: "bob-proxy-token" })
  })

  it("addresses natively registered devices by their platform", async () => {
    const dm = await alice.client.createDirectChannel([alice.id, dave.id])
    await alice.client.createPost({ channel_id: dm.id, message: "hello dave" } as never)
    const [push] = await eventually(() => pushesTo("dave-proxy-token").length > 0 ? pushesTo("dave-proxy-token") : undefined)
    expect(push.platform).toBe("android_rn-v2")
  })

  it("rings iOS over VoIP with a signature for the VoIP token", async () => {
    const dm = await alice.client.createDirectChannel([alice.id, carol.id])
    const started = await call(server.url, "POST", `/plugins/com.mattermost.calls/calls/${dm.id}/start`, alice.token)
    const [ring] = await eventually(() => pushesTo(CAROL_VOIP).length > 0 ? pushesTo(CAROL_VOIP) : undefined)
    expect(ring).toMatchObject({
      platform: "apple_rn-v2",
      transport: "voip",
      type: "message",
      sub_type: "calls",
      call_id: started.body.id,
      channel_id: dm.id,
      caller_name: alice.username,
      message: `incoming call from ${alice.username}`
    })
    expect((await verifySignature(publicKey, ring.signature)).device_id).toBe(CAROL_VOIP)
    await settle()
    expect(pushesTo("carol-apns-token")).toHaveLength(0)
  })

  it("clears the session's device when the proxy answers REMOVE", async () => {
    proxy.behave("bob-proxy-token", "remove")
    const dm = await alice.client.createDirectChannel([alice.id, bob.id])
    await alice.client.createPost({ channel_id: dm.id, message: "are you still there?" } as never)
    const deviceOf = async () =>
      (await server.runtime.runPromise(Effect.flatMap(Sessions, (s) => s.listForUser(bob.id))))[0].device_id
    const deadline = Date.now() + 5000
    while ((await deviceOf()) !== "" && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25))
    expect(await deviceOf()).toBe("")
    const before = proxy.pushes.length
    await alice.client.createPost({ channel_id: dm.id, message: "hello?" } as never)
    await settle()
    expect(pushesTo("bob-proxy-token", before)).toHaveLength(0)
  })

  it("never delays posting or its event while the provider hangs", async () => {
    proxy.hangEverything(true)
    const dm = await alice.client.createDirectChannel([alice.id, dave.id])
    const eventsBefore = bus.events.length
    const started = Date.now()
    const created = await alice.client.createPost({ channel_id: dm.id, message: "the proxy is stuck" } as never)
    const elapsed = Date.now() - started
    expect(created.id).toMatch(/^[a-z0-9]{26}$/)
    expect(elapsed).toBeLessThan(1000)
    await eventually(() => bus.events.slice(eventsBefore).some((e) => e.event === "posted") ? true : undefined, 1000)
    // The push did reach the provider, which is not answering.
    await eventually(() => proxy.hanging.length > 0 ? true : undefined)
    const again = Date.now()
    await alice.client.createPost({ channel_id: dm.id, message: "still stuck" } as never)
    expect(Date.now() - again).toBeLessThan(1000)
    proxy.hangEverything(false)
  })
})

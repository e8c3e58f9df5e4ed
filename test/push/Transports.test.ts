import { Effect, Exit, Option, Scope, TestClock, TestContext } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type ApnsCredentials,
  type FcmCredentials,
  makeLive,
  type ProxyCredentials,
  type PushNotification,
  type PushSenderService
} from "../../layers/PushSender.ts"
import { type FakeApns, startFakeApns } from "./fakes/FakeApns.ts"
import { type FakeFcm, startFakeFcm } from "./fakes/FakeFcm.ts"
import { type FakeProxy, startFakeProxy } from "./fakes/FakeProxy.ts"

/** The three live transports against loopback fakes, one attempt at a time (the queue owns retries). */

let fcm: FakeFcm
let apns: FakeApns
let proxy: FakeProxy
let sender: PushSenderService
let scope: Scope.CloseableScope

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.either(effect))

const message = (overrides: Partial<PushNotification> = {}): PushNotification => ({
  kind: "message",
  token: "aa11",
  platform: "android",
  proxyPlatform: "android_rn-v2",
  voip: false,
  title: "alice",
  body: "hello there",
  priority: "normal",
  androidChannel: Option.some("messages"),
  sound: Option.some("default"),
  badge: Option.some(3),
  threadId: Option.some("channel1"),
  data: { type: "message", channel_id: "channel1", sender_name: "alice", ack_id: "ack1", server_id: "srv", badge: "3", is_crt_enabled: "true" },
  ...overrides
})

const fcmStatic = (): FcmCredentials => ({
  transport: "fcm",
  projectId: "static-project",
  baseUrl: fcm.url,
  accessToken: Option.some("static-token"),
  serviceAccount: Option.none()
})

const fcmAccount = (): FcmCredentials => ({
  transport: "fcm",
  projectId: "fake-project",
  baseUrl: fcm.url,
  accessToken: Option.none(),
  serviceAccount: Option.some(fcm.serviceAccount)
})

const apnsCredentials = (): ApnsCredentials => ({
  transport: "apns",
  keyId: apns.keyId,
  teamId: apns.teamId,
  bundleId: apns.bundleId,
  privateKey: apns.privateKeyPem,
  baseUrl: apns.url,
  ca: Option.some(apns.ca)
})

beforeAll(async () => {
  ;[fcm, apns, proxy] = await Promise.all([startFakeFcm({ staticToken: "static-token" }), startFakeApns(), startFakeProxy()])
  scope = Effect.runSync(Scope.make())
  sender = await Effect.runPromise(Scope.extend(makeLive({ timeout: "1 second" }), scope))
})

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
  await Promise.all([fcm.close(), apns.close(), proxy.close()])
})

describe("FCM HTTP v1", () => {
  it("sends a message with the spec's title, body, priority, channel and data, using the configured token", async () => {
    const result = await run(sender.send(fcmStatic(), message({ token: "fcm-static" })))
    expect(result).toMatchObject({ _tag: "Right", right: { _tag: "Sent" } })
    const sent = fcm.messages.find((m) => m.message.token === "fcm-static")!
    expect(sent.projectId).toBe("static-project")
    expect(sent.authorization).toBe("Bearer static-token")
    expect(sent.message.notification).toEqual({ title: "alice", body: "hello there" })
    expect(sent.message.android).toMatchObject({ priority: "NORMAL", notification: { channel_id: "messages", sound: "default" } })
    expect(sent.message.data).toMatchObject({ channel_id: "channel1", sender_name: "alice", ack_id: "ack1" })
    expect(Object.values(sent.message.data).every((v) => typeof v === "string")).toBe(true)
  })

  it("sends calls at high priority on the calls channel, and clears as data only", async () => {
    await run(sender.send(fcmStatic(), message({ kind: "call", token: "fcm-call", priority: "high", androidChannel: Option.some("calls"), title: "incoming call from bob" })))
    await run(sender.send(fcmStatic(), message({ kind: "clear", token: "fcm-clear", androidChannel: Option.none(), sound: Option.none() })))
    const call = fcm.messages.find((m) => m.message.token === "fcm-call")!
    expect(call.message.android).toMatchObject({ priority: "HIGH", ttl: "30s", notification: { channel_id: "calls", sound: "default" } })
    const clear = fcm.messages.find((m) => m.message.token === "fcm-clear")!
    expect(clear.message.notification).toBeUndefined()
    expect(clear.message.android.notification).toBeUndefined()
  })

  it("mints an access token from the service-account key, reuses it, and renews it when it is about to expire", async () => {
    const grantsBefore = fcm.grants.length
    await run(sender.send(fcmAccount(), message({ token: "sa-1" })))
    await run(sender.send(fcmAccount(), message({ token: "sa-2" })))
    expect(fcm.grants.length).toBe(grantsBefore + 1)
    expect(fcm.grants.at(-1)).toEqual({ iss: fcm.serviceAccount.client_email, scope: "https://www.googleapis.com/auth/firebase.messaging" })
    const first = fcm.messages.find((m) => m.message.token === "sa-1")!.authorization
    expect(fcm.messages.find((m) => m.message.token === "sa-2")!.authorization).toBe(first)

    // A token with less than a minute left is renewed before use.
    fcm.setExpiresIn(30)
    await run(sender.send({ ...fcmAccount(), serviceAccount: Option.some({ ...fcm.serviceAccount, client_email: "other@fake-project.iam.gserviceaccount.com" }) }, message({ token: "sa-3" })))
    await run(sender.send({ ...fcmAccount(), serviceAccount: Option.some({ ...fcm.serviceAccount, client_email: "other@fake-project.iam.gserviceaccount.com" }) }, message({ token: "sa-4" })))
    fcm.setExpiresIn(3599)
    expect(fcm.grants.length).toBe(grantsBefore + 3)
    const third = fcm.messages.find((m) => m.message.token === "sa-3")!.authorization
    expect(fcm.messages.find((m) => m.message.token === "sa-4")!.authorization).not.toBe(third)
  })

  it("reports UNREGISTERED as an invalid token", async () => {
    fcm.behave("dead-fcm", { kind: "unregistered" })
    expect(await run(sender.send(fcmStatic(), message({ token: "dead-fcm" })))).toMatchObject({
      _tag: "Right",
      right: { _tag: "InvalidToken", reason: "UNREGISTERED" }
    })
  })

  it("reports 429 as retryable with the Retry-After delay, and 401 with a static token as permanent", async () => {
    fcm.behave("busy-fcm", { kind: "status", status: 429, retryAfter: "7", times: 1 })
    const busy = await run(sender.send(fcmStatic(), message({ token: "busy-fcm" })))
    expect(busy).toMatchObject({ _tag: "Left", left: { transport: "fcm", retryable: true, retryAfterMs: Option.some(7000) } })
    const denied = await run(sender.send({ ...fcmStatic(), accessToken: Option.some("expired-token") }, message({ token: "x" })))
    expect(denied).toMatchObject({ _tag: "Left", left: { retryable: false } })
  })
})

describe("APNs over HTTP/2", () => {
  it("sends an alert on the bundle topic with a valid ES256 provider token, reused across pushes", async () => {
    const ios = { platform: "ios" as const, proxyPlatform: "apple_rn-v2" }
    expect(await run(sender.send(apnsCredentials(), message({ ...ios, token: "a1" })))).toMatchObject({ _tag: "Right", right: { _tag: "Sent" } })
    await run(sender.send(apnsCredentials(), message({ ...ios, token: "a2" })))
    const [first, second] = ["a1", "a2"].map((t) => apns.requests.find((r) => r.token === t)!)
    expect(first.headers).toMatchObject({ "apns-topic": apns.bundleId, "apns-push-type": "alert", "apns-priority": "5" })
    expect(first.payload.aps).toMatchObject({ alert: { title: "alice", body: "hello there" }, sound: "default", badge: 3, "thread-id": "channel1" })
    expect(first.payload).toMatchObject({ channel_id: "channel1", sender_name: "alice", ack_id: "ack1" })
    expect(second.jwt).toBe(first.jwt)
  })

  it("rings over VoIP on the .voip topic, immediately or never", async () => {
    await run(sender.send(apnsCredentials(), message({ kind: "call", platform: "ios", token: "b0", voip: true, priority: "high", title: "incoming call from bob" })))
    const ring = apns.requests.find((r) => r.token === "b0")!
    expect(ring.headers).toMatchObject({ "apns-topic": `${apns.bundleId}.voip`, "apns-push-type": "voip", "apns-priority": "10", "apns-expiration": "0" })
    expect(ring.payload.aps).toMatchObject({ alert: { title: "incoming call from bob" }, sound: "default" })
  })

  it("clears with a background push at priority 5", async () => {
    await run(sender.send(apnsCredentials(), message({ kind: "clear", platform: "ios", token: "c0", sound: Option.none() })))
    const clear = apns.requests.find((r) => r.token === "c0")!
    expect(clear.headers).toMatchObject({ "apns-push-type": "background", "apns-priority": "5" })
    expect(clear.payload.aps).toEqual({ "content-available": 1, badge: 3 })
  })

  it("reports 410 Unregistered and BadDeviceToken as invalid tokens, 503 as retryable", async () => {
    apns.behave("dead1", { kind: "unregistered" })
    apns.behave("dead2", { kind: "bad_device_token" })
    apns.behave("beef01", { kind: "status", status: 503, reason: "ServiceUnavailable", times: 1 })
    expect(await run(sender.send(apnsCredentials(), message({ platform: "ios", token: "dead1" })))).toMatchObject({ right: { _tag: "InvalidToken", reason: "Unregistered" } })
    expect(await run(sender.send(apnsCredentials(), message({ platform: "ios", token: "dead2" })))).toMatchObject({ right: { _tag: "InvalidToken", reason: "BadDeviceToken" } })
    expect(await run(sender.send(apnsCredentials(), message({ platform: "ios", token: "beef01" })))).toMatchObject({ left: { transport: "apns", retryable: true } })
  })

  it("is refused with a key the provider does not know", async () => {
    const { generateKeyPairSync } = await import("node:crypto")
    const other = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ type: "pkcs8", format: "pem" }).toString()
    const result = await run(sender.send({ ...apnsCredentials(), keyId: "OTHERKEY01", privateKey: other }, message({ platform: "ios", token: "d0" })))
    expect(result).toMatchObject({ left: { retryable: false } })
    expect(apns.rejected.at(-1)).toEqual({ status: 403, reason: "InvalidProviderToken" })
  })
})

describe("push proxy", () => {
  const credentials = (): ProxyCredentials => ({ transport: "proxy", url: proxy.url })

  it("posts the Mattermost push model to /api/v1/send_push", async () => {
    const result = await run(sender.send(credentials(), message({ token: "p1", data: { ...message().data, signature: "sig" } })))
    expect(result).toMatchObject({ _tag: "Right", right: { _tag: "Sent" } })
    expect(proxy.pushes.find((p) => p.device_id === "p1")).toMatchObject({
      platform: "android_rn-v2",
      type: "message",
      message: "hello there",
      badge: 3,
      cont_ava: 0,
      is_crt_enabled: true,
      channel_id: "channel1",
      server_id: "srv",
      ack_id: "ack1",
      signature: "sig"
    })
  })

  it("marks VoIP call pushes and answers REMOVE as an invalid token, FAIL as permanent", async () => {
    await run(sender.send(credentials(), message({ kind: "call", token: "p2", voip: true, platform: "ios", proxyPlatform: "apple_rn-v2", data: { ...message().data, sub_type: "calls" } })))
    expect(proxy.pushes.find((p) => p.device_id === "p2")).toMatchObject({ transport: "voip", type: "message", sub_type: "calls", platform: "apple_rn-v2" })
    proxy.behave("p3", "remove")
    proxy.behave("p4", "fail")
    expect(await run(sender.send(credentials(), message({ token: "p3" })))).toMatchObject({ right: { _tag: "InvalidToken" } })
    expect(await run(sender.send(credentials(), message({ token: "p4" })))).toMatchObject({ left: { retryable: false } })
  })

  it("gives up on a hung proxy after its timeout, as a retryable failure", async () => {
    proxy.behave("p5", "hang")
    const started = Date.now()
    const result = await run(sender.send(credentials(), message({ token: "p5" })))
    expect(result).toMatchObject({ left: { transport: "proxy", reason: "timeout", retryable: true } })
    expect(Date.now() - started).toBeLessThan(8000)
  }, 15_000)

  it("opens its circuit breaker after repeated provider failures, failing fast", async () => {
    const dead: ProxyCredentials = { transport: "proxy", url: "http://127.0.0.1:9" }
    for (let i = 0; i < 5; i++) await run(sender.send(dead, message({ token: `q${i}` })))
    const started = Date.now()
    const result = await run(sender.send(credentials(), message({ token: "q-after" })))
    expect(result).toMatchObject({ left: { retryable: true, retryAfterMs: { _tag: "Some" } } })
    expect((result as { left: { reason: string } }).left.reason).toContain("circuit breaker")
    expect(Date.now() - started).toBeLessThan(500)
    expect(proxy.pushes.some((p) => p.device_id === "q-after")).toBe(false)
  })
})

describe("credential renewal over time", () => {
  it("reuses the APNs provider token for 40 minutes, then signs a new one, and renews FCM tokens before their hour is up", async () => {
    const jwtsBefore = apns.jwtsSeen.size
    const grantsBefore = fcm.grants.length
    const account: FcmCredentials = {
      ...fcmAccount(),
      serviceAccount: Option.some({ ...fcm.serviceAccount, client_email: "clock@fake-project.iam.gserviceaccount.com" })
    }
    const ios = (token: string) => message({ platform: "ios", token })
    await Effect.runPromise(
      Effect.scoped(Effect.gen(function*() {
        yield* TestClock.setTime(Date.now())
        const timed = yield* makeLive()
        yield* timed.send(apnsCredentials(), ios("e1"))
        yield* timed.send(account, message({ token: "clock-1" }))
        yield* TestClock.adjust("39 minutes")
        yield* timed.send(apnsCredentials(), ios("e2"))
        yield* timed.send(account, message({ token: "clock-2" }))
        yield* TestClock.adjust("2 minutes")
        yield* timed.send(apnsCredentials(), ios("e3"))
        yield* TestClock.adjust("18 minutes")
        yield* timed.send(account, message({ token: "clock-3" }))
      })).pipe(Effect.provide(TestContext.TestContext))
    )
    const jwtOf = (token: string) => apns.requests.find((r) => r.token === token)!.jwt
    expect(jwtOf("e2")).toBe(jwtOf("e1"))
    expect(jwtOf("e3")).not.toBe(jwtOf("e1"))
    expect(apns.jwtsSeen.size).toBe(jwtsBefore + 2)
    // Minted at 0, still fresh at 39 minutes, renewed at 59 minutes (less than a minute left of 3599 seconds).
    expect(fcm.grants.length).toBe(grantsBefore + 2)
    const bearer = (token: string) => fcm.messages.find((m) => m.message.token === token)!.authorization
    expect(bearer("clock-2")).toBe(bearer("clock-1"))
    expect(bearer("clock-3")).not.toBe(bearer("clock-1"))
  })
})

import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Cache } from "../../layers/Cache.ts"
import { Db } from "../../layers/Db.ts"
import { call, eventually, settle, startPushFakes, type PushFakes } from "../push/support.ts"
import { client4, newUser, unique } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * The rest of issue 29's runtime settings on one server (RuntimeSettings.test.ts shows the two-node propagation):
 * session lengths and the idle timeout, sign-up domains and switches, push contents and the push switch against a
 * loopback FCM, custom emoji and the GIF picker. Each saved through PUT /config/patch and in force at once.
 */
let server: TestServer
let fakes: PushFakes
let admin: Awaited<ReturnType<typeof newUser>>

const outcome = (call: Promise<unknown>) =>
  call.then(() => "ok", (e: { status_code: number; server_error_id: string }) => `${e.status_code} ${e.server_error_id}`)

const patch = (settings: Record<string, Record<string, unknown>>) => admin.client.patchConfig(settings as never)

const sql = <A>(run: (db: Effect.Effect.Success<typeof Db>) => Effect.Effect<A, unknown>) =>
  server.runtime.runPromise(Effect.flatMap(Db, run)) as Promise<A>

const HOUR = 3_600_000

/** A sign-in from a phone: the app sends its device id, and its session is a mobile one. */
const phoneLogin = async (username: string, password: string, deviceId: string) => {
  const response = await fetch(`${server.url}/api/v4/users/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ login_id: username, password, device_id: deviceId })
  })
  expect(response.status).toBe(200)
  return client4(server.url, response.headers.get("token")!)
}

beforeAll(async () => {
  fakes = await startPushFakes()
  server = await startServer()
  admin = await newUser(server.url, "rladmin") // the first account: system admin
})
afterAll(async () => {
  await server?.close()
  await fakes?.close()
})

describe("sessions", () => {
  it("gives new web and mobile sessions the configured lengths", async () => {
    expect(await outcome(patch({ ServiceSettings: { SessionLengthWebInHours: 0 } }))).toBe("400 api.config.update.invalid_value.app_error")
    await patch({ ServiceSettings: { SessionLengthWebInHours: 2, SessionLengthMobileInHours: 3 } })
    const user = await newUser(server.url, "rllen")
    await phoneLogin(user.username, user.password, "android_rn-v2:rl-device")
    const sessions = await user.client.getSessions(user.user.id)
    const lengths = sessions.map((s) => (s.expires_at - s.create_at) / HOUR).sort()
    expect(lengths).toEqual([2, 3])
    await patch({ ServiceSettings: { SessionLengthWebInHours: 720, SessionLengthMobileInHours: 4320 } })
  })

  it("ends a web session idle longer than SessionIdleTimeoutInMinutes, and spares an app's", async () => {
    expect(await outcome(patch({ ServiceSettings: { SessionIdleTimeoutInMinutes: 3 } }))).toBe("400 api.config.update.invalid_value.app_error")
    const saved = await patch({ ServiceSettings: { SessionIdleTimeoutInMinutes: 5 } })
    expect(saved.ServiceSettings).toMatchObject({ SessionIdleTimeoutInMinutes: 5, ExtendSessionLengthWithActivity: false })
    const user = await newUser(server.url, "rlidle")
    const phone = await phoneLogin(user.username, user.password, "android_rn-v2:rl-idle")
    expect((await user.client.getMe()).id).toBe(user.user.id)
    // As if both sessions had last been used six minutes ago (the stored activity and the cached copies).
    const sessions = await user.client.getSessions(user.user.id)
    const sixMinutesAgo = Date.now() - 6 * 60_000
    await sql((db) => db.execute(db.sql`UPDATE sessions SET last_activity_at = ${sixMinutesAgo} WHERE user_id = ${user.user.id}`))
    for (const s of sessions) await server.runtime.runPromise(Effect.flatMap(Cache, (cache) => cache.del(`session:${s.id}`)))
    expect(await outcome(user.client.getMe())).toBe("401 api.context.session_expired.app_error")
    expect((await phone.getMe()).id).toBe(user.user.id)
    const left = await sql((db) => db.read(db.sql<{ n: string }>`SELECT count(*) AS n FROM sessions WHERE user_id = ${user.user.id}`))
    expect(Number(left[0].n)).toBe(1)
    await patch({ ServiceSettings: { SessionIdleTimeoutInMinutes: 0 } })
  })
})

describe("sign-up", () => {
  const signUp = (email: (username: string) => string, client = client4(server.url)) => {
    const username = unique("rlsu").slice(0, 20)
    return outcome(client.createUser({ username, email: email(username), password: "correct-horse-battery" } as never, "", ""))
  }

  it("admits only RestrictCreationToDomains' addresses, an administrator's creations too", async () => {
    const saved = await patch({ TeamSettings: { RestrictCreationToDomains: "example.com, @Corp.Test" } })
    expect(saved.TeamSettings.RestrictCreationToDomains).toBe("example.com, @Corp.Test")
    expect(await signUp((u) => `${u}@other.org`)).toBe("400 api.user.create_user.accepted_domain.app_error")
    expect(await signUp((u) => `${u}@example.com.evil.org`)).toBe("400 api.user.create_user.accepted_domain.app_error")
    expect(await signUp((u) => `${u}@corp.test`)).toBe("ok")
    expect(await signUp((u) => `${u}@example.com`)).toBe("ok")
    expect(await signUp((u) => `${u}@other.org`, admin.client)).toBe("400 api.user.create_user.accepted_domain.app_error")
    await patch({ TeamSettings: { RestrictCreationToDomains: "" } })
    expect(await signUp((u) => `${u}@other.org`)).toBe("ok")
  })

  it("refuses sign-up with Mattermost's ids when the server is closed or user creation is off", async () => {
    await patch({ TeamSettings: { EnableOpenServer: false } })
    expect(await signUp((u) => `${u}@example.com`)).toBe("403 api.user.create_user.no_open_server")
    await patch({ TeamSettings: { EnableUserCreation: false } })
    expect(await signUp((u) => `${u}@example.com`)).toBe("501 api.user.create_user.signup_email_disabled.app_error")
    await patch({ TeamSettings: { EnableOpenServer: true, EnableUserCreation: true } })
    expect(await signUp((u) => `${u}@example.com`)).toBe("ok")
  })
})

describe("custom emoji and the GIF picker", () => {
  it("reports the switches in config/client and answers 501 on the emoji endpoints while custom emoji are off", async () => {
    const member = await newUser(server.url, "rlemoji")
    const clientConfig = async () => await member.client.getClientConfig() as unknown as Record<string, string>
    expect(await clientConfig()).toMatchObject({ EnableCustomEmoji: "true", EnableGifPicker: "false" })
    expect(await outcome(member.client.getCustomEmojis())).toBe("ok")
    await patch({ ServiceSettings: { EnableCustomEmoji: false, EnableGifPicker: true } })
    expect(await clientConfig()).toMatchObject({ EnableCustomEmoji: "false", EnableGifPicker: "true" })
    expect(await outcome(member.client.getCustomEmojis())).toBe("501 api.emoji.disabled.app_error")
    const created = await fetch(`${server.url}/api/v4/emoji`, { method: "POST", headers: { authorization: `Bearer ${member.client.getToken()}` }, body: new FormData() })
    expect(created.status).toBe(501)
    expect((await created.json()).id).toBe("api.emoji.disabled.app_error")
    await patch({ ServiceSettings: { EnableCustomEmoji: true, EnableGifPicker: false } })
    expect(await outcome(member.client.getCustomEmojis())).toBe("ok")
  })
})

describe("push notifications", () => {
  it("sends what PushNotificationContents allows, and nothing while SendPushNotifications is off", async () => {
    const configured = await call(server.url, "PUT", "/api/v1/admin/push", admin.client.getToken(), fakes.settings)
    expect(configured.status).toBe(200)
    const team = await admin.client.createTeam({ name: unique("rlpush"), display_name: "Push", type: "O" } as never)
    const alice = await newUser(server.url, "rlalice")
    const bob = await newUser(server.url, "rlbob")
    for (const u of [alice, bob]) await admin.client.addToTeam(team.id, u.user.id)
    await call(server.url, "PUT", "/api/v4/users/sessions/device", bob.client.getToken(), { device_id: "android_rn-v2:rl-bob", mobile_version: "2.43.0" })
    const townSquare = await admin.client.getChannelByName(team.id, "town-square")
    const dm = await alice.client.createDirectChannel([alice.user.id, bob.user.id])
    /** The next push bob's phone receives after `post`. */
    const pushOf = async (channelId: string, message: string) => {
      const from = fakes.fcmTo("rl-bob").length
      await alice.client.createPost({ channel_id: channelId, message } as never)
      const [push] = await eventually(() => fakes.fcmTo("rl-bob", from).length > 0 ? fakes.fcmTo("rl-bob", from) : undefined)
      return push.message
    }

    expect((await pushOf(dm.id, "the secret plan")).notification).toEqual({ title: alice.username, body: "the secret plan" })

    expect(await outcome(patch({ EmailSettings: { PushNotificationContents: "everything" } }))).toBe("400 api.config.update.invalid_value.app_error")
    await patch({ EmailSettings: { PushNotificationContents: "generic" } })
    const generic = await pushOf(dm.id, "the secret plan")
    expect(generic.notification).toEqual({ title: alice.username, body: "sent you a message." })
    expect(JSON.stringify(generic)).not.toContain("secret")
    const mention = await pushOf(townSquare.id, `@${bob.username} the secret plan`)
    expect(mention.notification).toEqual({ title: `${alice.username} in Town Square`, body: `${alice.username} mentioned you.` })
    expect(mention.data.channel_name).toBe("Town Square")

    await patch({ EmailSettings: { PushNotificationContents: "generic_no_channel" } })
    const noChannel = await pushOf(townSquare.id, `@${bob.username} the secret plan`)
    expect(noChannel.notification).toEqual({ title: alice.username, body: `${alice.username} mentioned you.` })
    expect(noChannel.data.channel_name).toBeUndefined()
    expect(JSON.stringify(noChannel)).not.toContain("Town Square")

    await patch({ EmailSettings: { PushNotificationContents: "id_loaded" } })
    const idLoaded = await pushOf(dm.id, "the secret plan")
    expect(idLoaded.notification?.body).toBe("You've received a new message.")
    expect(idLoaded.data).toMatchObject({ id_loaded: "true", channel_id: dm.id, sender_id: alice.user.id })
    expect(JSON.stringify(idLoaded)).not.toContain(alice.username)
    expect(JSON.stringify(idLoaded)).not.toContain("secret")

    await patch({ EmailSettings: { PushNotificationContents: "full", SendPushNotifications: false } })
    expect((await bob.client.getClientConfig() as unknown as Record<string, string>).SendPushNotifications).toBe("false")
    const before = fakes.fcmTo("rl-bob").length
    await alice.client.createPost({ channel_id: dm.id, message: "while pushes are off" } as never)
    await settle()
    expect(fakes.fcmTo("rl-bob").length).toBe(before)
    await patch({ EmailSettings: { SendPushNotifications: true } })
    expect((await pushOf(dm.id, "back on")).notification).toEqual({ title: alice.username, body: "back on" })
  })
})

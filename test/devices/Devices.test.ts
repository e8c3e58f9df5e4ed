import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Db } from "../../layers/Db.ts"
import { SessionLength } from "../../src/auth/Session.ts"
import { Sessions } from "../../src/auth/Sessions.ts"
import { sweepOnce } from "../../src/devices/DeviceSweep.ts"
import { expectShape, Wire } from "../compat/Shapes.ts"
import { newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/** Device registration: PUT /users/sessions/device, POST /users/me/device, acks and the stale sweep. */

let server: TestServer

beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server?.close())

const tokenOf = (client: { getToken: () => string }) => client.getToken()

const call = async (method: string, path: string, token: string | undefined, body?: unknown, raw?: string) => {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { "content-type": "application/json", ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}) },
    body: raw ?? (body === undefined ? undefined : JSON.stringify(body))
  })
  const text = await response.text()
  return { status: response.status, contentType: response.headers.get("content-type"), body: text === "" ? null : JSON.parse(text) }
}

const query = <A extends object>(text: string, params: ReadonlyArray<unknown> = []) =>
  server.runtime.runPromise(Effect.flatMap(Db, (db) => db.execute(db.sql.unsafe<A>(text, params as Array<unknown>))))

const sessionsOf = (userId: string) => server.runtime.runPromise(Effect.flatMap(Sessions, (s) => s.listForUser(userId)))

describe("PUT /api/v4/users/sessions/device", () => {
  it("attaches the device id and props to the caller's session and records the registration", async () => {
    const { client, user } = await newUser(server.url, "dev")
    const result = await call("PUT", "/api/v4/users/sessions/device", tokenOf(client), {
      device_id: "android_rn-v2:fcm-token-1",
      device_notification_disabled: "false",
      mobile_version: "2.43.0"
    })
    expect(result).toEqual({ status: 200, contentType: "application/json", body: { status: "OK" } })
    const [session] = await sessionsOf(user.id)
    expect(session.device_id).toBe("android_rn-v2:fcm-token-1")
    expect(session.props).toMatchObject({ mobile_version: "2.43.0", device_notification_disabled: "false" })
    const rows = await query<{ token: string; platform: string; session_id: string }>(
      "SELECT token, platform, session_id FROM device_registrations WHERE user_id = $1", [user.id])
    expect(rows).toEqual([{ token: "fcm-token-1", platform: "android", session_id: session.id }])
  })

  it("extends the session to the mobile session length when a device id is attached", async () => {
    const { client, user } = await newUser(server.url, "dev")
    const [before] = await client.getSessions(user.id)
    expect(before.expires_at - before.create_at).toBe(SessionLength.web)
    const asked = Date.now()
    await call("PUT", "/api/v4/users/sessions/device", tokenOf(client), { device_id: "android_rn-v2:fcm-extend" })
    const [after] = await client.getSessions("me")
    expect(after.id).toBe(before.id)
    expect(after.expires_at).toBeGreaterThanOrEqual(asked + SessionLength.mobile)
    expect(after.expires_at).toBeLessThanOrEqual(Date.now() + SessionLength.mobile)
    expect((await client.getMe()).id).toBe(user.id)
  })

  it("revokes the user's other sessions on the same device, keeping the caller's", async () => {
    const { client, user, username, password } = await newUser(server.url, "dev")
    const { client4 } = await import("../support/Clients.ts")
    const second = client4(server.url)
    await second.login(username, password)
    await call("PUT", "/api/v4/users/sessions/device", tokenOf(client), { device_id: "apple_rn-v2:abcdef01" })
    await call("PUT", "/api/v4/users/sessions/device", tokenOf(second), { device_id: "apple_rn-v2:abcdef01", voip_device_id: "apple_rn-v2:beef02" })
    await expect(client.getMe()).rejects.toMatchObject({ status_code: 401 })
    expect((await second.getMe()).id).toBe(user.id)
    const sessions = await sessionsOf(user.id)
    expect(sessions).toHaveLength(1)
    expect(sessions[0].props.voip_device_id).toBe("apple_rn-v2:beef02")
  })

  it("treats {} as a no-op and refuses invalid fields with 400 and the error body", async () => {
    const { client, user } = await newUser(server.url, "dev")
    const token = tokenOf(client)
    expect((await call("PUT", "/api/v4/users/sessions/device", token, {})).body).toEqual({ status: "OK" })
    for (const body of [
      { device_id: "windows-v2:abc" },
      { device_id: "android_rn-v2:" },
      { device_notification_disabled: "maybe" },
      { mobile_version: "2.x" },
      { voip_device_id: "android_rn-v2:abc" }
    ]) {
      const result = await call("PUT", "/api/v4/users/sessions/device", token, body)
      expect(result.status).toBe(400)
      expect(result.body).toMatchObject({ id: "api.context.invalid_body_param.app_error", status_code: 400 })
    }
    expect((await call("PUT", "/api/v4/users/sessions/device", token, undefined, "{not json")).status).toBe(400)
    expect((await sessionsOf(user.id))[0].device_id).toBe("")
    expect((await call("PUT", "/api/v4/users/sessions/device", undefined, {})).status).toBe(401)
  })
})

describe("POST /api/v4/users/me/device", () => {
  it("registers a device per user and refreshes its last-seen time on every call", async () => {
    const { client, user } = await newUser(server.url, "dev")
    const first = await call("POST", "/api/v4/users/me/device", tokenOf(client), { device_id: "phone-1", token: "tok-1", platform: "ios" })
    expect(first.status).toBe(200)
    expect(first.body).toMatchObject({ user_id: user.id, device_id: "phone-1", platform: "ios" })
    expectShape(first.body, Wire.DeviceRegistration, "registration")
    expect(first.body.create_at).toBe(first.body.last_seen_at)
    await new Promise((r) => setTimeout(r, 5))
    const again = await call("POST", "/api/v4/users/me/device", tokenOf(client), { device_id: "phone-1", token: "tok-2", platform: "ios" })
    expect(again.body.create_at).toBe(first.body.create_at)
    expect(again.body.last_seen_at).toBeGreaterThan(first.body.last_seen_at)
    const rows = await query<{ token: string }>("SELECT token FROM device_registrations WHERE user_id = $1", [user.id])
    expect(rows).toEqual([{ token: "tok-2" }])
  })

  it("moves a token to the user who registered it last", async () => {
    const a = await newUser(server.url, "dev")
    const b = await newUser(server.url, "dev")
    await call("POST", "/api/v4/users/me/device", tokenOf(a.client), { device_id: "shared", token: "handed-over", platform: "android" })
    await call("POST", "/api/v4/users/me/device", tokenOf(b.client), { device_id: "shared", token: "handed-over", platform: "android" })
    const rows = await query<{ user_id: string }>("SELECT user_id FROM device_registrations WHERE token = 'handed-over'")
    expect(rows).toEqual([{ user_id: b.user.id }])
  })

  it("answers 400 for a bad platform or missing fields, 401 without a session", async () => {
    const { client } = await newUser(server.url, "dev")
    const token = tokenOf(client)
    const bad = await call("POST", "/api/v4/users/me/device", token, { device_id: "x", token: "y", platform: "windows" })
    expect(bad.status).toBe(400)
    expect(bad.body.message).toContain("platform")
    expect((await call("POST", "/api/v4/users/me/device", token, { device_id: "x", platform: "ios" })).status).toBe(400)
    expect((await call("POST", "/api/v4/users/me/device", token, { device_id: "", token: "y", platform: "ios" })).status).toBe(400)
    expect((await call("POST", "/api/v4/users/me/device", undefined, { device_id: "x", token: "y", platform: "ios" })).status).toBe(401)
  })
})

describe("acks and expiry", () => {
  it("records POST /api/v4/notifications/ack and answers OK", async () => {
    const { client, user } = await newUser(server.url, "dev")
    const result = await call("POST", "/api/v4/notifications/ack", tokenOf(client), {
      id: "ackid123", received_at: 1700000000000, platform: "android", type: "message", post_id: "p1", is_id_loaded: false
    })
    expect(result).toEqual({ status: 200, contentType: "application/json", body: { status: "OK" } })
    const rows = await query<{ user_id: string; received_at: string }>("SELECT user_id, received_at FROM push_acks WHERE ack_id = 'ackid123'")
    expect(rows).toEqual([{ user_id: user.id, received_at: "1700000000000" }])
    expect((await call("POST", "/api/v4/notifications/ack", tokenOf(client), { received_at: 1 })).status).toBe(400)
  })

  it("expires registrations not seen for 60 days and keeps fresh ones", async () => {
    const { client, user } = await newUser(server.url, "dev")
    await call("POST", "/api/v4/users/me/device", tokenOf(client), { device_id: "fresh", token: "fresh-token", platform: "android" })
    await call("POST", "/api/v4/users/me/device", tokenOf(client), { device_id: "stale", token: "stale-token", platform: "android" })
    const longAgo = Date.now() - 61 * 24 * 60 * 60 * 1000
    await query("UPDATE device_registrations SET last_seen_at = $1 WHERE device_id = 'stale'", [longAgo])
    await server.runtime.runPromise(sweepOnce)
    const rows = await query<{ device_id: string }>("SELECT device_id FROM device_registrations WHERE user_id = $1", [user.id])
    expect(rows).toEqual([{ device_id: "fresh" }])
  })
})

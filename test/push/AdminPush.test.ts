import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Db } from "../../layers/Db.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { type FakeApns, startFakeApns } from "./fakes/FakeApns.ts"
import { type FakeFcm, startFakeFcm } from "./fakes/FakeFcm.ts"
import { call, eventually, makeTeam, type Member, settle } from "./support.ts"

/**
 * Push configuration: /api/v1/admin/push (private values encrypted at rest and never returned), the PUSH_*
 * environment as fallback, and no push at all without credentials.
 */

// The environment fallback is read when the server starts; removed again when the file ends (test files share a
// worker process).
process.env.PUSH_IOS_TEAM_ID = "ENVTEAM123"

let server: TestServer
let fcm: FakeFcm
let apns: FakeApns
let admin: Member
let alice: Member
let bob: Member

const storedPush = () =>
  server.runtime.runPromise(Effect.flatMap(Db, (db) =>
    Effect.map(db.execute(db.sql<{ value: Record<string, string> }>`SELECT value FROM server_config WHERE section = 'push'`), (rows) => rows[0].value)))

beforeAll(async () => {
  ;[fcm, apns] = await Promise.all([startFakeFcm(), startFakeApns()])
  server = await startServer()
  const setup = await makeTeam(server.url, ["alice", "bob"])
  admin = setup.admin
  ;({ alice, bob } = setup.members as Record<string, Member>)
  await call(server.url, "PUT", "/api/v4/users/sessions/device", bob.token, { device_id: "android_rn-v2:bob-admin-tok" })
})

afterAll(async () => {
  delete process.env.PUSH_IOS_TEAM_ID
  await server?.close()
  await Promise.all([fcm?.close(), apns?.close()])
})

describe("/api/v1/admin/push", () => {
  it("shows the environment fallback and no transport before anything is configured", async () => {
    const view = await call(server.url, "GET", "/api/v1/admin/push", admin.token)
    expect(view.status).toBe(200)
    expect(view.body).toMatchObject({
      push_android_project_id: null,
      push_android_access_token: null,
      push_ios_team_id: "ENVTEAM123",
      enabled_transports: [],
      from_environment: ["push_ios_team_id"]
    })
  })

  it("sends nothing while no credentials are configured", async () => {
    const dm = await alice.client.createDirectChannel([alice.id, bob.id])
    await alice.client.createPost({ channel_id: dm.id, message: "anyone?" } as never)
    await settle(600)
    expect(fcm.messages).toHaveLength(0)
    expect(apns.requests).toHaveLength(0)
  })

  it("stores private values encrypted, returns them only as \"set\", and pushes once credentials are complete", async () => {
    const put = await call(server.url, "PUT", "/api/v1/admin/push", admin.token, {
      push_android_project_id: "fake-project",
      push_android_service_account_key: JSON.stringify(fcm.serviceAccount),
      push_fcm_base_url: fcm.url,
      push_ios_key_id: apns.keyId,
      push_ios_bundle_id: apns.bundleId,
      push_ios_private_key: apns.privateKeyPem
    })
    expect(put.status).toBe(200)
    expect(put.body).toMatchObject({
      push_android_project_id: "fake-project",
      push_android_service_account_key: "set",
      push_ios_private_key: "set",
      push_ios_team_id: "ENVTEAM123",
      enabled_transports: ["fcm", "apns"]
    })
    const stored = await storedPush()
    expect(stored.push_ios_private_key).toMatch(/^v1:/)
    expect(stored.push_android_service_account_key).toMatch(/^v1:/)
    expect(JSON.stringify(stored)).not.toContain("PRIVATE KEY")
    expect(JSON.stringify((await call(server.url, "GET", "/api/v1/admin/push", admin.token)).body)).not.toContain("PRIVATE KEY")

    const dm = await alice.client.createDirectChannel([alice.id, bob.id])
    await alice.client.createPost({ channel_id: dm.id, message: "now?" } as never)
    const [push] = await eventually(() => fcm.messages.length > 0 ? fcm.messages : undefined)
    expect(push.message.token).toBe("bob-admin-tok")
    expect(push.authorization).toMatch(/^Bearer ya29\.fake-/)
    expect(fcm.grants).toHaveLength(1)
  })

  it("keeps a private value sent back as \"set\" and clears values sent as null", async () => {
    const kept = await call(server.url, "PUT", "/api/v1/admin/push", admin.token, { push_ios_private_key: "set", push_ios_key_id: null })
    expect(kept.body).toMatchObject({ push_ios_private_key: "set", push_ios_key_id: null, enabled_transports: ["fcm"] })
    expect((await storedPush()).push_ios_private_key).toMatch(/^v1:/)
  })

  it("refuses values that cannot work with 400 and the native error body", async () => {
    for (const body of [
      { push_proxy_url: "not a url" },
      { push_ios_private_key: "-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----" },
      { push_android_service_account_key: "{\"client_email\": 1}" },
      { push_fcm_base_url: 42 }
    ]) {
      const result = await call(server.url, "PUT", "/api/v1/admin/push", admin.token, body)
      expect(result.status).toBe(400)
      expect(result.body).toMatchObject({ error: { code: "BAD_REQUEST", message: expect.any(String) } })
    }
    expect((await storedPush()).push_proxy_url).toBeUndefined()
  })

  it("is for administrators only", async () => {
    expect((await call(server.url, "GET", "/api/v1/admin/push", alice.token)).status).toBe(403)
    expect((await call(server.url, "PUT", "/api/v1/admin/push", alice.token, { push_proxy_url: "http://evil.example" })).status).toBe(403)
    expect((await call(server.url, "GET", "/api/v1/admin/push", undefined)).status).toBe(401)
  })

  it("stops pushing once the credentials are cleared", async () => {
    await call(server.url, "PUT", "/api/v1/admin/push", admin.token, { push_android_project_id: null, push_android_service_account_key: null })
    const before = fcm.messages.length
    const dm = await alice.client.createDirectChannel([alice.id, bob.id])
    await alice.client.createPost({ channel_id: dm.id, message: "and now?" } as never)
    await settle(600)
    expect(fcm.messages.length).toBe(before)
  })
})

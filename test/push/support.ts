import type { Client4 } from "@mattermost/client"
import { Effect, Fiber, Stream } from "effect"
import { importSPKI, jwtVerify } from "jose"
import { type Envelope, EventBus } from "../../src/events/EventBus.ts"
import { newUser } from "../support/Clients.ts"
import type { TestServer } from "../support/TestServer.ts"
import { startFakeApns } from "./fakes/FakeApns.ts"
import { startFakeFcm } from "./fakes/FakeFcm.ts"

/** Shared helpers of the push tests: HTTP calls with a token, waiting for a push, a team with members. */

export const call = async (baseUrl: string, method: string, path: string, token: string | undefined, body?: unknown) => {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { "content-type": "application/json", ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  const text = await response.text()
  return { status: response.status, body: text === "" ? null : JSON.parse(text) }
}

/** Polls until `probe` returns a value (not undefined), or fails after the timeout. */
export const eventually = async <A>(probe: () => A | undefined, timeoutMs = 5000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error("timed out waiting for a push")
    await new Promise((r) => setTimeout(r, 20))
  }
}

/** Lets in-flight decisions and deliveries finish before asserting that something did not happen. */
export const settle = (ms = 400) => new Promise((r) => setTimeout(r, ms))

export interface Member {
  readonly client: Client4
  readonly id: string
  readonly username: string
  readonly token: string
}

/** The first user of a fresh server is its system admin; the rest join one team. */
export const makeTeam = async (url: string, names: ReadonlyArray<string>) => {
  const admin = await newUser(url, "admin")
  const team = await admin.client.createTeam({ name: `team${Date.now().toString(36)}`, display_name: "Team", type: "O" } as never)
  const members: Record<string, Member> = {}
  for (const name of names) {
    const created = await newUser(url, name)
    await admin.client.addToTeam(team.id, created.user.id)
    members[name] = { client: created.client, id: created.user.id, username: created.username, token: created.client.getToken() }
  }
  const townSquare = await admin.client.getChannelByName(team.id, "town-square")
  return { admin: { client: admin.client, id: admin.user.id, username: admin.username, token: admin.client.getToken() }, team, members, townSquare }
}

/** Verifies a push signature with the public key config/client publishes, for the ack id and bare device token. */
export const verifySignature = async (publicKeyBase64: string, signature: string) => {
  const pem = `-----BEGIN PUBLIC KEY-----\n${publicKeyBase64.match(/.{1,64}/g)!.join("\n")}\n-----END PUBLIC KEY-----`
  const { payload } = await jwtVerify(signature, await importSPKI(pem, "ES256"), { algorithms: ["ES256"] })
  return payload as { ack_id: string; device_id: string }
}

/**
 * Loopback FCM and APNs, what each device token received (from index `from` on), and the admin push settings
 * (PUT /api/v1/admin/push) that route a server's pushes to them.
 */
export const startPushFakes = async () => {
  const [fcm, apns] = await Promise.all([startFakeFcm({ staticToken: "static-token" }), startFakeApns()])
  return {
    fcm,
    apns,
    fcmTo: (token: string, from = 0) => fcm.messages.slice(from).filter((m) => m.message.token === token),
    apnsTo: (token: string, from = 0) => apns.requests.slice(from).filter((r) => r.token === token),
    settings: {
      push_android_project_id: "chat-project",
      push_android_access_token: "static-token",
      push_fcm_base_url: fcm.url,
      push_ios_key_id: apns.keyId,
      push_ios_team_id: apns.teamId,
      push_ios_bundle_id: apns.bundleId,
      push_ios_private_key: apns.privateKeyPem,
      push_apns_base_url: apns.url,
      push_apns_ca_cert: apns.ca
    },
    close: () => Promise.all([fcm.close(), apns.close()])
  }
}
export type PushFakes = Awaited<ReturnType<typeof startPushFakes>>

/** Every envelope on the server's event bus (its own and other nodes') from now until `stop`. */
export const collectBusEvents = (server: TestServer) => {
  const events: Array<Envelope> = []
  const fiber = server.runtime.runFork(
    Effect.flatMap(EventBus, (bus) => Stream.runForEach(Stream.merge(bus.localEvents, bus.remoteEvents), (e) => Effect.sync(() => events.push(e))))
  )
  return { events, stop: () => server.runtime.runPromise(Fiber.interrupt(fiber)) }
}
export type BusEvents = ReturnType<typeof collectBusEvents>

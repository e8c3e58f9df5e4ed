import type { Channel } from "@mattermost/types/channels"
import type { Post } from "@mattermost/types/posts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { type Member, publish, say, stats, teamWithChannel } from "./Fixture.ts"
import { eventually, type Frame, MattermostSocket, RawSocket, sawSequenceGap, wsUrl } from "./Sockets.ts"

/** Events reaching the official client: payloads, scopes, membership changes, typing, statuses and resumption. */
let server: TestServer
let alice: Member
let bob: Member
let carol: Member
let channel: Channel
let teamId: string
const open: Array<{ close: () => void }> = []
const track = <A extends { close: () => void }>(a: A) => {
  open.push(a)
  return a
}

const connect = async (member: Member, options: { retryMs?: number } = {}) => {
  const socket = track(new MattermostSocket(wsUrl(server.url), member.client.getToken(), options))
  await socket.connect()
  await socket.hello()
  return socket
}

/** Stats once the server has seen the sockets close. */
const settled = async (sockets: number) => {
  for (let i = 0; i < 250; i++) {
    const now = await stats(server)
    if (now.websocket_connections === sockets) return now
    await new Promise((r) => setTimeout(r, 20))
  }
  return stats(server)
}

beforeAll(async () => {
  server = await startServer()
  const setup = await teamWithChannel(server, ["alice", "bob", "carol"])
  ;[alice, bob, carol] = setup.users
  channel = setup.channel
  teamId = setup.team.id
  await alice.client.addToChannel(bob.user.id, channel.id)
})
afterAll(async () => {
  for (const s of open) s.close()
  await server?.close()
})

describe("delivery", () => {
  it("delivers a post made over REST as `posted` with the full payload, to members only", async () => {
    const [bobSocket, aliceSocket, carolSocket] = [await connect(bob), await connect(alice), await connect(carol)]
    const post = await say(alice, channel.id, `hi @${bob.username}`)
    const event = await bobSocket.waitFor((e) => e.event === "posted", "posted")
    expect(event.broadcast?.channel_id).toBe(channel.id)
    const data = event.data as Record<string, unknown>
    const delivered = JSON.parse(data.post as string) as Post
    expect(delivered.id).toBe(post.id)
    expect(delivered.message).toBe(`hi @${bob.username}`)
    expect(data).toMatchObject({
      channel_display_name: "Town Hall",
      channel_name: channel.name,
      channel_type: "O",
      sender_name: `@${alice.username}`,
      team_id: teamId
    })
    expect(typeof data.set_online).toBe("boolean")
    expect(JSON.parse(data.mentions as string)).toEqual([bob.user.id])
    await aliceSocket.waitFor((e) => e.event === "posted", "posted to the author")
    // Carol is on the team but not in the channel.
    await say(alice, channel.id, "second")
    await bobSocket.waitFor((e) => e.event === "posted" && (e.data?.post as string).includes("second"), "second post")
    expect(carolSocket.named("posted")).toHaveLength(0)
    for (const s of [bobSocket, aliceSocket]) {
      const seqs = s.events.map((e) => e.seq)
      expect(seqs).toEqual(seqs.map((_, i) => i))
    }
    expect(sawSequenceGap()).toBe(false)
  })

  it("delivers the first post of a DM created after the socket connected", async () => {
    const carolSocket = await connect(carol)
    const dm: Channel = await alice.client.createDirectChannel([alice.user.id, carol.user.id])
    await carolSocket.waitFor((e) => e.event === "direct_added" && e.broadcast?.channel_id === dm.id, "direct_added")
    const post = await say(alice, dm.id, "psst")
    const posted = await carolSocket.waitFor((e) => e.event === "posted" && e.broadcast?.channel_id === dm.id, "first DM post")
    expect(JSON.parse(posted.data?.post as string).id).toBe(post.id)
    expect(posted.data?.channel_type).toBe("D")
  })

  it("follows channel membership at once: added users get the next post, removed users stop getting them", async () => {
    const carolSocket = await connect(carol)
    await alice.client.addToChannel(carol.user.id, channel.id)
    await carolSocket.waitFor((e) => e.event === "user_added" && e.data?.user_id === carol.user.id, "user_added")
    await say(alice, channel.id, "welcome carol")
    await carolSocket.waitFor((e) => e.event === "posted" && (e.data?.post as string).includes("welcome carol"), "post after joining")
    await alice.client.removeFromChannel(carol.user.id, channel.id)
    await carolSocket.waitFor((e) => e.event === "user_removed" && e.broadcast?.user_id === carol.user.id, "own user_removed")
    const before = carolSocket.events.length
    await say(alice, channel.id, "after carol left")
    const bobSocket = await connect(bob)
    await say(alice, channel.id, "marker")
    await bobSocket.waitFor((e) => e.event === "posted" && (e.data?.post as string).includes("marker"), "marker")
    expect(carolSocket.named("posted", before)).toHaveLength(0)
  })

  it("relays typing to the other channel members, throttled, and refuses typing in a channel the user is not in", async () => {
    const [aliceSocket, bobSocket, carolSocket] = [await connect(alice), await connect(bob), await connect(carol)]
    const first = await aliceSocket.request("user_typing", { channel_id: channel.id, parent_id: "" })
    expect(first.status).toBe("OK")
    await aliceSocket.request("user_typing", { channel_id: channel.id, parent_id: "" })
    const typing = await bobSocket.waitFor((e) => e.event === "typing", "typing")
    expect(typing.data).toEqual({ parent_id: "", user_id: alice.user.id })
    expect(typing.broadcast?.omit_users).toEqual({ [alice.user.id]: true })
    const denied = await carolSocket.request("user_typing", { channel_id: channel.id, parent_id: "" })
    expect(denied.status).toBe("FAIL")
    expect(denied.error?.id).toBe("api.context.permissions.app_error")
    await aliceSocket.request("ping", null)
    await bobSocket.request("ping", null)
    expect(bobSocket.named("typing")).toHaveLength(1)
    expect(aliceSocket.named("typing")).toHaveLength(0)
  })

  it("relays typing sent over HTTP (POST /users/{user_id}/typing), for oneself in a channel one may post in", async () => {
    // Bob types (the test above typed as alice: typing is throttled per user and channel).
    const aliceSocket = await connect(alice)
    const send = (who: Member, userId: string, body: unknown) =>
      fetch(`${server.url}/api/v4/users/${userId}/typing`, {
        method: "POST",
        headers: { Authorization: `Bearer ${who.client.getToken()}`, "Content-Type": "application/json" },
        body: JSON.stringify(body)
      })
    const root = await say(alice, channel.id, "a thread to type in")
    const sent = await send(bob, "me", { channel_id: channel.id, parent_id: root.id })
    expect(sent.status).toBe(200)
    expect(await sent.json()).toEqual({ status: "OK" })
    const typing = await aliceSocket.waitFor((e) => e.event === "typing" && e.data?.user_id === bob.user.id, "typing over HTTP")
    expect(typing.data).toEqual({ parent_id: root.id, user_id: bob.user.id })
    // Not as someone else, not where one may not post, not with a malformed channel id.
    expect((await send(bob, alice.user.id, { channel_id: channel.id })).status).toBe(403)
    expect((await send(carol, "me", { channel_id: channel.id })).status).toBe(403)
    expect((await send(bob, "me", { channel_id: "nope" })).status).toBe(400)
  })

  it("sends status_change only to the user whose status changed", async () => {
    const [aliceSocket, bobSocket] = [await connect(alice), await connect(bob)]
    await alice.client.updateStatus({ user_id: alice.user.id, status: "dnd" } as never)
    const change = await aliceSocket.waitFor((e) => e.event === "status_change" && e.data?.status === "dnd", "status_change")
    expect(change.data).toEqual({ status: "dnd", user_id: alice.user.id })
    expect(change.broadcast?.user_id).toBe(alice.user.id)
    await bobSocket.request("ping", null)
    expect(bobSocket.named("status_change").filter((e) => e.data?.user_id === alice.user.id)).toHaveLength(0)
    await alice.client.updateStatus({ user_id: alice.user.id, status: "online" } as never)
    await aliceSocket.waitFor((e) => e.event === "status_change" && e.data?.status === "online", "back online")
  })

  it("delivers by scope: one user, a team, everybody, leaving out omitted users and the omitted connection", async () => {
    const [aliceSocket, bobSocket, outsiderSocket] = [await connect(alice), await connect(bob), await connect(await newUser(server.url, "outsider"))]
    const aliceRaw = track(new RawSocket(wsUrl(server.url), { headers: { Authorization: `Bearer ${alice.client.getToken()}` } }))
    const rawHello = await aliceRaw.waitFor((f) => f.event === "hello", "hello")
    await publish(server, "custom_one", {}, { user_id: bob.user.id })
    await publish(server, "custom_team", {}, { team_id: teamId, omit_users: { [bob.user.id]: true } })
    await publish(server, "custom_all", {}, { broadcast_to_all: true, omit_connection_id: String(rawHello.data?.connection_id) })
    await publish(server, "custom_end", {}, {})
    const seen = async (s: MattermostSocket) => {
      await s.waitFor((e) => e.event === "custom_end", "end marker")
      return s.events.map((e) => e.event).filter((e) => e!.startsWith("custom_"))
    }
    expect(await seen(aliceSocket)).toEqual(["custom_team", "custom_all", "custom_end"])
    expect(await seen(bobSocket)).toEqual(["custom_one", "custom_all", "custom_end"])
    expect(await seen(outsiderSocket)).toEqual(["custom_all", "custom_end"])
    await aliceRaw.waitFor((f) => f.event === "custom_end", "end marker")
    expect(aliceRaw.events().map((f) => f.event)).toEqual(["hello", "custom_team", "custom_end"])
  })

  it("counts live sockets in /api/v1/health/stats and the metrics gauge", async () => {
    for (const s of open.splice(0)) s.close()
    await settled(0)
    const sockets = [await connect(alice), await connect(alice), await connect(bob)]
    const now = await stats(server)
    expect(now.websocket_connections).toBe(3)
    expect(now.active_users).toBe(2)
    const metrics = await (await fetch(`${server.url}/api/v1/health/metrics`)).text()
    expect(metrics).toMatch(/^service_websocket_active_connections 3$/m)
    sockets[2].close()
    expect(await settled(2)).toMatchObject({ websocket_connections: 2, active_users: 1 })
  })
})

describe("resumption", () => {
  it("resumes with sequence_number after a drop: missed events are replayed with their numbers, no hello, no gap", async () => {
    const bobSocket = await connect(bob, { retryMs: 1500 })
    const hello = await bobSocket.hello()
    await say(alice, channel.id, "before the drop")
    await bobSocket.waitFor((e) => e.event === "posted" && (e.data?.post as string).includes("before the drop"), "first post")
    const sockets = bobSocket.socketCount
    bobSocket.drop()
    for (const text of ["missed one", "missed two", "missed three"]) await say(alice, channel.id, text)
    await bobSocket.reconnected(sockets)
    expect(bobSocket.urls.at(-1)).toContain(`connection_id=${String(hello.data?.connection_id)}`)
    await bobSocket.waitFor((e) => e.event === "posted" && (e.data?.post as string).includes("missed three"), "replayed posts")
    await say(alice, channel.id, "after the resume")
    await bobSocket.waitFor((e) => e.event === "posted" && (e.data?.post as string).includes("after the resume"), "live post")
    const texts = bobSocket.named("posted").map((e) => (JSON.parse(e.data?.post as string) as Post).message)
    expect(texts).toEqual(["before the drop", "missed one", "missed two", "missed three", "after the resume"])
    expect(bobSocket.named("hello")).toHaveLength(1)
    expect(bobSocket.missed).toHaveLength(0)
    expect(bobSocket.events.map((e) => e.seq)).toEqual(bobSocket.events.map((_, i) => i))
    expect(sawSequenceGap()).toBe(false)
  })

  it("starts a fresh connection (new connection_id, hello at seq 0, client resyncs) when the buffer no longer covers the gap", async () => {
    const bobSocket = await connect(bob, { retryMs: 1500 })
    const hello = await bobSocket.hello()
    const sockets = bobSocket.socketCount
    bobSocket.drop()
    for (let i = 0; i < 140; i++) await publish(server, "custom_flood", { i }, { user_id: bob.user.id })
    await bobSocket.reconnected(sockets)
    const fresh = await eventually(() => bobSocket.named("hello").at(1), "second hello")
    expect(fresh.data?.connection_id).not.toBe(hello.data?.connection_id)
    expect(fresh.seq).toBe(0)
    expect(bobSocket.missed).toHaveLength(1)
    expect(bobSocket.named("custom_flood")).toHaveLength(0)
    expect(sawSequenceGap()).toBe(false)
  })

  it("resumes a raw socket from the middle of the buffer, and starts fresh for an unknown connection_id", async () => {
    const headers = { Authorization: `Bearer ${bob.client.getToken()}` }
    const first = track(new RawSocket(wsUrl(server.url), { headers }))
    const hello = await first.waitFor((f) => f.event === "hello", "hello")
    for (let i = 1; i <= 5; i++) await publish(server, "custom_n", { i }, { user_id: bob.user.id })
    await first.waitFor((f) => f.event === "custom_n" && f.data?.i === 5, "fifth")
    first.close()
    await publish(server, "custom_n", { i: 6 }, { user_id: bob.user.id })
    const again = track(new RawSocket(`${wsUrl(server.url)}?connection_id=${String(hello.data?.connection_id)}&sequence_number=3`, { headers }))
    await again.waitFor((f) => f.event === "custom_n" && f.data?.i === 6, "sixth")
    expect(again.events().map((f) => [f.seq, f.data?.i])).toEqual([[3, 3], [4, 4], [5, 5], [6, 6]])
    const unknown = track(new RawSocket(`${wsUrl(server.url)}?connection_id=${"x".repeat(26)}&sequence_number=3`, { headers }))
    const freshHello = await unknown.waitFor((f) => f.event === "hello", "hello")
    expect(freshHello.seq).toBe(0)
    expect(freshHello.data?.connection_id).not.toBe("x".repeat(26))
  })

  it("resumes from within a buffer that has wrapped, in order, and starts fresh from before it", async () => {
    const headers = { Authorization: `Bearer ${bob.client.getToken()}` }
    const first = track(new RawSocket(wsUrl(server.url), { headers }))
    const hello = await first.waitFor((f) => f.event === "hello", "hello")
    // 150 events while connected: the buffer (128) has gone round. Bob's own status changes may add a few.
    for (let i = 1; i <= 150; i++) await publish(server, "custom_w", { i }, { user_id: bob.user.id })
    await first.waitFor((f) => f.event === "custom_w" && f.data?.i === 150, "150th")
    const seqOf150 = first.events().find((f: Frame) => f.event === "custom_w" && f.data?.i === 150)!.seq as number
    first.close()
    for (let i = 151; i <= 155; i++) await publish(server, "custom_w", { i }, { user_id: bob.user.id })
    const from = seqOf150 - 99
    const again = track(new RawSocket(`${wsUrl(server.url)}?connection_id=${String(hello.data?.connection_id)}&sequence_number=${from}`, { headers }))
    await again.waitFor((f) => f.event === "custom_w" && f.data?.i === 155, "155th")
    expect(again.events().some((f: Frame) => f.event === "hello")).toBe(false)
    const seqs = again.events().map((f: Frame) => f.seq)
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => from + i))
    const numbers = again.events().filter((f: Frame) => f.event === "custom_w").map((f) => f.data?.i as number)
    expect(numbers[0]).toBeGreaterThanOrEqual(50)
    expect(numbers).toEqual(Array.from({ length: 155 - numbers[0] + 1 }, (_, i) => numbers[0] + i))
    // A place before the buffer's oldest event cannot be continued (a failed resume forgets the connection).
    again.close()
    await settled(0)
    const tooOld = track(new RawSocket(`${wsUrl(server.url)}?connection_id=${String(hello.data?.connection_id)}&sequence_number=${seqOf150 - 140}`, { headers }))
    const fresh = await tooOld.waitFor((f) => f.event === "hello", "fresh hello")
    expect(fresh.data?.connection_id).not.toBe(hello.data?.connection_id)
  })

  it("closes a socket whose send queue passes its bound; the client resumes from the buffer", async () => {
    const headers = { Authorization: `Bearer ${bob.client.getToken()}` }
    const slow = track(new RawSocket(wsUrl(server.url), { headers }))
    const hello = await slow.waitFor((f) => f.event === "hello", "hello")
    const tcp = (slow.ws as unknown as { _socket: { pause: () => void; resume: () => void } })._socket
    tcp.pause()
    const blob = "x".repeat(512 * 1024)
    for (let i = 0; i < 40; i++) await publish(server, "custom_big", { i, blob }, { user_id: bob.user.id })
    tcp.resume()
    const closed = await slow.waitClosed(10_000)
    expect(closed).toEqual({ code: 1008, reason: "send queue full" })
    const received = slow.events().filter((f: Frame) => f.event === "custom_big").length
    expect(received).toBeLessThan(40)
    const resumed = track(new RawSocket(`${wsUrl(server.url)}?connection_id=${String(hello.data?.connection_id)}&sequence_number=${received + 1}`, { headers }))
    await resumed.waitFor((f) => f.event === "custom_big" && f.data?.i === 39, "last big event", 10_000)
    // Bob's status changes (offline when the slow socket closed, online again) may follow in the same sequence.
    const seqs = resumed.events().map((f) => f.seq)
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => received + 1 + i))
    expect(resumed.events().filter((f) => f.event === "custom_big").map((f) => f.seq))
      .toEqual(Array.from({ length: 40 - received }, (_, i) => received + 1 + i))
  }, 20_000)
})

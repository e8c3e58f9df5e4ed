import type { PostAcknowledgement } from "@mattermost/types/posts"
import { Effect, Stream } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Db } from "../../layers/Db.ts"
import { EventBus } from "../../src/events/EventBus.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { channelIn, say, teamWith } from "./Fixture.ts"

/** Post acknowledgements through Client4: acknowledge, take back within five minutes, metadata and events. */

let server: TestServer

beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server?.close())

/** The next published event of that name, subscribed before the call that causes it. */
const nextEvent = (name: string) =>
  server.runtime.runPromise(
    Effect.flatMap(EventBus, (bus) => Stream.runHead(bus.localEvents.pipe(Stream.filter((e) => e.event === name))))
  )

const execute = (text: string, params: ReadonlyArray<unknown>) =>
  server.runtime.runPromise(Effect.flatMap(Db, (db) => db.execute(db.sql.unsafe(text, params as Array<unknown>))))

const published = async (event: ReturnType<typeof nextEvent>) => {
  const got = await event
  expect(got._tag).toBe("Some")
  if (got._tag !== "Some") throw new Error("no event")
  return { data: JSON.parse(got.value.data.acknowledgement as string) as PostAcknowledgement, broadcast: got.value.broadcast }
}

describe("post acknowledgements", () => {
  it("acknowledges for the caller, lists it in metadata, publishes, and takes it back", async () => {
    const { owner, members: [bob], team } = await teamWith(server, 1)
    const channel = await channelIn(owner, team, "O", [bob])
    const post = await say(owner, channel.id, "please confirm")

    const added = nextEvent("post_acknowledgement_added")
    const ack: PostAcknowledgement = await bob.client.acknowledgePost(post.id, bob.user.id)
    expect(ack).toEqual({ user_id: bob.user.id, post_id: post.id, acknowledged_at: expect.any(Number) })
    expect(ack.acknowledged_at).toBeGreaterThan(0)
    const addedEvent = await published(added)
    expect(addedEvent.data).toEqual(ack)
    expect(addedEvent.broadcast.channel_id).toBe(channel.id)

    const mine: PostAcknowledgement = await owner.client.acknowledgePost(post.id, "me")
    const seen = await owner.client.getPost(post.id)
    expect(seen.metadata.acknowledgements).toEqual([ack, mine])
    const page = await bob.client.getPosts(channel.id, 0, 60)
    expect(page.posts[post.id].metadata.acknowledgements?.map((a) => a.user_id)).toEqual([bob.user.id, owner.user.id])

    const removed = nextEvent("post_acknowledgement_removed")
    expect(await bob.client.unacknowledgePost(post.id, bob.user.id)).toEqual({ status: "OK" })
    const removedEvent = await published(removed)
    expect(removedEvent.data).toEqual(ack)
    expect(removedEvent.broadcast.channel_id).toBe(channel.id)
    expect((await bob.client.getPost(post.id)).metadata.acknowledgements).toEqual([mine])
    await expect(bob.client.unacknowledgePost(post.id, "me")).rejects.toMatchObject({ status_code: 404 })
  })

  it("refuses removing an acknowledgement older than five minutes with 403, keeping it", async () => {
    const { owner, members: [bob], team } = await teamWith(server, 1)
    const channel = await channelIn(owner, team, "O", [bob])
    const post = await say(owner, channel.id, "old news")
    const ack: PostAcknowledgement = await bob.client.acknowledgePost(post.id, "me")
    const sixMinutesAgo = ack.acknowledged_at - 6 * 60 * 1000
    await execute("UPDATE post_acknowledgements SET acknowledged_at = $1 WHERE post_id = $2 AND user_id = $3", [sixMinutesAgo, post.id, bob.user.id])
    await expect(bob.client.unacknowledgePost(post.id, "me")).rejects.toMatchObject({
      status_code: 403,
      server_error_id: "api.acknowledgement.delete.deadline.app_error"
    })
    expect((await bob.client.getPost(post.id)).metadata.acknowledgements).toEqual([{ ...ack, acknowledged_at: sixMinutesAgo }])
  })

  it("allows only the caller for themself and readers of the post's channel", async () => {
    const { owner, members: [bob, eve], team } = await teamWith(server, 2)
    const secret = await channelIn(owner, team, "P", [bob])
    const post = await say(owner, secret.id, "members only")
    await expect(bob.client.acknowledgePost(post.id, owner.user.id)).rejects.toMatchObject({ status_code: 403 })
    await expect(bob.client.unacknowledgePost(post.id, owner.user.id)).rejects.toMatchObject({ status_code: 403 })
    await expect(eve.client.acknowledgePost(post.id, "me")).rejects.toMatchObject({ status_code: 403 })
    await expect(bob.client.acknowledgePost("p".repeat(26), "me")).rejects.toMatchObject({ status_code: 404 })
    expect((await owner.client.getPost(post.id)).metadata.acknowledgements).toEqual([])
  })

  it("turns the feature on in the client config", async () => {
    const { owner } = await teamWith(server, 0)
    const config = await owner.client.getClientConfig()
    expect(config.PostAcknowledgements).toBe("true")
  })
})

import { describe, expect, it } from "vitest"
import { DomainEvent, eventPost, toWire } from "../../schemas/Events.ts"

/**
 * The wire form of typed events, as text: frames are compared byte for byte by clients' tests, so field order and
 * which fields are left out matter as much as values.
 */
const text = (event: DomainEvent) => {
  const wire = toWire(event)
  return `${wire.event} ${JSON.stringify(wire.data)}`
}

const post = eventPost({ id: "p", create_at: 1, user_id: "u", channel_id: "c", root_id: "", message: "hi", type: "", props: {} })
const channel = { id: "c", team_id: "t", type: "O", name: "town", display_name: "Town" }

describe("domain events on the wire", () => {
  it("posted: Mattermost's field order, the post and mentions as JSON text, mentions only when there are any", () => {
    expect(text(DomainEvent.Posted({ post, channel, senderName: "ann", setOnline: true, mentions: [] }))).toBe(
      `posted {"channel_display_name":"Town","channel_name":"town","channel_type":"O","post":${JSON.stringify(JSON.stringify(post))},"sender_name":"@ann","team_id":"t","set_online":true}`
    )
    expect(toWire(DomainEvent.Posted({ post, channel, senderName: "ann", setOnline: false, mentions: ["x"] })).data.mentions).toBe(`["x"]`)
  })

  it("post_deleted names who deleted only when it was not the author", () => {
    expect(text(DomainEvent.PostDeleted({ post, deletedBy: undefined }))).toBe(`post_deleted {"post":${JSON.stringify(JSON.stringify(post))}}`)
    expect(toWire(DomainEvent.PostDeleted({ post, deletedBy: "admin" })).data).toEqual({ post: JSON.stringify(post), delete_by: "admin" })
  })

  it("user_removed has two forms under one name; user_updated carries the user as an object", () => {
    expect(text(DomainEvent.UserRemoved({ userId: "u", removerId: "r" }))).toBe(`user_removed {"user_id":"u","remover_id":"r"}`)
    expect(text(DomainEvent.RemovedFromChannel({ channelId: "c", removerId: "r" }))).toBe(`user_removed {"channel_id":"c","remover_id":"r"}`)
    expect(text(DomainEvent.UserUpdated({ user: { id: "u" } }))).toBe(`user_updated {"user":{"id":"u"}}`)
  })

  it("calls events keep the plugin's names and fields", () => {
    expect(text(DomainEvent.CallStarted({ id: "k", channelId: "c", startAt: 5, threadId: "th", postId: "p", ownerId: "o" }))).toBe(
      `custom_com.mattermost.calls_call_start {"id":"k","channelID":"c","start_at":5,"thread_id":"th","post_id":"p","owner_id":"o","host_id":"o"}`
    )
    expect(text(DomainEvent.CallsDisabled())).toBe(`custom_com.mattermost.calls_channel_disable_voice {}`)
  })
})

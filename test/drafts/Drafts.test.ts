import type { Channel } from "@mattermost/types/channels"
import type { Post } from "@mattermost/types/posts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MattermostSocket, wsUrl } from "../realtime/Sockets.ts"
import { expectShape, Wire } from "../compat/Shapes.ts"
import { client4, newUser, unique } from "../support/Clients.ts"
import { teamOfTwo } from "../support/Teams.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/** Synced drafts through Client4, with the events reaching the user's other devices over the official socket client. */
let server: TestServer
const sockets: Array<MattermostSocket> = []

const socketOf = async (token: string) => {
  const socket = new MattermostSocket(wsUrl(server.url), token)
  sockets.push(socket)
  await socket.connect()
  const hello = await socket.hello()
  return { socket, connectionId: hello.data!.connection_id as string }
}

describe("synced drafts", () => {
  beforeAll(async () => {
    server = await startServer()
    await newUser(server.url, "draftadmin")
  })
  afterAll(async () => {
    for (const s of sockets) s.close()
    await server?.close()
  })

  it("saves, lists, updates and deletes a user's drafts, telling the user's other sockets but not the sender's", async () => {
    const { owner, team } = await teamOfTwo(server.url, ["draftowner", "draftmember"])
    expect((await owner.client.getClientConfig() as Record<string, string>).AllowSyncedDrafts).toBe("true")
    const channel = await owner.client.createChannel({ team_id: team.id, name: unique("ch"), display_name: "Drafts", type: "O" } as Channel)
    const root: Post = await owner.client.createPost({ channel_id: channel.id, message: "root" } as Post)
    const phone = await socketOf(owner.client.getToken())
    const laptop = await socketOf(owner.client.getToken())

    const saved = await owner.client.upsertDraft({ channel_id: channel.id, root_id: "", message: "half a thought", user_id: owner.user.id } as never, laptop.connectionId)
    expect(saved).toMatchObject({ channel_id: channel.id, root_id: "", message: "half a thought", user_id: owner.user.id, delete_at: 0 })
    expectShape(saved, Wire.Draft, "saved draft")
    const created = await phone.socket.waitFor((e) => e.event === "draft_created", "draft_created on the other device")
    expect(JSON.parse(created.data!.draft as string)).toMatchObject({ message: "half a thought" })
    await owner.client.upsertDraft({ channel_id: channel.id, root_id: root.id, message: "a reply", user_id: owner.user.id } as never, laptop.connectionId)
    await owner.client.upsertDraft({ channel_id: channel.id, root_id: "", message: "a whole thought", user_id: owner.user.id } as never, laptop.connectionId)
    await phone.socket.waitFor((e) => e.event === "draft_updated", "draft_updated")

    const drafts = await owner.client.getUserDrafts(team.id)
    drafts.forEach((d: unknown, i: number) => expectShape(d, Wire.Draft, `drafts[${i}]`))
    expect(drafts.map((d: { root_id: string; message: string }) => [d.root_id, d.message]).sort()).toEqual([["", "a whole thought"], [root.id, "a reply"]])

    expect(await owner.client.deleteDraft(channel.id, root.id, laptop.connectionId)).toEqual({ status: "OK" })
    await phone.socket.waitFor((e) => e.event === "draft_deleted", "draft_deleted")
    await owner.client.deleteDraft(channel.id, "", laptop.connectionId)
    expect(await owner.client.getUserDrafts(team.id)).toEqual([])
    // Every event went to the other device; the sending one (named by Connection-Id) got none.
    expect(phone.socket.named("draft_created").length + phone.socket.named("draft_updated").length).toBe(3)
    expect(phone.socket.named("draft_deleted")).toHaveLength(2)
    expect(laptop.socket.events.filter((e) => e.event?.startsWith("draft_"))).toEqual([])
  })

  it("authorization: only one's own drafts, only in channels one may post in", async () => {
    const { owner, member, team } = await teamOfTwo(server.url, ["dauth", "dauthm"])
    const privateChannel = await owner.client.createChannel({ team_id: team.id, name: unique("p"), display_name: "P", type: "P" } as Channel)
    const outsider = await newUser(server.url, "dout")
    await expect(member.client.upsertDraft({ channel_id: privateChannel.id, message: "x" } as never, "")).rejects.toMatchObject({ status_code: 403 })
    await expect(owner.client.upsertDraft({ channel_id: privateChannel.id, message: "x", user_id: member.user.id } as never, "")).rejects.toMatchObject({ status_code: 403 })
    await owner.client.upsertDraft({ channel_id: privateChannel.id, message: "mine" } as never, "")
    await expect(outsider.client.getUserDrafts(team.id)).rejects.toMatchObject({ status_code: 403 })
    const raw = (path: string, method = "GET") =>
      fetch(`${server.url}/api/v4/users/${owner.user.id}/${path}`, { method, headers: { Authorization: `Bearer ${member.client.getToken()}` } })
    expect((await raw(`teams/${team.id}/drafts`)).status).toBe(403)
    expect((await raw(`channels/${privateChannel.id}/drafts`, "DELETE")).status).toBe(403)
    expect((await owner.client.getUserDrafts(team.id)).map((d: { message: string }) => d.message)).toEqual(["mine"])
    await expect(client4(server.url).getUserDrafts(team.id)).rejects.toMatchObject({ status_code: 401 })
  })

  it("refuses bad input with Mattermost's error body", async () => {
    const { owner, team } = await teamOfTwo(server.url, ["dbad", "dbadm"])
    const post = (body: string) =>
      fetch(`${server.url}/api/v4/drafts`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${owner.client.getToken()}` },
        body
      })
    const channel = (await owner.client.getMyChannels(team.id))[0].id
    for (const body of [
      "{}",
      JSON.stringify({ channel_id: "nope" }),
      JSON.stringify({ channel_id: channel, root_id: "bad" }),
      JSON.stringify({ channel_id: channel, message: "x".repeat(20_000) }),
      JSON.stringify({ channel_id: channel, file_ids: Array.from({ length: 11 }, () => "a".repeat(26)) }),
      "not json"
    ]) {
      const response = await post(body)
      expect(response.status, body.slice(0, 50)).toBe(400)
      const error = await response.json()
      expect(Object.keys(error).sort()).toEqual(["detailed_error", "id", "message", "request_id", "status_code"])
      expect(JSON.stringify(error)).not.toContain("x".repeat(300))
    }
    await expect(owner.client.getUserDrafts("bad")).rejects.toMatchObject({ status_code: 400 })
    await expect(owner.client.deleteDraft("bad", "", "")).rejects.toMatchObject({ status_code: 400 })
  })
})

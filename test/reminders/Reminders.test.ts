import type { Channel } from "@mattermost/types/channels"
import type { Post } from "@mattermost/types/posts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { raw } from "../compat/Raw.ts"
import { client4, failureOf, unique } from "../support/Clients.ts"
import { teamOfTwo } from "../support/Teams.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/** "Remind me": two nodes on one database; the system bot's direct message arrives once. */
let first: TestServer
let second: TestServer
let team: Awaited<ReturnType<typeof teamOfTwo>>

beforeAll(async () => {
  first = await startServer()
  second = await startServer({ databaseUrl: first.databaseUrl })
  team = await teamOfTwo(first.url, ["admin", "dev"])
})
afterAll(async () => {
  await second?.close()
  await first?.close()
})

/** The reminders the system bot sent the member, oldest first (none before the bot exists). */
const reminders = async () => {
  const member = team.member.client
  let botId: string
  try {
    botId = (await member.getUserByUsername("system-bot")).id
  } catch {
    return []
  }
  const dm = await member.createDirectChannel([team.member.user.id, botId])
  const posts = await member.getPosts(dm.id, 0, 100)
  return posts.order.map((id) => posts.posts[id]).filter((p) => p.user_id === botId).reverse()
}

const eventually = async <A>(read: () => Promise<A>, holds: (a: A) => boolean, ms = 20_000) => {
  const until = Date.now() + ms
  for (;;) {
    const value = await read()
    if (holds(value)) return value
    if (Date.now() > until) throw new Error(`condition not met in time: ${JSON.stringify(value).slice(0, 300)}`)
    await new Promise((r) => setTimeout(r, 200))
  }
}

describe("post reminders", () => {
  it("sends one direct message from the system bot per reminder, pointing at the post, across two nodes", async () => {
    const channel = await team.owner.client.createChannel({ team_id: team.team.id, name: unique("ops"), display_name: "Ops", type: "O" } as Channel)
    await team.owner.client.addToChannel(team.member.user.id, channel.id)
    const post = await team.owner.client.createPost({ channel_id: channel.id, message: "please review the deploy plan" } as Post)
    const later = await team.owner.client.createPost({ channel_id: channel.id, message: "and the rollback plan" } as Post)
    const now = Math.floor(Date.now() / 1000)
    expect(await team.member.client.addPostReminder(team.member.user.id, post.id, now + 1)).toEqual({ status: "OK" })
    // Set through the second node; due a few seconds after the first.
    await client4(second.url, team.member.client.getToken()).addPostReminder(team.member.user.id, later.id, now + 6)

    const one = await eventually(reminders, (r) => r.length >= 1)
    expect(one[0].message).toContain(`/_redirect/pl/${post.id}`)
    expect(one[0].message).toContain(`@${team.owner.username}`)
    expect(one[0].props).toMatchObject({ post_id: post.id, username: team.owner.username, from_bot: "true" })
    // The later reminder comes after both nodes' jobs ran again: the first was not sent twice meanwhile.
    const both = await eventually(reminders, (r) => r.length >= 2)
    expect(both.map((p) => p.props.post_id)).toEqual([post.id, later.id])
  })

  it("only for oneself, on a post one can read; bad input is a 400", async () => {
    const secret = await team.owner.client.createChannel({ team_id: team.team.id, name: unique("sec"), display_name: "Secret", type: "P" } as Channel)
    const hidden = await team.owner.client.createPost({ channel_id: secret.id, message: "private" } as Post)
    const visible = await team.owner.client.createPost({ channel_id: (await team.owner.client.getChannelByName(team.team.id, "town-square")).id, message: "hi" } as Post)
    const at = Math.floor(Date.now() / 1000) + 3600
    expect((await failureOf(team.member.client.addPostReminder(team.owner.user.id, visible.id, at))).status).toBe(403)
    expect((await failureOf(team.member.client.addPostReminder(team.member.user.id, hidden.id, at))).status).toBe(403)
    const token = team.member.client.getToken()
    for (const [path, body] of [
      [`/api/v4/users/me/posts/${visible.id}/reminder`, {}],
      [`/api/v4/users/me/posts/${visible.id}/reminder`, { target_time: "soon" }],
      [`/api/v4/users/me/posts/${visible.id}/reminder`, { target_time: -5 }],
      [`/api/v4/users/me/posts/${visible.id}/reminder`, { target_time: 1.5 }],
      ["/api/v4/users/me/posts/nope/reminder", { target_time: at }]
    ] as Array<[string, unknown]>) {
      const response = await raw(first.url, path, { method: "POST", token, body })
      expect([path, JSON.stringify(body), response.status]).toEqual([path, JSON.stringify(body), 400])
      expect(Object.keys(response.body).sort()).toEqual(["detailed_error", "id", "message", "request_id", "status_code"])
    }
  })
})

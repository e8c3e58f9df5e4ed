import type { Reaction } from "@mattermost/types/reactions"
import pg from "pg"
import { describe, expect, it } from "vitest"
import { newUser } from "../support/Clients.ts"
import { serverForFile } from "../support/FileServer.ts"
import { channelIn, say, teamWith } from "../posts/Fixture.ts"
import { expectShape, Wire } from "../posts/Shapes.ts"

const env = serverForFile({ sysadmin: true })

/** A custom emoji row, as the emoji feature stores an upload (its own tests cover the upload itself). */
const customEmoji = async (name: string, creatorId: string) => {
  const client = new pg.Client({ connectionString: env.server.databaseUrl })
  await client.connect()
  try {
    const id = `e${Date.now().toString(36)}${Math.floor(Math.random() * 1e9).toString(36)}`.padEnd(26, "0").slice(0, 26)
    await client.query("INSERT INTO emoji (id, create_at, update_at, creator_id, name) VALUES ($1, $2, $2, $3, $4)", [id, Date.now(), creatorId, name])
    return id
  } finally {
    await client.end()
  }
}

describe("reactions", () => {
  it("adds, lists and removes reactions, keeps has_reactions and metadata, publishes events", async () => {
    const { owner: alice, members: [bob], team } = await teamWith(env.server, 1)
    const channel = await channelIn(alice, team, "O", [bob])
    const post = await say(alice, channel.id, "react to me")
    const emojiId = await customEmoji("partyparrot", alice.user.id)
    env.log.clear()

    const thumbs = expectShape(await bob.client.addReaction(bob.user.id, post.id, "+1"), Wire.Reaction)
    expect(thumbs).toMatchObject({ user_id: bob.user.id, post_id: post.id, emoji_name: "+1" })
    expect(thumbs.create_at).toBeGreaterThan(0)
    const added = env.log.named("reaction_added")[0]
    expect(added.broadcast.channel_id).toBe(channel.id)
    expect(JSON.parse(added.data.reaction as string)).toMatchObject({ user_id: bob.user.id, post_id: post.id, emoji_name: "+1" })
    await alice.client.addReaction(alice.user.id, post.id, "partyparrot")
    // Adding the same reaction again is idempotent.
    await bob.client.addReaction(bob.user.id, post.id, "+1")

    const reactions: Array<Reaction> = await alice.client.getReactionsForPost(post.id)
    reactions.forEach((r, i) => expectShape(r, Wire.Reaction, `reactions[${i}]`))
    expect(reactions.map((r) => [r.user_id, r.emoji_name])).toEqual([[bob.user.id, "+1"], [alice.user.id, "partyparrot"]])
    const withMeta = await bob.client.getPost(post.id)
    expect((withMeta as { has_reactions?: boolean }).has_reactions).toBe(true)
    expect(withMeta.update_at).toBeGreaterThan(post.update_at)
    expect(withMeta.metadata.reactions?.map((r) => r.emoji_name)).toEqual(["+1", "partyparrot"])
    expect(withMeta.metadata.emojis).toEqual([expect.objectContaining({ id: emojiId, name: "partyparrot", creator_id: alice.user.id })])

    const bulk = await fetch(`${env.server.url}/api/v4/posts/ids/reactions`, {
      method: "POST",
      headers: { Authorization: `Bearer ${bob.client.getToken()}` },
      body: JSON.stringify([post.id, "n".repeat(26)])
    })
    const byPost = expectShape(await bulk.json(), Wire.ReactionsByPost, "reactions by post")
    expect(Object.keys(byPost)).toEqual([post.id])
    expect(byPost[post.id]).toHaveLength(2)

    env.log.clear()
    expect(await bob.client.removeReaction(bob.user.id, post.id, "+1")).toMatchObject({ status: "OK" })
    expect(JSON.parse(env.log.named("reaction_removed")[0].data.reaction as string)).toMatchObject({ emoji_name: "+1", user_id: bob.user.id })
    await alice.client.removeReaction(alice.user.id, post.id, "partyparrot")
    const bare = await bob.client.getPost(post.id)
    expect((bare as { has_reactions?: boolean }).has_reactions).toBe(false)
    expect(bare.metadata).toMatchObject({ reactions: [], emojis: [] })
    expect(await alice.client.getReactionsForPost(post.id)).toEqual([])
  })

  it("refuses reacting for someone else, bad emoji names, outsiders and archived channels", async () => {
    const { owner: alice, members: [bob], team } = await teamWith(env.server, 1)
    const channel = await channelIn(alice, team, "P", [bob])
    const post = await say(alice, channel.id, "private post")
    const outsider = await newUser(env.server.url, "outr")
    await expect(bob.client.addReaction(alice.user.id, post.id, "smile")).rejects.toMatchObject({ status_code: 403 })
    await expect(bob.client.removeReaction(alice.user.id, post.id, "smile")).rejects.toMatchObject({ status_code: 403 })
    for (const name of ["Smile", "no spaces", "x".repeat(65), "semi;colon"]) {
      await expect(bob.client.addReaction(bob.user.id, post.id, name), name).rejects.toMatchObject({ status_code: 400 })
    }
    await expect(outsider.client.addReaction(outsider.user.id, post.id, "smile")).rejects.toMatchObject({ status_code: 403 })
    await expect(outsider.client.getReactionsForPost(post.id)).rejects.toMatchObject({ status_code: 403 })
    await expect(bob.client.addReaction(bob.user.id, "m".repeat(26), "smile")).rejects.toMatchObject({ status_code: 404 })
    const malformed = await fetch(`${env.server.url}/api/v4/reactions`, {
      method: "POST",
      headers: { Authorization: `Bearer ${bob.client.getToken()}` },
      body: "{\"user_id\":"
    })
    expect(malformed.status).toBe(400)
    expect(await alice.client.getReactionsForPost(post.id)).toEqual([])

    await alice.client.deleteChannel(channel.id)
    await expect(bob.client.addReaction(bob.user.id, post.id, "smile")).rejects.toMatchObject({ status_code: 403 })
  })
})

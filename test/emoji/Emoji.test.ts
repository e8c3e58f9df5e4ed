import { Effect, Schema, Stream } from "effect"
import sharp from "sharp"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CustomEmoji } from "../../schemas/wire/Emoji.ts"
import { EventBus } from "../../src/events/EventBus.ts"
import { expectShape } from "../compat/Shapes.ts"
import { client4, newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { Fixtures } from "../files/Fixtures.ts"

let server: TestServer
let db: Fixtures
type Member = Awaited<ReturnType<typeof newUser>>
let admin: Member
let alice: Member
let bob: Member
let image: Buffer

const png = (size: number) =>
  sharp({ create: { width: size, height: size, channels: 4, background: { r: 10, g: 120, b: 200, alpha: 1 } } }).png().toBuffer()
const blob = (bytes: Uint8Array | string, type = "image/png") => new File([bytes as BlobPart], "image", { type })

const raw = (path: string, token: string | undefined, init: RequestInit = {}) =>
  fetch(`${server.url}${path}`, {
    ...init,
    headers: { ...(token === undefined ? {} : { authorization: `Bearer ${token}` }), ...(init.headers as Record<string, string> ?? {}) }
  })

/** The next published event of that name, subscribed before the call that causes it. */
const nextEvent = (name: string) =>
  server.runtime.runPromise(
    Effect.flatMap(EventBus, (bus) =>
      Stream.runHead(bus.localEvents.pipe(Stream.filter((e) => e.event === name))))
  )

beforeAll(async () => {
  server = await startServer()
  db = await Fixtures.open(server.databaseUrl)
  admin = await newUser(server.url, "admin")
  alice = await newUser(server.url, "alice")
  bob = await newUser(server.url, "bob")
  image = await png(64)
})
afterAll(async () => {
  await db?.close()
  await server?.close()
})

describe("custom emoji through Client4", () => {
  it("creates an emoji, publishes emoji_added to everyone, and finds it by id, name, list, names, autocomplete and search", async () => {
    const event = nextEvent("emoji_added")
    const emoji = await alice.client.createCustomEmoji({ creator_id: alice.user.id, name: "party_parrot" } as never, blob(image))
    expect(emoji).toMatchObject({ name: "party_parrot", creator_id: alice.user.id, delete_at: 0, category: "custom" })
    expect(emoji.id).toMatch(/^[a-z0-9]{26}$/)
    expectShape(emoji, CustomEmoji, "created emoji")
    const published = await event
    expect(published._tag).toBe("Some")
    if (published._tag === "Some") {
      expect(published.value.broadcast.broadcast_to_all).toBe(true)
      expect(JSON.parse(published.value.data.emoji as string)).toEqual(emoji)
    }

    await bob.client.createCustomEmoji({ creator_id: bob.user.id, name: "party-time" } as never, blob(await png(32)))
    await bob.client.createCustomEmoji({ creator_id: bob.user.id, name: "aardvark" } as never, blob(await png(32)))

    expect(await bob.client.getCustomEmoji(emoji.id)).toEqual(emoji)
    expect(await bob.client.getCustomEmojiByName("party_parrot")).toEqual(emoji)
    const byName = await bob.client.getCustomEmojis(0, 60, "name")
    const many = Schema.Array(CustomEmoji)
    expectShape(byName, many, "listed emoji")
    expectShape(await bob.client.getCustomEmojisByNames(["party_parrot", "aardvark"]), many, "emoji by names")
    expectShape(await bob.client.autocompleteCustomEmoji("part"), many, "autocompleted emoji")
    expectShape(await bob.client.searchCustomEmoji("ar"), many, "found emoji")
    expect(byName.map((e) => e.name)).toEqual(["aardvark", "party-time", "party_parrot"])
    const firstPage = await bob.client.getCustomEmojis(0, 2)
    const secondPage = await bob.client.getCustomEmojis(1, 2)
    expect([...firstPage, ...secondPage].map((e) => e.name)).toEqual(["party_parrot", "party-time", "aardvark"])
    expect((await bob.client.getCustomEmojisByNames(["party_parrot", "nope", "aardvark"])).map((e) => e.name)).toEqual(["aardvark", "party_parrot"])
    expect((await bob.client.autocompleteCustomEmoji("part")).map((e) => e.name)).toEqual(["party-time", "party_parrot"])
    // "_" is a name character here, not a LIKE wildcard.
    expect((await bob.client.searchCustomEmoji("y_p")).map((e) => e.name)).toEqual(["party_parrot"])
    expect((await bob.client.searchCustomEmoji("ar", { prefix_only: true })).map((e) => e.name)).toEqual([])
    expect((await bob.client.searchCustomEmoji("ar")).map((e) => e.name)).toEqual(["aardvark", "party-time", "party_parrot"])

    const served = await raw(`/api/v4/emoji/${emoji.id}/image`, bob.client.getToken())
    expect(served.status).toBe(200)
    expect(served.headers.get("content-type")).toBe("image/png")
    expect(Buffer.from(await served.arrayBuffer()).equals(image)).toBe(true)
    const viaCookie = await fetch(`${server.url}/api/v4/emoji/${emoji.id}/image`, { headers: { cookie: `MMAUTHTOKEN=${bob.client.getToken()}` } })
    expect(viaCookie.status).toBe(200)
  })

  it("keeps GIF and JPEG content types for their images", async () => {
    const gif = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#f00" } }).gif().toBuffer()
    const jpeg = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#0f0" } }).jpeg().toBuffer()
    const g = await alice.client.createCustomEmoji({ creator_id: alice.user.id, name: "gif_one" } as never, blob(gif, "image/gif"))
    const j = await alice.client.createCustomEmoji({ creator_id: alice.user.id, name: "jpeg_one" } as never, blob(jpeg, "image/jpeg"))
    expect((await raw(`/api/v4/emoji/${g.id}/image`, alice.client.getToken())).headers.get("content-type")).toBe("image/gif")
    expect((await raw(`/api/v4/emoji/${j.id}/image`, alice.client.getToken())).headers.get("content-type")).toBe("image/jpeg")
  })

  it("is usable in a reaction", async () => {
    const emoji = await alice.client.createCustomEmoji({ creator_id: alice.user.id, name: "shipit" } as never, blob(image))
    const teamId = (await alice.client.createTeam({ name: `emoji${Date.now()}`, display_name: "Emoji", type: "O" } as never)).id
    await alice.client.addToTeam(teamId, bob.user.id)
    const channelId = (await alice.client.createChannel({ team_id: teamId, name: "ship-room", display_name: "Ship", type: "O" } as never)).id
    await alice.client.addToChannel(bob.user.id, channelId)
    const postId = (await alice.client.createPost({ channel_id: channelId, message: "ready to ship" } as never)).id
    const reaction = await bob.client.addReaction(bob.user.id, postId, emoji.name)
    expect(reaction).toMatchObject({ user_id: bob.user.id, post_id: postId, emoji_name: "shipit" })
    expect((await alice.client.getReactionsForPost(postId)).map((r) => r.emoji_name)).toEqual(["shipit"])
    const post = await alice.client.getPost(postId)
    expect(post.metadata.emojis).toEqual([expect.objectContaining({ id: emoji.id, name: "shipit" })])
  })

  it("lets the creator or an admin delete, softly: the emoji and its image are gone, the name is free again", async () => {
    const emoji = await alice.client.createCustomEmoji({ creator_id: alice.user.id, name: "short_lived" } as never, blob(image))
    await expect(bob.client.deleteCustomEmoji(emoji.id)).rejects.toMatchObject({ status_code: 403, server_error_id: "api.emoji.delete.permissions.app_error" })
    expect(await alice.client.deleteCustomEmoji(emoji.id)).toEqual({ status: "OK" })
    await expect(alice.client.getCustomEmoji(emoji.id)).rejects.toMatchObject({ status_code: 404, server_error_id: "app.emoji.get.no_result" })
    expect((await raw(`/api/v4/emoji/${emoji.id}/image`, alice.client.getToken())).status).toBe(404)
    const row = await db.query<{ delete_at: string }>("SELECT delete_at FROM emoji WHERE id = $1", [emoji.id])
    expect(Number(row.rows[0].delete_at)).toBeGreaterThan(0)

    const again = await bob.client.createCustomEmoji({ creator_id: bob.user.id, name: "short_lived" } as never, blob(image))
    expect(await admin.client.deleteCustomEmoji(again.id)).toEqual({ status: "OK" })
    await expect(alice.client.deleteCustomEmoji(again.id)).rejects.toMatchObject({ status_code: 404 })
  })

  it("removes the reactions that use a deleted emoji, publishing reaction_removed for each", async () => {
    const emoji = await alice.client.createCustomEmoji({ creator_id: alice.user.id, name: "doomed" } as never, blob(image))
    const teamId = (await alice.client.createTeam({ name: `doom${Date.now()}`, display_name: "Doom", type: "O" } as never)).id
    await alice.client.addToTeam(teamId, bob.user.id)
    const channelId = (await alice.client.createChannel({ team_id: teamId, name: "doom-room", display_name: "Doom", type: "O" } as never)).id
    await alice.client.addToChannel(bob.user.id, channelId)
    const first = (await alice.client.createPost({ channel_id: channelId, message: "one" } as never)).id
    const second = (await alice.client.createPost({ channel_id: channelId, message: "two" } as never)).id
    await alice.client.addReaction(alice.user.id, first, "doomed")
    await bob.client.addReaction(bob.user.id, first, "doomed")
    await bob.client.addReaction(bob.user.id, second, "doomed")
    await bob.client.addReaction(bob.user.id, second, "+1")

    const events = server.runtime.runPromise(
      Effect.flatMap(EventBus, (bus) =>
        Stream.runCollect(bus.localEvents.pipe(Stream.filter((e) => e.event === "reaction_removed"), Stream.take(3))))
    )
    expect(await alice.client.deleteCustomEmoji(emoji.id)).toEqual({ status: "OK" })
    const removed = [...await events].map((e) => ({ channel: e.broadcast.channel_id, reaction: JSON.parse(e.data.reaction as string) }))
    expect(removed.map((r) => `${r.reaction.post_id}/${r.reaction.user_id}/${r.reaction.emoji_name}`).sort()).toEqual([
      `${first}/${alice.user.id}/doomed`,
      `${first}/${bob.user.id}/doomed`,
      `${second}/${bob.user.id}/doomed`
    ].sort())
    for (const r of removed) {
      expect(r.channel).toBe(channelId)
      expect(r.reaction.delete_at).toBeGreaterThan(0)
    }

    expect(await alice.client.getReactionsForPost(first)).toEqual([])
    expect((await alice.client.getReactionsForPost(second)).map((r) => r.emoji_name)).toEqual(["+1"])
    const [gone, kept] = [await alice.client.getPost(first), await alice.client.getPost(second)]
    expect(gone).toMatchObject({ has_reactions: false })
    expect(gone.metadata.reactions).toEqual([])
    expect(kept).toMatchObject({ has_reactions: true })
    expect(kept.metadata.emojis).toEqual([])
  })
})

describe("custom emoji refusals", () => {
  const create = (m: Member, name: string, body: File, creator = m.user.id) =>
    m.client.createCustomEmoji({ creator_id: creator, name } as never, body)

  it("refuses bad names, system names, other creators, non-images, oversized images and duplicates, writing nothing", async () => {
    const count = async () => Number((await db.query<{ n: string }>("SELECT count(*) AS n FROM emoji")).rows[0].n)
    const before = await count()
    const cases: Array<[() => Promise<unknown>, number, string]> = [
      [() => create(alice, "Upper", blob(image)), 400, "model.emoji.name.app_error"],
      [() => create(alice, "has space", blob(image)), 400, "model.emoji.name.app_error"],
      [() => create(alice, "x".repeat(65), blob(image)), 400, "model.emoji.name.app_error"],
      [() => create(alice, "smile", blob(image)), 400, "model.emoji.name.app_error"],
      [() => create(alice, "+1", blob(image)), 400, "model.emoji.name.app_error"],
      [() => create(alice, "someone_else", blob(image), bob.user.id), 403, "api.emoji.create.other_user.app_error"],
      [() => create(alice, "text_file", blob("not an image", "text/plain")), 400, "api.emoji.upload.image.app_error"],
      [() => create(alice, "too_big", blob(new Uint8Array(600 * 1024))), 413, "api.emoji.create.too_large.app_error"]
    ]
    for (const [index, [call, status, id]] of cases.entries()) {
      await expect(call(), `case ${index}`).rejects.toMatchObject({ status_code: status, server_error_id: id })
    }
    await create(alice, "only_once", blob(image))
    await expect(create(bob, "only_once", blob(image))).rejects.toMatchObject({ status_code: 400, server_error_id: "api.emoji.create.duplicate.app_error" })
    expect(await count()).toBe(before + 1)
  })

  it("answers malformed requests with 4xx and the error body, and anonymous callers with 401", async () => {
    const token = alice.client.getToken()
    const noImage = new FormData()
    noImage.append("emoji", JSON.stringify({ creator_id: alice.user.id, name: "no_image" }))
    expect((await raw("/api/v4/emoji", token, { method: "POST", body: noImage })).status).toBe(400)
    const badJson = new FormData()
    badJson.append("image", blob(image), "i.png")
    badJson.append("emoji", "{not json")
    const malformed = await raw("/api/v4/emoji", token, { method: "POST", body: badJson })
    expect(malformed.status).toBe(400)
    expect(await malformed.json()).toMatchObject({ id: "api.context.invalid_param.app_error", status_code: 400 })
    expect((await raw("/api/v4/emoji", token, { method: "POST", body: "{}", headers: { "content-type": "application/json" } })).status).toBe(400)
    for (const [path, status] of [
      ["/api/v4/emoji?sort=bogus", 400],
      ["/api/v4/emoji?per_page=abc", 400],
      ["/api/v4/emoji/not-an-id", 400],
      [`/api/v4/emoji/${"e".repeat(26)}`, 404],
      ["/api/v4/emoji/name/never_made", 404],
      ["/api/v4/emoji/autocomplete", 400]
    ] as const) {
      const response = await raw(path, token)
      expect(response.status, path).toBe(status)
      expect(response.headers.get("content-type")).toBe("application/json")
      expect(await response.json()).toMatchObject({ status_code: status })
    }
    expect((await raw("/api/v4/emoji/names", token, { method: "POST", body: JSON.stringify(Array.from({ length: 201 }, (_, i) => `n${i}`)) })).status).toBe(400)
    expect((await raw("/api/v4/emoji/search", token, { method: "POST", body: JSON.stringify({ term: "" }) })).status).toBe(400)
    for (const path of ["/api/v4/emoji", `/api/v4/emoji/${"e".repeat(26)}`, `/api/v4/emoji/${"e".repeat(26)}/image`, "/api/v4/emoji/autocomplete?name=a"]) {
      expect((await raw(path, undefined)).status, path).toBe(401)
    }
    await expect(client4(server.url).createCustomEmoji({ creator_id: alice.user.id, name: "anon" } as never, blob(image)))
      .rejects.toMatchObject({ status_code: 401 })
  })
})

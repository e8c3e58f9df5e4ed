import type { Client4 } from "@mattermost/client"
import { Effect, Redacted } from "effect"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { exportTo } from "../../src/imports/Exporter.ts"
import { importFile, type ImportResult } from "../../src/imports/Importer.ts"
import { FROM_BUILD, runCli } from "../cli/Cli.ts"
import { tempDir } from "../support/Cleanup.ts"
import { client4 } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { PASSWORDS, writeFixtureZip } from "./Fixture.ts"

/**
 * Export → import round trip: the fixture imported on one server, some history added there through the API, the
 * server exported with `node dist/main.js --export` and the export imported on a fresh server; what the official
 * client sees on both is the same (names instead of ids). A JSONL export without files imports back onto its own
 * server creating nothing.
 */
let source: TestServer
let target: TestServer

const run = <A>(server: TestServer, effect: Effect.Effect<A, unknown, any>) => server.runtime.runPromise(effect) as Promise<A>

const login = async (server: TestServer, username: string, password: string) => {
  const client = client4(server.url)
  const user = await client.login(username, password)
  return { client, user }
}

const download = async (server: TestServer, client: Client4, fileId: string) => {
  const response = await fetch(`${server.url}/api/v4/files/${fileId}`, { headers: { Authorization: `Bearer ${client.getToken()}` } })
  return Buffer.from(await response.arrayBuffer()).toString("base64")
}

/** Everything alice can see, by names and times (ids differ between servers). */
const snapshot = async (server: TestServer) => {
  const { client, user } = await login(server, "alice", PASSWORDS.alice)
  const names = new Map<string, string>()
  const username = async (id: string) => {
    if (!names.has(id)) names.set(id, (await client.getUser(id)).username)
    return names.get(id)!
  }
  const postsOf = async (channelId: string) => {
    const list = await client.getPosts(channelId)
    const out = []
    for (const id of list.order) {
      const p = list.posts[id]
      const files = []
      for (const f of await client.getFileInfosForPost(p.id)) files.push([f.name, f.size, await download(server, client, f.id)])
      const reactions = []
      for (const r of p.metadata.reactions ?? []) reactions.push(`${await username(r.user_id)}:${r.emoji_name}`)
      out.push({
        user: await username(p.user_id), message: p.message, create_at: p.create_at, root: p.root_id === "" ? "" : list.posts[p.root_id]?.message,
        reply_count: p.reply_count, is_pinned: p.is_pinned, reactions: reactions.sort(), files
      })
    }
    return out
  }
  const teams = []
  for (const team of (await client.getMyTeams()).sort((a, b) => a.name.localeCompare(b.name))) {
    const channels = []
    const mine = await client.getMyChannelMembers(team.id)
    for (const c of (await client.getMyChannels(team.id)).sort((a, b) => a.name.localeCompare(b.name))) {
      if (c.type === "D" || c.type === "G") continue
      const members = []
      for (const m of await client.getChannelMembers(c.id)) members.push(`${await username(m.user_id)}${m.scheme_admin ? " (admin)" : ""}`)
      const me = mine.find((m) => m.channel_id === c.id)!
      channels.push({
        name: c.name, display_name: c.display_name, type: c.type, header: c.header, purpose: c.purpose,
        total: c.total_msg_count, unread: c.total_msg_count - me.msg_count, members: members.sort(), posts: await postsOf(c.id)
      })
    }
    const threads = await client.getUserThreads(user.id, team.id, {})
    teams.push({
      name: team.name, display_name: team.display_name, channels,
      threads: threads.threads.map((t) => [t.post.message, t.reply_count, t.last_reply_at]).sort()
    })
  }
  const bob = await client.getUserByUsername("bob")
  const carol = await client.getUserByUsername("carol")
  const dm = await client.createDirectChannel([user.id, bob.id])
  const gm = await client.createGroupChannel([user.id, bob.id, carol.id])
  const emoji = await client.getCustomEmojiByName("partyparrot")
  const image = await fetch(`${server.url}/api/v4/emoji/${emoji.id}/image`, { headers: { Authorization: `Bearer ${client.getToken()}` } })
  const picture = await fetch(`${server.url}/api/v4/users/${user.id}/image`, { headers: { Authorization: `Bearer ${client.getToken()}` } })
  const bobClient = (await login(server, "bob", PASSWORDS.bob)).client
  const flagged = await bobClient.getFlaggedPosts(bob.id)
  return {
    teams,
    dm: { header: dm.header, posts: await postsOf(dm.id) },
    gm: await postsOf(gm.id),
    emoji: Buffer.from(await image.arrayBuffer()).toString("base64"),
    picture: Buffer.from(await picture.arrayBuffer()).toString("base64"),
    flagged: Object.values(flagged.posts).map((p) => p.message).sort(),
    profile: { first_name: user.first_name, last_name: user.last_name, roles: user.roles, notify_props: user.notify_props, picture: user.last_picture_update > 0 }
  }
}

describe("export and import round trip", { timeout: 120_000 }, () => {
  beforeAll(async () => {
    ;[source, target] = await Promise.all([startServer(), startServer()])
    const imported = await run(source, importFile(await writeFixtureZip(), { dryRun: false }))
    expect(imported.validation.problems).toEqual([])
    // History written through the API after the import is exported too.
    const alice = await login(source, "alice", PASSWORDS.alice)
    const team = (await alice.client.getMyTeams())[0]
    const general = await alice.client.getChannelByName(team.id, "general")
    const root = (await alice.client.getPosts(general.id)).order.map((id) => id)
    const posts = await alice.client.getPosts(general.id)
    const firstRoot = root.map((id) => posts.posts[id]).find((p) => p.message === "second root post")!
    await alice.client.createPost({ channel_id: general.id, root_id: firstRoot.id, message: "a reply written after the import" } as never)
    await alice.client.createPost({ channel_id: general.id, message: "a root written after the import" } as never)
  }, 120_000)
  afterAll(async () => {
    await Promise.all([source?.close(), target?.close()])
  })

  it("a zip export imported on a fresh server shows the client the same content", async () => {
    const file = path.join(tempDir("export-"), "backup.zip")
    const result = await runCli(["--export", file, "--include-password-hashes"], {
      SERVICE_DATABASE_URL: source.databaseUrl,
      SERVICE_JWT_SECRET: Redacted.value(source.config.jwtSecretValue),
      SERVICE_ENCRYPTION_KEY: Redacted.value(source.config.encryptionKeyValue),
      SERVICE_DATA_DIR: source.config.dataDir
    }, 110_000, FROM_BUILD)
    expect(result.code, result.output).toBe(0)
    expect(result.stdout).toMatch(/bot 1.*post 5.*, 3 files/)
    // Small batches, so that threads and read state are put together across several transactions.
    const imported: ImportResult = await run(target, importFile(file, { dryRun: false, batchSize: 3 }))
    expect(imported.validation.problems).toEqual([])
    const [before, after] = await Promise.all([snapshot(source), snapshot(target)])
    expect(after).toEqual(before)
    expect(before.teams[0].channels.find((c) => c.name === "general")!.posts).toHaveLength(6)
    expect(before.profile.picture).toBe(true)
  })

  it("a JSONL export (no files) imported back onto its own server creates nothing", async () => {
    const file = path.join(tempDir("export-"), "content.jsonl")
    const written = await run(source, exportTo(file))
    expect(written.files).toBe(0)
    const text = await fs.readFile(file, "utf8")
    expect(text).not.toContain("\"attachments\"")
    expect(text).not.toContain("\"password\"")
    const again = await run(source, importFile(file, { dryRun: false }))
    expect(again.validation.problems).toEqual([])
    expect(again.created).toEqual({})
    expect(again.existing).toMatchObject({ post: 5, reply: 4, user: 3, bot: 1, team: 1 })
  })
})

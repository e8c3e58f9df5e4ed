import { Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { report } from "../../src/cli/Transfer.ts"
import { importFile, type ImportResult } from "../../src/imports/Importer.ts"
import { FROM_BUILD, runCli } from "../cli/Cli.ts"
import { client4 } from "../support/Clients.ts"
import { type LoopbackSmtp, linkIn, startSmtpServer } from "../support/SmtpServer.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { ATTACHMENT, EMOJI_PNG, fixtureLines, PASSWORDS, T0, writeFixtureZip, writeJsonl } from "./Fixture.ts"

/**
 * A Mattermost bulk export (zip with attachments) imported with `node dist/main.js --import` into a fresh server; the
 * official client then sees the same teams, channels, members, posts, threads, reactions and files, and the imported
 * password hashes sign in. A second run creates nothing; a broken file is refused with its line numbers.
 */
let server: TestServer
let smtp: LoopbackSmtp
let cliEnv: Record<string, string>
const cli = (args: ReadonlyArray<string>) => runCli(args, cliEnv, 110_000, FROM_BUILD)

describe("import from Mattermost's bulk format", { timeout: 120_000 }, () => {
  let zip: string
  let firstRun: Awaited<ReturnType<typeof cli>>

  beforeAll(async () => {
    smtp = await startSmtpServer()
    server = await startServer({ env: { SERVICE_SMTP_URL: smtp.url, SERVICE_EMAIL_FROM: "Chat <chat@example.com>" } })
    cliEnv = {
      SERVICE_DATABASE_URL: server.databaseUrl,
      SERVICE_JWT_SECRET: Redacted.value(server.config.jwtSecretValue),
      SERVICE_ENCRYPTION_KEY: Redacted.value(server.config.encryptionKeyValue),
      // The server's own data directory: the imported files land in its file store.
      SERVICE_DATA_DIR: server.config.dataDir
    }
    zip = await writeFixtureZip()
    firstRun = await cli(["--import", zip])
  }, 120_000)
  afterAll(async () => {
    await server?.close()
    await smtp?.close()
  })

  const login = async (username: string, password: string) => {
    const client = client4(server.url)
    const user = await client.login(username, password)
    return { client, user }
  }

  it("imports the zip and reports what it created", () => {
    expect(firstRun.stderr).toContain("importing:")
    expect(firstRun.code, firstRun.output).toBe(0)
    expect(firstRun.stdout).toMatch(/created: .*bot 1.*post 4.*reply 3/)
    expect(firstRun.stdout).toMatch(/user 3/)
  })

  it("keeps bcrypt and PBKDF2 hashes; a user without one must reset the password", async () => {
    await expect(login("alice", PASSWORDS.alice)).resolves.toBeDefined()
    await expect(login("bob", PASSWORDS.bob)).resolves.toBeDefined()
    await expect(login("bob", "not-the-password")).rejects.toMatchObject({ status_code: 401 })
    await expect(login("carol", "anything-at-all")).rejects.toMatchObject({ status_code: 401 })
  })

  it("a user imported without a password signs in after a password reset", async () => {
    const anonymous = client4(server.url)
    expect(await anonymous.sendPasswordResetEmail("carol@example.com")).toEqual({ status: "OK" })
    await expect.poll(() => smtp.received.some((m) => m.to.includes("carol@example.com")), { timeout: 10_000 }).toBe(true)
    const mail = smtp.received.find((m) => m.to.includes("carol@example.com"))!
    const token = linkIn(mail, "/reset_password_complete").searchParams.get("token")!
    await anonymous.resetUserPassword(token, "chosen-after-the-reset-1")
    await expect(login("carol", "chosen-after-the-reset-1")).resolves.toBeDefined()
  })

  it("the official client sees the teams, channels, members, posts, threads, reactions and files", async () => {
    const { client, user: alice } = await login("alice", PASSWORDS.alice)
    const teams = await client.getMyTeams()
    const acme = teams.find((t) => t.name === "acme")!
    expect(acme.display_name).toBe("Acme Corp")
    const channels = await client.getMyChannels(acme.id)
    expect(channels.map((c) => c.name).sort()).toEqual(expect.arrayContaining(["general", "off-topic", "private-ops", "town-square"]))
    const general = channels.find((c) => c.name === "general")!
    expect(general.header).toBe("welcome")
    expect(channels.find((c) => c.name === "private-ops")!.type).toBe("P")

    const members = await client.getChannelMembers(general.id)
    expect(members).toHaveLength(3)
    expect(members.find((m) => m.user_id === alice.id)!.scheme_admin).toBe(true)
    const teamMember = await client.getTeamMember(acme.id, alice.id)
    expect(teamMember.scheme_admin).toBe(true)
    // A favourite of the file is in the sidebar's Favorites.
    const categories = await client.getChannelCategories(alice.id, acme.id)
    const favorites = categories.categories.find((c) => c.type === "favorites")!
    expect(favorites.channel_ids).toContain(general.id)

    const posts = await client.getPosts(general.id)
    const list = posts.order.map((id) => posts.posts[id])
    expect(list.map((p) => p.message)).toEqual([
      "second root post", "glad the history came along", "welcome back @alice", "hello imported world #launch"
    ])
    const root = list[3]
    expect(root.create_at).toBe(T0)
    expect(root.is_pinned).toBe(true)
    expect(root.reply_count).toBe(2)
    expect(root.metadata.reactions?.map((r) => r.emoji_name)).toEqual(["+1"])
    expect(list[0].metadata.reactions?.map((r) => r.emoji_name)).toEqual(["partyparrot"])

    const thread = await client.getPostThread(root.id)
    expect(thread.order).toHaveLength(3)

    const files = await client.getFileInfosForPost(root.id)
    expect(files.map((f) => f.name)).toEqual(["notes.txt"])
    const download = await fetch(`${server.url}/api/v4/files/${files[0].id}`, { headers: { Authorization: `Bearer ${client.getToken()}` } })
    expect(download.status).toBe(200)
    expect(Buffer.from(await download.arrayBuffer())).toEqual(ATTACHMENT)

    expect(alice.last_picture_update).toBeGreaterThan(0)
    const picture = await fetch(`${server.url}/api/v4/users/${alice.id}/image`, { headers: { Authorization: `Bearer ${client.getToken()}` } })
    expect(picture.status).toBe(200)
    expect(picture.headers.get("content-type")).toBe("image/png")

    const emoji = await client.getCustomEmojiByName("partyparrot")
    const image = await fetch(`${server.url}/api/v4/emoji/${emoji.id}/image`, { headers: { Authorization: `Bearer ${client.getToken()}` } })
    expect(Buffer.from(await image.arrayBuffer())).toEqual(EMOJI_PNG)
  })

  it("unread counts, followed threads, flags and search work on the imported history", async () => {
    const { client, user: alice } = await login("alice", PASSWORDS.alice)
    const acme = (await client.getMyTeams()).find((t) => t.name === "acme")!
    const general = await client.getChannelByName(acme.id, "general")
    expect(general.total_msg_count).toBe(4)
    const member = await client.getMyChannelMember(general.id)
    // The imported history counts as read, unless the file says how far the member had read.
    expect(member.msg_count).toBe(4)
    expect(member.last_viewed_at).toBe(T0 + 5000)
    const ops = await client.getChannelByName(acme.id, "private-ops")
    const opsMember = await client.getMyChannelMember(ops.id)
    expect(ops.total_msg_count - opsMember.msg_count).toBe(1)
    expect(opsMember.mention_count).toBe(1)
    expect(opsMember.notify_props.desktop).toBe("none")

    // The team's thread and the DM's (direct channels belong to every team's thread list).
    const threads = await client.getUserThreads(alice.id, acme.id, {})
    expect(threads.threads).toHaveLength(2)
    const teamThread = threads.threads.find((t) => t.post.channel_id === general.id)!
    expect(teamThread.reply_count).toBe(2)
    expect(teamThread.last_reply_at).toBe(T0 + 2000)
    expect(teamThread.participants.map((p) => p.id)).toHaveLength(2)
    expect(threads.total_unread_threads).toBe(0)

    const found = await client.searchPosts(acme.id, "imported", false)
    expect(Object.values(found.posts).map((p) => p.message)).toContain("hello imported world #launch")

    const bob = await login("bob", PASSWORDS.bob)
    const flagged = await bob.client.getFlaggedPosts(bob.user.id)
    expect(Object.values(flagged.posts).map((p) => p.message)).toEqual(["hello imported world #launch"])
  })

  it("a bot comes as a bot with its posts", async () => {
    const { client } = await login("alice", PASSWORDS.alice)
    const bot = await client.getUserByUsername("deploybot")
    expect(bot.is_bot).toBe(true)
    const acme = (await client.getMyTeams()).find((t) => t.name === "acme")!
    const square = await client.getChannelByName(acme.id, "town-square")
    const posts = await client.getPosts(square.id)
    expect(Object.values(posts.posts).map((p) => [p.user_id, p.message])).toEqual([[bot.id, "deployed v2"]])
  })

  it("direct and group messages come with their posts", async () => {
    const { client, user: alice } = await login("alice", PASSWORDS.alice)
    const bob = await login("bob", PASSWORDS.bob)
    const dm = await client.createDirectChannel([alice.id, bob.user.id])
    expect(dm.header).toBe("dm header")
    const dmPosts = await client.getPosts(dm.id)
    expect(dmPosts.order.map((id) => dmPosts.posts[id].message)).toEqual(["direct reply", "a direct hello"])
    const carol = await client.getUserByUsername("carol")
    const gm = await client.createGroupChannel([alice.id, bob.user.id, carol.id])
    const gmPosts = await client.getPosts(gm.id)
    expect(gmPosts.order.map((id) => gmPosts.posts[id].message)).toEqual(["group hello"])
  })

  // The same program as the command line's, run in the server's runtime (a spawn costs seconds).
  it("a second run creates nothing", async () => {
    const again = await server.runtime.runPromise(importFile(zip, { dryRun: false })) as ImportResult
    expect(again.validation.problems).toEqual([])
    expect(again.created).toEqual({})
    expect(again.existing).toMatchObject({ bot: 1, post: 4, reply: 3, direct_post: 2, team: 1, user: 3, channel: 2, direct_channel: 2, emoji: 1 })
    const { client } = await login("alice", PASSWORDS.alice)
    const acme = (await client.getMyTeams()).find((t) => t.name === "acme")!
    const general = await client.getChannelByName(acme.id, "general")
    expect(general.total_msg_count).toBe(4)
  })

  it("a dry run lists every problem with its line number, exits 1 and imports nothing", async () => {
    const lines = fixtureLines().slice(0, 4) as Array<unknown>
    lines.push("{not json")
    lines.push({ type: "channel", channel: { team: "nowhere", name: "lost", display_name: "Lost", type: "O" } })
    lines.push({ type: "post", post: { team: "acme", channel: "general", user: "nobody", message: "x", create_at: T0 } })
    lines.push({ type: "user", user: { username: "Bad Name", email: "not-an-email" } })
    lines.push({ type: "post", post: { team: "acme", channel: "general", user: "alice", message: "x", create_at: -5 } })
    lines.push({ type: "post", post: { team: "acme", channel: "general", user: "alice", message: "x", create_at: T0, attachments: [{ path: "data/missing.txt" }] } })
    const file = await writeJsonl(lines)
    const result = await cli(["--import", file, "--dry-run"])
    expect(result.code).toBe(1)
    expect(result.stdout).toMatch(/line 5: not valid JSON/)
    expect(result.stdout).toMatch(/line 6: no team "nowhere"/)
    expect(result.stdout).toMatch(/line 7: post user: no user "nobody"/)
    expect(result.stdout).toMatch(/line 8: invalid username "Bad Name"/)
    expect(result.stdout).toMatch(/line 8: invalid email/)
    expect(result.stdout).toMatch(/line 9: .*create_at/)
    expect(result.stdout).toMatch(/line 10: post: attachment "data\/missing.txt"/)
    expect(result.stdout).toContain("nothing was imported")
    const { client } = await login("alice", PASSWORDS.alice)
    const channels = await client.getMyChannels((await client.getMyTeams())[0].id)
    expect(channels.map((c) => c.name)).not.toContain("lost")
  })

  it("a dry run of a valid file says so", async () => {
    const result = await server.runtime.runPromise(importFile(zip, { dryRun: true })) as ImportResult
    expect(result.validation.problems).toEqual([])
    expect(report(zip, true, result).at(-1)).toBe("valid: nothing was imported (dry run)")
  })

  it("a later file adds a reply to an imported thread: only the new reply is created and the thread counts it", async () => {
    const lines = fixtureLines()
    const root = lines.find((l) => (l as { post?: { message?: string } }).post?.message === "hello imported world #launch") as { type: string; post: Record<string, unknown> & { replies: Array<unknown> } }
    const extended = { ...root, post: { ...root.post, attachments: undefined, replies: [...root.post.replies, { user: "carol", message: "one more, later", create_at: T0 + 9500 }] } }
    const file = await writeJsonl([...lines.slice(0, 2), extended])
    const result = await server.runtime.runPromise(importFile(file, { dryRun: false, batchSize: 1 })) as ImportResult
    expect(result.validation.problems).toEqual([])
    expect(result.created).toEqual({ reply: 1 })
    expect(result.existing).toMatchObject({ post: 1, reply: 2 })
    const { client } = await login("alice", PASSWORDS.alice)
    const acme = (await client.getMyTeams()).find((t) => t.name === "acme")!
    const general = await client.getChannelByName(acme.id, "general")
    const posts = await client.getPosts(general.id)
    const imported = Object.values(posts.posts).find((p) => p.message === "hello imported world #launch")!
    expect(imported.reply_count).toBe(3)
    expect(general.total_msg_count).toBe(5)
  })
})

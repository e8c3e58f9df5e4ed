import type { Post } from "@mattermost/types/posts"
import { Redacted } from "effect"
import { readFile, writeFile } from "node:fs/promises"
import * as path from "node:path"
import sharp from "sharp"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { FROM_BUILD, runCli } from "../cli/Cli.ts"
import { client4, failureOf } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { days, diagramPng, exportFiles, users, writeSlackZip } from "./SlackFixture.ts"

/**
 * A Slack workspace export imported with `node dist/main.js --import-slack FILE --team NAME` into a server that
 * already has two accounts: "alice" with another email (so Slack's alice becomes alice2) and "robert" with Slack bob's
 * email (so bob is matched, not duplicated). Robert then sees the history through Client4 as any member would.
 */
let server: TestServer
let cliEnv: Record<string, string>
const cli = (args: ReadonlyArray<string>) => runCli(args, cliEnv, 110_000, FROM_BUILD)
const PASSWORD = "correct-horse-battery"

const posts = async (client: ReturnType<typeof client4>, channelId: string) => {
  const list = await client.getPosts(channelId)
  return list.order.map((id) => list.posts[id]).reverse()
}

describe("import a Slack workspace export", { timeout: 240_000 }, () => {
  let zip: string
  let firstRun: Awaited<ReturnType<typeof cli>>
  let robert: ReturnType<typeof client4>

  beforeAll(async () => {
    server = await startServer()
    cliEnv = {
      SERVICE_DATABASE_URL: server.databaseUrl,
      SERVICE_JWT_SECRET: Redacted.value(server.config.jwtSecretValue),
      SERVICE_ENCRYPTION_KEY: Redacted.value(server.config.encryptionKeyValue),
      SERVICE_DATA_DIR: server.config.dataDir
    }
    const signup = client4(server.url)
    await signup.createUser({ username: "alice", email: "another-alice@example.com", password: PASSWORD } as never, "", "")
    await signup.createUser({ username: "robert", email: "bob@example.com", password: PASSWORD } as never, "", "")
    robert = client4(server.url)
    await robert.login("robert", PASSWORD)
    zip = await writeSlackZip(exportFiles(await diagramPng()))
    firstRun = await cli(["--import-slack", zip, "--team", "slackers"])
  }, 120_000)
  afterAll(async () => {
    await server?.close()
  })

  it("imports the export and reports people, channels, messages and what it skipped", () => {
    expect(firstRun.code, firstRun.output).toBe(0)
    expect(firstRun.stderr).toMatch(/reading general \(1\/5, 2 days\)/)
    expect(firstRun.stderr).toContain("importing:")
    expect(firstRun.stdout).toMatch(/^took [\d.]+ s, peak memory \d+ MiB$/m)
    expect(firstRun.stdout).toContain("3 persons (1 matched to an account by email), 2 bots, 3 channels, 2 direct or group conversations, 15 messages, 2 files")
    expect(firstRun.stdout).toContain(`skipped: 1 "pinned_item" events`)
    expect(firstRun.stdout).toContain("skipped: 1 files Slack had deleted or hidden (no bytes, no link)")
    expect(firstRun.stdout).toContain("files only linked (the export has no bytes for them; fetch them from Slack): 1")
    expect(firstRun.stdout).toContain("linked: general 1700086406.000000 all-hands.mp4 https://files.slack.com/files-pri/T1-F03BIG/all-hands.mp4")
    expect(firstRun.stdout).toMatch(/created: attachment 2, bot 2, channel 3, .*direct_channel 2, direct_post 3, post 10, reaction 4, reply 2, team 1, team_member 3, user 2$/m)
    expect(firstRun.stdout).toMatch(/already there: .*user 1$/m)
  })

  it("people: valid unique usernames, profile fields, a match by email, a deactivated one, bots", async () => {
    const alice = await robert.getUserByUsername("alice2")
    expect(alice).toMatchObject({ first_name: "Alice", last_name: "Liddell", nickname: "Ally", position: "Engineer", delete_at: 0 })
    const zoe = await robert.getUserByUsername("zoe.n")
    expect(zoe.delete_at).toBeGreaterThan(0)
    expect((await robert.getUserByUsername("deploybot")).is_bot).toBe(true)
    expect((await robert.getUserByUsername("slack-integrations")).is_bot).toBe(true)
    expect(await failureOf(robert.getUserByUsername("bob"))).toMatchObject({ status: 404 })
    // Imported people have no password: they sign in after a reset (or through SSO).
    expect(await failureOf(client4(server.url).login("alice2", "anything-at-all"))).toMatchObject({ status: 401 })
  })

  it("channels, with header, purpose, archive and members", async () => {
    const team = await robert.getTeamByName("slackers")
    const general = await robert.getChannelByName(team.id, "general")
    expect(general).toMatchObject({ type: "O", header: "Welcome @alice2", purpose: "talk & more", delete_at: 0 })
    const secret = await robert.getChannelByName(team.id, "secret-plans")
    expect(secret.type).toBe("P")
    expect((await posts(robert, secret.id)).map((p) => p.message)).toEqual(["the private plan"])
    const archived = await robert.getChannelByName(team.id, "announcements", true)
    expect(archived.delete_at).toBeGreaterThan(0)
    const members = await robert.getChannelMembers(general.id)
    expect(members).toHaveLength(3)
    // Slack's creator is the channel's creator.
    expect(general.creator_id).toBe((await robert.getUserByUsername("alice2")).id)
    expect(secret.creator_id).toBe((await robert.getMe()).id)
  })

  it("messages: times, markup, a thread across days, reactions, an edit, system, bot and /me messages", async () => {
    const team = await robert.getTeamByName("slackers")
    const general = await robert.getChannelByName(team.id, "general")
    const list = await posts(robert, general.id)
    const roots = list.filter((p) => p.root_id === "")
    expect(roots.map((p) => [p.type, p.message])).toEqual([
      ["system_join_channel", "@robert joined the channel."],
      ["", "Hello @robert, see ~announcements **now** & [the docs](https://example.com) 日本語 🎉"],
      ["", "deployed v2"],
      ["me", "*waves*"],
      ["", "ticket JIRA-1 opened"],
      ["", "the diagram :slightly_smiling_face: :man_shrugging:"],
      ["", "[all-hands.mp4](https://files.slack.com/files-pri/T1-F03BIG/all-hands.mp4)"],
      ["", "gone \"file\" \u2014 \u{1F600}"]
    ])
    const root = roots[1]
    expect(root.create_at).toBe(1_700_000_001_123)
    expect(root.edit_at).toBe(1_700_000_050_000)
    expect(root.reply_count).toBe(2)
    expect(root.metadata.reactions?.map((r) => r.emoji_name).sort()).toEqual(["+1", "+1", "thumbsup"])
    const thread = await robert.getPostThread(root.id)
    const replies = thread.order.map((id) => thread.posts[id]).filter((p: Post) => p.id !== root.id).sort((a, b) => a.create_at - b.create_at)
    expect(replies.map((p) => [p.message, p.create_at])).toEqual([["reply one", 1_700_000_002_500], ["a reply the next day", 1_700_086_400_000]])
    const deploybot = await robert.getUserByUsername("deploybot")
    expect(roots[2]).toMatchObject({ user_id: deploybot.id, props: { from_bot: "true", override_username: "Deploy" } })
    expect(roots[4].props).toMatchObject({ override_username: "jira" })
    expect(roots[5].metadata.reactions?.map((r) => r.emoji_name)).toEqual(["roll_eyes"])
  })

  it("shared files in the export: attached to their post, an image with its thumbnail and preview", async () => {
    const team = await robert.getTeamByName("slackers")
    const general = await robert.getChannelByName(team.id, "general")
    const shared = (await posts(robert, general.id)).find((p) => p.message.startsWith("the diagram"))!
    expect(shared.file_ids).toHaveLength(2)
    const infos = (await robert.getFileInfosForPost(shared.id)).sort((a, b) => a.name.localeCompare(b.name))
    expect(infos.map((f) => [f.name, f.extension, f.size])).toEqual([["diagram.png", "png", (await diagramPng()).length], ["notes.txt", "txt", 12]])
    expect(infos[0]).toMatchObject({ width: 200, height: 100, has_preview_image: true, mime_type: "image/png" })
    expect(infos[0].mini_preview).toBeTruthy()
    expect(infos[1].has_preview_image).toBe(false)
    const get = (url: string) => fetch(url, { headers: { Authorization: `Bearer ${robert.getToken()}` } })
    const thumbnail = await get(robert.getFileThumbnailUrl(infos[0].id, 0))
    expect(thumbnail.status).toBe(200)
    expect(thumbnail.headers.get("content-type")).toBe("image/jpeg")
    expect((await sharp(Buffer.from(await thumbnail.arrayBuffer())).metadata()).height).toBe(100)
    expect((await get(robert.getFilePreviewUrl(infos[0].id, 0))).status).toBe(200)
    const text = await get(robert.getFileUrl(infos[1].id, 0))
    expect(await text.text()).toBe("plain notes\n")
  })

  it("direct and group messages", async () => {
    const me = await robert.getMe()
    const alice = await robert.getUserByUsername("alice2")
    const dm = await robert.createDirectChannel([me.id, alice.id])
    expect((await posts(robert, dm.id)).map((p) => p.message)).toEqual(["psst", "hey"])
    // Zoë is deactivated, so the group is found among robert's channels rather than opened anew.
    const team = await robert.getTeamByName("slackers")
    const gm = (await robert.getMyChannels(team.id)).find((c) => c.type === "G")!
    expect(gm.display_name).toContain("zoe.n")
    expect((await posts(robert, gm.id)).map((p) => p.message)).toEqual(["group hi"])
  })

  it("a second run creates nothing", async () => {
    const again = await cli(["--import-slack", zip, "--team", "slackers"])
    expect(again.code, again.output).toBe(0)
    expect(again.stdout).toContain("created: nothing")
    const team = await robert.getTeamByName("slackers")
    const general = await robert.getChannelByName(team.id, "general")
    expect(general.total_msg_count).toBe(10)
    const shared = (await posts(robert, general.id)).find((p) => p.message.startsWith("the diagram"))!
    expect(await robert.getFileInfosForPost(shared.id)).toHaveLength(2)
  })

  it("a dry run writes nothing", async () => {
    const files = { ...exportFiles(), "users.json": users([{ id: "U05NEW", name: "newcomer", profile: { email: "new@example.com" } }]) }
    const result = await cli(["--import-slack", await writeSlackZip(files), "--team", "dry-team", "--dry-run"])
    expect(result.code, result.output).toBe(0)
    expect(result.stdout).toContain("valid: nothing was imported (dry run)")
    expect(await failureOf(robert.getUserByUsername("newcomer"))).toMatchObject({ status: 404 })
    expect(await failureOf(robert.getTeamByName("dry-team"))).toMatchObject({ status: 404 })
  })

  it("a broken export is refused, naming the file and the entry, and nothing is written", async () => {
    const withNewcomer = { "users.json": users([{ id: "U06LATE", name: "latecomer", profile: { email: "late@example.com" } }]) }
    const broken = await writeSlackZip({ ...exportFiles(), ...withNewcomer, "general/2023-11-15.json": "[{\"ts\": \"1700086400.1\", " })
    const result = await cli(["--import-slack", broken, "--team", "broken-team"])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(broken)
    expect(result.stderr).toMatch(/entry general\/2023-11-15\.json is not valid JSON/)
    const badTs = { ...days()["general/2023-11-14.json"][0] as object, ts: "yesterday" }
    const invalid = await cli(["--import-slack", await writeSlackZip({ ...exportFiles(), ...withNewcomer, "general/2023-11-14.json": [badTs] }), "--team", "broken-team"])
    expect(invalid.code).toBe(1)
    expect(invalid.stderr).toMatch(/entry general\/2023-11-14\.json: 0\.ts: a Slack timestamp/)
    expect(await failureOf(robert.getUserByUsername("latecomer"))).toMatchObject({ status: 404 })
    expect(await failureOf(robert.getTeamByName("broken-team"))).toMatchObject({ status: 404 })
    const notSlack = await cli(["--import-slack", await writeSlackZip({ "import.jsonl": "{}" }), "--team", "broken-team"])
    expect(notSlack.code).toBe(1)
    expect(notSlack.stderr).toContain("no users.json")
    // More broken files: each refused with its entry (or the zip) named, the team never created.
    const cases: ReadonlyArray<[Record<string, unknown> | string, RegExp]> = [
      [{ ...exportFiles(), "users.json": { members: [] } }, /entry users\.json: Expected ReadonlyArray/],
      [{ ...exportFiles(), ...withNewcomer, "channels.json": [{ name: "no-id" }] }, /entry channels\.json: 0\.id: is missing/],
      [{ ...exportFiles(), ...withNewcomer, "dms.json": "" }, /entry dms\.json is not valid JSON/],
      ["not a zip at all", /not a readable zip/]
    ]
    for (const [files, message] of cases) {
      let zipFile: string
      if (typeof files === "string") {
        zipFile = path.join(path.dirname(broken), "plain.zip")
        await writeFile(zipFile, files)
      } else zipFile = await writeSlackZip(files)
      const refused = await cli(["--import-slack", zipFile, "--team", "broken-team"])
      expect(refused.code, refused.output).toBe(1)
      expect(refused.stderr).toMatch(message)
      expect(refused.stderr).toContain(zipFile)
    }
    // A zip cut short (a download that stopped): refused as unreadable.
    const whole = await readFile(zip)
    const cut = path.join(path.dirname(broken), "cut.zip")
    await writeFile(cut, whole.subarray(0, Math.floor(whole.length / 2)))
    const truncated = await cli(["--import-slack", cut, "--team", "broken-team"])
    expect(truncated.code, truncated.output).toBe(1)
    expect(truncated.stderr).toMatch(/not a readable zip/)
    expect(await failureOf(robert.getUserByUsername("latecomer"))).toMatchObject({ status: 404 })
    expect(await failureOf(robert.getTeamByName("broken-team"))).toMatchObject({ status: 404 })
  })
})

import bcrypt from "bcryptjs"
import { once } from "node:events"
import { createWriteStream } from "node:fs"
import * as fs from "node:fs/promises"
import { pbkdf2Sync, randomBytes } from "node:crypto"
import * as path from "node:path"
import yazl from "yazl"
import { tempDir } from "../support/Cleanup.ts"

/**
 * A small Mattermost bulk export built in the test, as `mmctl export create` lays it out: import.jsonl and the files
 * under data/. Two teams' worth of content: channels public and private, users with a bcrypt hash (Mattermost before
 * v11), a PBKDF2 hash (v11's PHC string) and none, a bot, posts with replies, reactions (one with a custom emoji), flags,
 * a pin and an attachment, a DM and a GM with posts, a custom emoji.
 */
export const PASSWORDS = { alice: "alice-imported-pw-1", bob: "bob-imported-pw-2" } as const
export const ATTACHMENT = Buffer.from("notes from the old server\n".repeat(20))
// A 1x1 transparent PNG.
export const EMOJI_PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=", "base64")
export const T0 = 1_700_000_000_000

/** Mattermost v11's PBKDF2 PHC string, with few iterations to keep the test fast. */
export const pbkdf2Phc = (password: string, iterations = 1000) => {
  const salt = randomBytes(16)
  const hash = pbkdf2Sync(password, salt, iterations, 32, "sha256")
  const b64 = (b: Buffer) => b.toString("base64").replace(/=+$/, "")
  return `$pbkdf2$f=SHA256,w=${iterations},l=32$${b64(salt)}$${b64(hash)}`
}

export const fixtureLines = (): ReadonlyArray<unknown> => [
  { type: "version", version: 1 },
  { type: "team", team: { name: "acme", display_name: "Acme Corp", type: "O", description: "imported", allow_open_invite: true } },
  { type: "channel", channel: { team: "acme", name: "general", display_name: "General", type: "O", header: "welcome", purpose: "talk" } },
  { type: "channel", channel: { team: "acme", name: "private-ops", display_name: "Private Ops", type: "P" } },
  {
    type: "user",
    user: {
      username: "alice", email: "alice@example.com", profile_image: "data/profiles/alice.png", password: bcrypt.hashSync(PASSWORDS.alice, 4), first_name: "Alice",
      last_name: "Liddell", roles: "system_user", locale: "en", military_time: "true", theme: "", tutorial_step: "999",
      notify_props: { desktop: "all", mobile: "mention", email: "false", mention_keys: "alice,wonderland" },
      teams: [{
        name: "acme", roles: "team_admin team_user", theme: "{\"type\":\"Onyx\"}",
        channels: [
          { name: "general", roles: "channel_admin channel_user", favorite: true },
          { name: "private-ops", roles: "channel_user", notify_props: { desktop: "none", mark_unread: "mention" }, last_viewed_at: T0 + 100, mention_count: 1 }
        ]
      }]
    }
  },
  {
    type: "user",
    user: {
      username: "bob", email: "bob@example.com", password: pbkdf2Phc(PASSWORDS.bob), nickname: "Bobby", roles: "system_user system_user_access_token",
      teams: [{ name: "acme", roles: "team_user", channels: [{ name: "general", roles: "channel_user" }] }]
    }
  },
  {
    type: "user",
    user: {
      username: "carol", email: "carol@example.com", roles: "system_user",
      teams: [{ name: "acme", roles: "team_user", channels: [{ name: "general", roles: "channel_user" }, { name: "private-ops", roles: "channel_user" }] }]
    }
  },
  { type: "bot", bot: { username: "deploybot", owner: "alice", display_name: "Deploy Bot", description: "ships things" } },
  { type: "post", post: { team: "acme", channel: "town-square", user: "deploybot", message: "deployed v2", create_at: T0 + 3000, props: { from_bot: "true" } } },
  { type: "emoji", emoji: { name: "partyparrot", image: "data/emoji/partyparrot.png" } },
  {
    type: "post",
    post: {
      team: "acme", channel: "general", user: "alice", message: "hello imported world #launch", create_at: T0, is_pinned: true,
      flagged_by: ["bob"], reactions: [{ user: "bob", emoji_name: "+1", create_at: T0 + 500 }],
      attachments: [{ path: "data/20231114/teams/acme/notes.txt" }],
      replies: [
        { user: "bob", message: "welcome back @alice", create_at: T0 + 1000 },
        { user: "carol", message: "glad the history came along", create_at: T0 + 2000, reactions: [{ user: "alice", emoji_name: "heart", create_at: T0 + 2500 }] }
      ]
    }
  },
  {
    type: "post",
    post: {
      team: "acme", channel: "general", user: "bob", message: "second root post", create_at: T0 + 5000,
      reactions: [{ user: "carol", emoji_name: "partyparrot", create_at: T0 + 5100 }]
    }
  },
  { type: "post", post: { team: "acme", channel: "private-ops", user: "alice", message: "ops only", create_at: T0 + 6000 } },
  { type: "direct_channel", direct_channel: { members: ["alice", "bob"], favorited_by: ["alice"], header: "dm header" } },
  {
    type: "direct_post",
    direct_post: {
      channel_members: ["alice", "bob"], user: "alice", message: "a direct hello", create_at: T0 + 7000,
      replies: [{ user: "bob", message: "direct reply", create_at: T0 + 8000 }]
    }
  },
  { type: "direct_channel", direct_channel: { members: ["alice", "bob", "carol"] } },
  { type: "direct_post", direct_post: { channel_members: ["alice", "bob", "carol"], user: "carol", message: "group hello", create_at: T0 + 9000 } }
]

export const toJsonl = (lines: ReadonlyArray<unknown>) => lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n") + "\n"

/** The fixture as a zip in a fresh folder; returns its path. */
export const writeFixtureZip = async (lines: ReadonlyArray<unknown> = fixtureLines()) => {
  const dir = tempDir("import-fixture-")
  const file = path.join(dir, "export.zip")
  const zip = new yazl.ZipFile()
  zip.addBuffer(Buffer.from(toJsonl(lines)), "import.jsonl")
  zip.addBuffer(ATTACHMENT, "data/20231114/teams/acme/notes.txt")
  zip.addBuffer(EMOJI_PNG, "data/emoji/partyparrot.png")
  zip.addBuffer(EMOJI_PNG, "data/profiles/alice.png")
  zip.end()
  const out = createWriteStream(file)
  zip.outputStream.pipe(out)
  await once(out, "finish")
  return file
}

/** Lines as a .jsonl file in a fresh folder (attachments, if named, must be written beside it). */
export const writeJsonl = async (lines: ReadonlyArray<unknown>, dir = tempDir("import-jsonl-")) => {
  const file = path.join(dir, "import.jsonl")
  await fs.writeFile(file, toJsonl(lines))
  return file
}

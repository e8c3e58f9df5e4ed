import { once } from "node:events"
import { createWriteStream } from "node:fs"
import * as path from "node:path"
import sharp from "sharp"
import yazl from "yazl"
import { tempDir } from "../support/Cleanup.ts"

/**
 * A small Slack workspace export built in the test, laid out as Slack writes it: users.json, channels.json,
 * groups.json, dms.json, mpims.json and a folder of daily message files per conversation. Three people (one
 * deactivated, with a non-ASCII name) and a bot; a public channel with a thread whose last reply comes a day later,
 * reactions (one with a skin tone), an edit, Unicode, markup, a join, a bot message, a /me message and a pinned-item
 * event; an archived channel; a private channel; a DM and a group DM.
 */
export const T = (seconds: number, micros = 0) => `${seconds}.${String(micros).padStart(6, "0")}`
export const ROOT_TS = T(1_700_000_001, 123_456)

export const users = (extra: ReadonlyArray<unknown> = []) => [
  {
    id: "U01ALICE", name: "alice", real_name: "Alice Liddell", is_admin: true,
    profile: { email: "alice@example.com", first_name: "Alice", last_name: "Liddell", display_name: "Ally", title: "Engineer" }
  },
  { id: "U02BOB", name: "bob", profile: { email: "Bob@Example.com", real_name: "Bob" } },
  { id: "U03ZOE", name: "zoë.ñ", deleted: true, profile: { email: "zoe@example.com", first_name: "Zoë" } },
  { id: "U04BOT", name: "deploybot", is_bot: true, real_name: "Deploy Bot", profile: { bot_id: "B01DEPLOY" } },
  ...extra
]

export const days = (): Record<string, ReadonlyArray<unknown>> => ({
  "general/2023-11-14.json": [
    { type: "message", subtype: "channel_join", user: "U02BOB", text: "<@U02BOB> has joined the channel", ts: T(1_700_000_000, 100) },
    {
      type: "message", user: "U01ALICE", ts: ROOT_TS, thread_ts: ROOT_TS, reply_count: 2,
      text: "Hello <@U02BOB>, see <#C02ANN|announcements> *now* &amp; <https://example.com|the docs> 日本語 🎉",
      edited: { user: "U01ALICE", ts: T(1_700_000_050, 1) },
      reactions: [{ name: "+1", users: ["U02BOB", "U03ZOE"], count: 2 }, { name: "thumbsup::skin-tone-3", users: ["U02BOB"], count: 1 }]
    },
    { type: "message", user: "U02BOB", text: "reply one", ts: T(1_700_000_002, 500_000), thread_ts: ROOT_TS, parent_user_id: "U01ALICE" }
  ],
  "general/2023-11-15.json": [
    { type: "message", user: "U03ZOE", text: "a reply the next day", ts: T(1_700_086_400, 1), thread_ts: ROOT_TS },
    { type: "message", subtype: "bot_message", bot_id: "B01DEPLOY", username: "Deploy", text: "deployed v2", ts: T(1_700_086_401) },
    { type: "message", subtype: "me_message", user: "U01ALICE", text: "waves", ts: T(1_700_086_402) },
    { type: "message", subtype: "bot_message", bot_id: "B99JIRA", username: "jira", text: "ticket JIRA-1 opened", ts: T(1_700_086_403) },
    { type: "message", subtype: "pinned_item", user: "U01ALICE", text: "pinned a message", ts: T(1_700_086_404) },
    {
      type: "message", subtype: "file_share", user: "U02BOB", text: "the diagram :simple_smile: :man-shrugging:", ts: T(1_700_086_405),
      files: [
        { id: "F01PIC", name: "diagram.png", mimetype: "image/png", url_private: "https://files.slack.com/files-pri/T1-F01PIC/diagram.png" },
        { id: "F02DOC", name: "notes.txt", url_private: "https://files.slack.com/files-pri/T1-F02DOC/notes.txt" }
      ],
      reactions: [{ name: "face_with_rolling_eyes", users: ["U01ALICE"], count: 1 }]
    },
    {
      type: "message", user: "U01ALICE", text: "", ts: T(1_700_086_406),
      files: [{ id: "F03BIG", name: "all-hands.mp4", url_private: "https://files.slack.com/files-pri/T1-F03BIG/all-hands.mp4" }]
    },
    { type: "message", user: "U01ALICE", text: "gone &quot;file&quot; &#8212; &#x1F600;", ts: T(1_700_086_407), files: [{ id: "F04DEL", mode: "tombstone" }] }
  ],
  "announcements/2023-11-14.json": [{ type: "message", user: "U01ALICE", text: "old news", ts: T(1_700_000_010) }],
  "secret-plans/2023-11-14.json": [{ type: "message", user: "U02BOB", text: "the private plan", ts: T(1_700_000_100) }],
  "D01DM/2023-11-14.json": [
    { type: "message", user: "U01ALICE", text: "psst", ts: T(1_700_000_200) },
    { type: "message", user: "U02BOB", text: "hey", ts: T(1_700_000_201) }
  ],
  "mpdm-alice--bob--zoe-1/2023-11-14.json": [{ type: "message", user: "U03ZOE", text: "group hi", ts: T(1_700_000_300) }]
})

/** A 200x100 PNG: wide enough that its thumbnail is scaled down. */
export const diagramPng = () => sharp({ create: { width: 200, height: 100, channels: 3, background: "#3366cc" } }).png().toBuffer()

export const exportFiles = (png: Buffer = Buffer.alloc(0)): Record<string, unknown> => ({
  "users.json": users(),
  "channels.json": [
    {
      id: "C01GEN", name: "general", created: 1_699_000_000, creator: "U01ALICE", is_general: true, members: ["U01ALICE", "U02BOB", "U03ZOE"],
      topic: { value: "Welcome <@U01ALICE>" }, purpose: { value: "talk &amp; more" }
    },
    { id: "C02ANN", name: "announcements", created: 1_699_000_000, creator: "U01ALICE", is_archived: true, members: ["U01ALICE", "U02BOB"] }
  ],
  "groups.json": [{ id: "G01SECRET", name: "secret-plans", created: 1_699_000_000, creator: "U02BOB", members: ["U01ALICE", "U02BOB"] }],
  "dms.json": [{ id: "D01DM", created: 1_699_000_000, members: ["U01ALICE", "U02BOB"] }],
  "mpims.json": [{ id: "G02MPIM", name: "mpdm-alice--bob--zoe-1", created: 1_699_000_000, members: ["U01ALICE", "U02BOB", "U03ZOE"] }],
  ...days(),
  "__uploads/F01PIC/diagram.png": png,
  "__uploads/F02DOC/notes.txt": Buffer.from("plain notes\n")
})

/** The files (JSON values, or raw strings and Buffers written as they are) as a Slack export zip; returns its path. */
export const writeSlackZip = async (files: Record<string, unknown> = exportFiles()) => {
  const file = path.join(tempDir("slack-export-"), "slack-export.zip")
  const zip = new yazl.ZipFile()
  for (const [name, content] of Object.entries(files)) {
    const bytes = Buffer.isBuffer(content) ? content : Buffer.from(typeof content === "string" ? content : JSON.stringify(content, null, 2))
    zip.addBuffer(bytes, name)
  }
  zip.end()
  const out = createWriteStream(file)
  zip.outputStream.pipe(out)
  await once(out, "finish")
  return file
}

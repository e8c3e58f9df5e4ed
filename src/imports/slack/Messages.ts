import type * as Bulk from "../../../schemas/BulkImport.ts"
import type * as Slack from "../../../schemas/SlackExport.ts"
import { MESSAGE_MAX_RUNES, runeLength } from "../../posts/MessageText.ts"
import { mattermostEmoji } from "./Emoji.ts"
import { decodeEntities, type Names, slackToMarkdown } from "./Markup.ts"

/**
 * One conversation's Slack messages as the bulk format's posts: roots with their replies nested (Slack's `thread_ts`
 * names the root), times in milliseconds, reactions per person, edits, join/leave/topic/purpose as Mattermost's system
 * messages, bot messages with the name they posted under, /me messages. What cannot come along is counted by reason.
 */
export type Post = Omit<Bulk.Reply, "replies"> & { replies?: Array<Bulk.Reply> }

/** "1700000000.123456" → 1700000000123, by the digits (no floating point). */
export const tsToMillis = (ts: string) => {
  const [seconds, fraction = ""] = ts.split(".")
  return Number(seconds) * 1000 + Number(fraction.padEnd(3, "0").slice(0, 3))
}
const tsToMicros = (ts: string) => {
  const [seconds, fraction = ""] = ts.split(".")
  return Number(seconds) * 1_000_000 + Number(fraction.padEnd(6, "0").slice(0, 6))
}

export interface Authors extends Names {
  /** The username of a bot_message's sender: its Slack bot id's account, or the import's fallback bot. */
  readonly bot: (botId: string | null | undefined) => string
  /**
   * A shared file: an attachment when the export carries its bytes, else a link to it on Slack (which the caller
   * lists in the report), or undefined when Slack has neither.
   */
  readonly file: (file: Slack.File, ts: string) => { readonly attachment: Bulk.Attachment } | { readonly link: string } | undefined
}

export interface Converted {
  readonly roots: Array<Post>
  readonly messages: number
}

const SYSTEM: Record<string, "join" | "leave" | "header" | "purpose"> = {
  channel_join: "join",
  group_join: "join",
  channel_leave: "leave",
  group_leave: "leave",
  channel_topic: "header",
  group_topic: "header",
  channel_purpose: "purpose",
  group_purpose: "purpose"
}
/** Subtypes imported as ordinary posts. */
const CONTENT = new Set(["", "bot_message", "me_message", "thread_broadcast", "file_share", "reply_broadcast"])
const EMOJI_NAME = /^[a-zA-Z0-9_+-]{1,64}$/

const attachmentProps = (list: ReadonlyArray<Slack.Attachment>, names: Names) =>
  list.map((a) =>
    Object.fromEntries(Object.entries({
      ...a,
      pretext: a.pretext == null ? undefined : slackToMarkdown(a.pretext, names),
      text: a.text == null ? undefined : slackToMarkdown(a.text, names),
      fields: a.fields?.map((f) => ({ title: f.title ?? "", value: f.value == null ? "" : slackToMarkdown(f.value, names), short: f.short ?? false }))
    }).filter(([, v]) => v !== undefined && v !== null))
  )

const truncate = (text: string) => (runeLength(text) > MESSAGE_MAX_RUNES ? [...text].slice(0, MESSAGE_MAX_RUNES).join("") : text)

export const convertMessages = (
  messages: ReadonlyArray<Slack.Message>,
  authors: Authors,
  skip: (reason: string, n?: number) => void,
  /** For direct conversations: the members, among whom an author must be. */
  members?: ReadonlyArray<string>
): Converted => {
  const sorted = [...messages].sort((a, b) => tsToMicros(a.ts) - tsToMicros(b.ts))
  const roots: Array<Post> = []
  const byTs = new Map<string, Post>()
  // The importer knows a post by channel, author and millisecond: two of one author's messages in one millisecond
  // (Slack counts microseconds) are kept apart by a millisecond, the same way on every run.
  const used = new Set<string>()
  let count = 0
  for (const m of sorted) {
    const subtype = m.subtype ?? ""
    const system = SYSTEM[subtype]
    if (system === undefined && !CONTENT.has(subtype)) {
      skip(`"${subtype}" events`)
      continue
    }
    const user = subtype === "bot_message" && m.user == null ? authors.bot(m.bot_id) : m.user == null ? undefined : authors.user(m.user)
    if (user === undefined) {
      skip("messages whose author is not in users.json")
      continue
    }
    if (members !== undefined && !members.includes(user)) {
      skip("direct messages from someone outside the conversation")
      continue
    }
    const text = slackToMarkdown(m.text ?? "", authors)
    const props: Record<string, unknown> = {}
    let type = ""
    let message = text
    if (system === "join" || system === "leave") {
      type = system === "join" ? "system_join_channel" : "system_leave_channel"
      message = `@${user} ${system === "join" ? "joined" : "left"} the channel.`
      props.username = user
    } else if (system === "header") {
      const header = slackToMarkdown(m.topic ?? "", authors)
      type = "system_header_change"
      message = `@${user} updated the channel header to: ${header}`
      Object.assign(props, { username: user, old_header: "", new_header: header })
    } else if (system === "purpose") {
      const purpose = decodeEntities(m.purpose ?? "")
      type = "system_purpose_change"
      message = `@${user} updated the channel purpose to: ${purpose}`
      Object.assign(props, { username: user, old_purpose: "", new_purpose: purpose })
    } else if (subtype === "me_message") {
      type = "me"
      message = `*${text}*`
    } else if (subtype === "bot_message") {
      props.from_bot = "true"
      if (m.username != null && m.username !== "") props.override_username = m.username
    }
    if ((m.attachments ?? []).length > 0) props.attachments = attachmentProps(m.attachments!, authors)
    const shared = (m.files ?? []).map((f) => authors.file(f, m.ts))
    const files = shared.flatMap((f) => (f !== undefined && "attachment" in f ? [f.attachment] : []))
    // A file the export only links to keeps its link in the post, so the reader can still fetch it from Slack.
    const links = shared.flatMap((f) => (f !== undefined && "link" in f ? [f.link] : []))
    if (links.length > 0) message = [message, ...links].filter((l) => l.trim() !== "").join("\n")
    if (message.trim() === "" && props.attachments === undefined && files.length === 0) {
      if ((m.files ?? []).length === 0) skip("empty messages")
      continue
    }
    if (runeLength(message) > MESSAGE_MAX_RUNES) skip(`characters past ${MESSAGE_MAX_RUNES} in a message (cut)`)
    const isReply = m.thread_ts != null && m.thread_ts !== m.ts
    const root = isReply ? byTs.get(m.thread_ts!) : undefined
    if (isReply && root === undefined) skip("replies whose thread start is not in the export (imported as posts)")
    let createAt = Math.max(tsToMillis(m.ts), root?.create_at ?? 0)
    while (used.has(`${user}/${createAt}`)) createAt += 1
    used.add(`${user}/${createAt}`)
    const reactions: Array<Bulk.Reaction> = []
    for (const r of m.reactions ?? []) {
      const emoji = mattermostEmoji(r.name)
      if (!EMOJI_NAME.test(emoji)) {
        skip("reactions with an emoji name not valid here", r.users.length)
        continue
      }
      for (const id of new Set(r.users)) {
        const by = authors.user(id)
        if (by === undefined) skip("reactions by someone not in users.json")
        else reactions.push({ user: by, emoji_name: emoji, create_at: createAt })
      }
    }
    const post: Post = {
      user,
      message: truncate(message),
      create_at: createAt,
      ...(type === "" ? {} : { type }),
      ...(Object.keys(props).length === 0 ? {} : { props }),
      ...(m.edited == null ? {} : { edit_at: Math.max(createAt, tsToMillis(m.edited.ts)) }),
      ...(reactions.length === 0 ? {} : { reactions }),
      ...(files.length === 0 ? {} : { attachments: files })
    }
    count += 1
    if (root !== undefined) {
      root.replies ??= []
      root.replies.push(post)
    } else {
      roots.push(post)
      byTs.set(m.ts, post)
    }
  }
  return { roots, messages: count }
}

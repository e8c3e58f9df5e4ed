import { Effect, Schema } from "effect"
import { Db } from "../../layers/Db.ts"
import { rows } from "../../layers/Rows.ts"

const IdUsernames = rows("SlackText users", Schema.Struct({ id: Schema.String, username: Schema.String }))

/**
 * Slack's markup in what webhooks post, turned into Mattermost's as Mattermost does (ProcessSlackText,
 * ProcessSlackAttachments, ParseSlackLinksToMarkdown): `<!channel>`/`<!here>`/`<!all>` become mentions, `<@USERID>`
 * the user's @username, and `<url|text>` a Markdown link, in the message and in the attachments' pretext, text,
 * title and field values.
 */

const ANNOUNCEMENTS: ReadonlyArray<readonly [string, string]> = [["<!channel>", "@channel"], ["<!here>", "@here"], ["<!all>", "@all"]]
const USER_REF = /<@([a-zA-Z0-9]+)>/g
const LINK_WITH_TEXT = /<([^\n<|>]+)\|([^\n>]+)>/g

export const slackLinksToMarkdown = (text: string) => text.replace(LINK_WITH_TEXT, "[$2]($1)")

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

/** Every string an attachment's markup applies to, for finding the users named. */
const attachmentTexts = (attachment: unknown): Array<string> => {
  if (!isObject(attachment)) return []
  const texts = ["pretext", "text", "title"].map((k) => attachment[k]).filter((v): v is string => typeof v === "string")
  const fields = Array.isArray(attachment.fields) ? attachment.fields : []
  return [...texts, ...fields.flatMap((f) => isObject(f) && typeof f.value === "string" ? [f.value] : [])]
}

export const fromSlack = (text: string, attachments: ReadonlyArray<unknown>) =>
  Effect.gen(function*() {
    const ids = new Set([text, ...attachments.flatMap(attachmentTexts)].flatMap((t) => [...t.matchAll(USER_REF)].map((m) => m[1])))
    const usernames = new Map<string, string>()
    if (ids.size > 0) {
      const db = yield* Db
      const rows = yield* db.read(db.sql`SELECT id, username FROM users WHERE id = ANY(${[...ids]})`.pipe(IdUsernames))
      for (const row of rows) usernames.set(row.id, row.username)
    }
    const plain = (t: string) =>
      ANNOUNCEMENTS.reduce((acc, [slack, mention]) => acc.split(slack).join(mention), t)
        .replace(USER_REF, (whole, id: string) => usernames.has(id) ? `@${usernames.get(id)}` : whole)
    const linked = (t: string) => slackLinksToMarkdown(plain(t))
    const converted = attachments.map((attachment) => {
      if (!isObject(attachment)) return attachment
      const out: Record<string, unknown> = { ...attachment }
      if (typeof out.pretext === "string") out.pretext = linked(out.pretext)
      if (typeof out.text === "string") out.text = linked(out.text)
      if (typeof out.title === "string") out.title = plain(out.title)
      if (Array.isArray(out.fields)) {
        out.fields = out.fields.map((f) => isObject(f) && typeof f.value === "string" ? { ...f, value: linked(f.value) } : f)
      }
      return out
    })
    return { text: linked(text), attachments: converted }
  })

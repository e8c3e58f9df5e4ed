import { renameEmojiInText } from "./Emoji.ts"

/**
 * Slack's message markup ("mrkdwn") as Mattermost Markdown. Slack sends references as angle-bracket tokens (users
 * `<@U123>`, channels `<#C123|name>`, broadcasts `<!here>`, links `<https://x|text>`), escapes `&`, `<` and `>` as
 * entities, and marks bold with single stars and strikethrough with single tildes. Code (``` blocks and `spans`) keeps
 * its text as written: only the entities are decoded there.
 */
export interface Names {
  /** A Slack user id's username on this server. */
  readonly user: (id: string) => string | undefined
  /** A Slack channel id's channel name on this server. */
  readonly channel: (id: string) => string | undefined
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: "\"", apos: "'", nbsp: "\u00a0" }
const codePoint = (n: number, whole: string) => (n > 0 && n <= 0x10ffff && !(n >= 0xd800 && n <= 0xdfff) ? String.fromCodePoint(n) : whole)
/** Slack escapes &, < and > itself; other named and numeric entities come in text pasted from HTML or sent by integrations. */
export const decodeEntities = (text: string) =>
  text.replace(/&(?:(amp|lt|gt|quot|apos|nbsp)|#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6}));/g, (whole, name?: string, dec?: string, hex?: string) =>
    name !== undefined ? ENTITIES[name] : codePoint(dec !== undefined ? Number(dec) : parseInt(hex!, 16), whole))

const BROADCASTS: Record<string, string> = { channel: "@channel", here: "@here", everyone: "@all", group: "@channel" }

const token = (inner: string, names: Names): string => {
  const bar = inner.indexOf("|")
  const target = bar < 0 ? inner : inner.slice(0, bar)
  const label = bar < 0 ? undefined : decodeEntities(inner.slice(bar + 1))
  if (target.startsWith("@")) return `@${names.user(target.slice(1)) ?? label?.replace(/^@/, "") ?? target.slice(1)}`
  if (target.startsWith("#")) return `~${names.channel(target.slice(1)) ?? label ?? target.slice(1)}`
  if (target.startsWith("!")) {
    const command = target.slice(1)
    // <!subteam^S1|@team>, <!date^1700000000^{date}|fallback>: the label is what Slack shows where it cannot render.
    return BROADCASTS[command] ?? label ?? ""
  }
  const url = decodeEntities(target)
  return label === undefined || label === url || `mailto:${label}` === url ? url.replace(/^mailto:/, "") : `[${label}](${url})`
}

const MARKS: Record<string, string> = { "*": "**", "_": "_", "~": "~~" }
// A mark opens after a start of line, space or punctuation and closes before one; the text between starts and ends
// with a non-space and stays on one line, as in Slack.
const EMPHASIS = /(^|[^\p{L}\p{N}*_~\\])([*_~])(?!\s)([^\n]*?[^\s\\])\2(?![\p{L}\p{N}*_~])/gu

const emphasis = (text: string): string =>
  text.replace(EMPHASIS, (_, before: string, mark: string, inner: string) => `${before}${MARKS[mark]}${emphasis(inner)}${MARKS[mark]}`)

const CODE = /(```[\s\S]*?```|`[^`\n]+`)/

/** Outside code: tokens out of the way (placeholders), emphasis, tokens back, entities. */
const prose = (text: string, names: Names) => {
  const tokens: Array<string> = []
  const held = text.replace(/<([^<>\n]+)>/g, (_, inner: string) => {
    tokens.push(token(inner, names))
    return `\u0000${tokens.length - 1}\u0000`
  })
  return decodeEntities(renameEmojiInText(emphasis(held))).replace(/\u0000(\d+)\u0000/g, (_, i: string) => tokens[Number(i)])
}

export const slackToMarkdown = (text: string, names: Names): string =>
  text.split(CODE).map((part, i) => (i % 2 === 1 ? decodeEntities(part) : prose(part, names))).join("")

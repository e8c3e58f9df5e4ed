import { computed } from "@preact/signals"
import { me } from "../app/state.ts"
import { members } from "../channels/state.ts"

/**
 * What counts as mentioning the signed-in person, as Mattermost's web app decides it (getMentionKeysForPost):
 * `@username` always; `@channel`, `@all` and `@here` unless channel mentions are ignored in that channel; the
 * words of notify_props.mention_keys (case-insensitive); the first name when notify_props.first_name is "true"
 * (case-sensitive, as Mattermost matches it).
 */
interface Keys {
  /** Matches any key in text; group 1 is the key. */
  readonly pattern: RegExp | null
  readonly username: string
}

type UserNotify = { mention_keys?: string; first_name?: string; channel?: string }
type MemberNotify = { ignore_channel_mentions?: string; mark_unread?: string }

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * Mattermost's areChannelMentionsIgnored, with the service's rule for "default" (src/posts/Mentions.ts): ignored when
 * the channel says "on", or says "default" while the account turned channel-wide mentions off or the channel is muted.
 */
export const channelMentionsIgnored = (channelId: string) => {
  const member = (members.value[channelId]?.notify_props ?? {}) as MemberNotify
  const account = (me.value?.notify_props ?? {}) as UserNotify
  const own = member.ignore_channel_mentions ?? "default"
  if (own === "on") return true
  if (own === "off") return false
  return account.channel === "false" || member.mark_unread === "mention"
}

// A key is a whole word: not inside a longer name or word (letters, digits, "_", "-", "." followed by more of a name).
const BEFORE = "(?<![\\p{L}\\p{N}_@.-])"
const AFTER = "(?![\\p{L}\\p{N}_-]|\\.[\\p{L}\\p{N}_])"

const build = (withChannel: boolean): Keys => {
  const user = me.value
  if (!user) return { pattern: null, username: "" }
  const props = (user.notify_props ?? {}) as UserNotify
  const insensitive = [`@${user.username}`]
  if (withChannel) insensitive.push("@channel", "@all", "@here")
  for (const key of (props.mention_keys ?? "").split(",")) {
    const k = key.trim()
    if (k && !insensitive.some((i) => i.toLowerCase() === k.toLowerCase())) insensitive.push(k)
  }
  // JavaScript has no inline case flag: the first name's letters are spelt out exactly, everything else any case.
  const sensitive = props.first_name === "true" && user.first_name ? [user.first_name] : []
  const alternatives = [
    ...insensitive.map((k) => [...k].map((c) => (c.toLowerCase() !== c.toUpperCase() ? `[${escape(c.toLowerCase())}${escape(c.toUpperCase())}]` : escape(c))).join("")),
    ...sensitive.map(escape)
  ]
  return { pattern: new RegExp(`${BEFORE}(${alternatives.join("|")})${AFTER}`, "gu"), username: user.username.toLowerCase() }
}

const withChannelKeys = computed(() => build(true))
const withoutChannelKeys = computed(() => build(false))

const keysFor = (channelId: string) => (channelMentionsIgnored(channelId) ? withoutChannelKeys.value : withChannelKeys.value)

/** Whether a message's text mentions the person (code and links included: a cheap test for notifications). */
export const textMentionsMe = (message: string, channelId: string) => {
  const { pattern } = keysFor(channelId)
  if (!pattern || !message) return false
  pattern.lastIndex = 0
  return pattern.test(message)
}

const SKIP = new Set(["CODE", "PRE", "A", "SCRIPT", "STYLE"])
const cache = new Map<string, { html: string; mentioned: boolean }>()

/**
 * The rendered message with the person's mentions marked (`mention--highlight`, as Mattermost names it) and whether
 * there was one: the author's own posts never mention them. Mentions inside code and links are not marked, as in
 * Mattermost. The rendered HTML was sanitised already; only spans are added around text.
 */
export const highlightMentions = (html: string, message: string, channelId: string, authorId: string): { html: string; mentioned: boolean } => {
  const keys = keysFor(channelId)
  if (!keys.pattern || authorId === me.value?.id || !textMentionsMe(message, channelId)) return { html, mentioned: false }
  const id = `${keys.pattern.source}\u0000${html}`
  const hit = cache.get(id)
  if (hit) return hit
  const template = document.createElement("template")
  template.innerHTML = html
  let mentioned = false
  // @name links and the @channel/@all/@here spans the markdown made.
  for (const el of template.content.querySelectorAll<HTMLElement>("a.mention, span.mention")) {
    const name = (el.dataset.name ?? el.textContent?.slice(1) ?? "").toLowerCase()
    keys.pattern.lastIndex = 0
    if (name === keys.username || (el.tagName === "SPAN" && keys.pattern.test(el.textContent ?? ""))) {
      el.classList.add("mention--highlight")
      mentioned = true
    }
  }
  const walker = document.createTreeWalker(template.content, NodeFilter.SHOW_TEXT)
  const texts: Array<Text> = []
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    let parent = n.parentElement
    let skip = false
    for (; parent; parent = parent.parentElement) if (SKIP.has(parent.tagName) || parent.classList.contains("mention")) skip = true
    if (!skip) texts.push(n as Text)
  }
  for (const text of texts) {
    const value = text.data
    keys.pattern.lastIndex = 0
    if (!keys.pattern.test(value)) continue
    keys.pattern.lastIndex = 0
    const parts = document.createDocumentFragment()
    let last = 0
    for (const m of value.matchAll(keys.pattern)) {
      const at = m.index ?? 0
      if (at > last) parts.append(value.slice(last, at))
      const mark = document.createElement("span")
      mark.className = "mention--highlight"
      mark.textContent = m[1]
      parts.append(mark)
      last = at + m[1].length
    }
    if (last < value.length) parts.append(value.slice(last))
    text.replaceWith(parts)
    mentioned = true
  }
  const result = { html: template.innerHTML, mentioned }
  if (cache.size > 1000) cache.clear()
  cache.set(id, result)
  return result
}

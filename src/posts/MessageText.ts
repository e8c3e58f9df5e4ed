/**
 * What a message says about mentions and hashtags, read the way Mattermost reads it: words outside code, `@name`
 * tokens (trailing punctuation is not part of a name) and `#tag` words.
 */

export interface MentionTokens {
  /** Lower-cased candidate usernames: each token and its forms without trailing `.`, `-` or `_`. */
  readonly usernames: ReadonlySet<string>
  readonly channel: boolean
  readonly all: boolean
  readonly here: boolean
}

/** Code blocks and inline code never mention anyone. */
const withoutCode = (message: string) => message.replace(/```[\s\S]*?(```|$)/g, " ").replace(/`[^`\n]*`/g, " ")

const MENTION = /(?<![\p{L}\p{N}_@.\-])@([\p{L}\p{N}][\p{L}\p{N}._\-]*)/gu

const trailingForms = (token: string) => {
  const forms = [token]
  let current = token
  while (/[._\-]$/.test(current)) {
    current = current.slice(0, -1)
    if (current !== "") forms.push(current)
  }
  return forms
}

export const mentionTokens = (message: string): MentionTokens => {
  const usernames = new Set<string>()
  let channel = false
  let all = false
  let here = false
  for (const match of withoutCode(message).matchAll(MENTION)) {
    for (const form of trailingForms(match[1].toLowerCase())) {
      if (form === "channel") channel = true
      else if (form === "all") all = true
      else if (form === "here") here = true
      else usernames.add(form)
    }
  }
  return { usernames, channel, all, here }
}

const HASHTAG = /^#[\p{L}][\p{L}\p{N}\-_.]*[\p{L}\p{N}]$/u
const HASHTAGS_MAX = 1000

/** Space-separated hashtags of the message (posts.hashtags, which search indexes). */
export const hashtags = (message: string): string => {
  const found: Array<string> = []
  for (const raw of withoutCode(message).split(/[\s,;:!?()[\]{}"'<>]+/)) {
    const word = raw.replace(/^#{2,}/, "#")
    if (HASHTAG.test(word) && word.length <= 51 && !found.includes(word)) found.push(word)
  }
  let joined = ""
  for (const tag of found) {
    const next = joined === "" ? tag : `${joined} ${tag}`
    if (next.length > HASHTAGS_MAX) break
    joined = next
  }
  return joined
}

/** Mattermost counts message length in code points. */
export const MESSAGE_MAX_RUNES = 16383
export const runeLength = (s: string) => [...s].length

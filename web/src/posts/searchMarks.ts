/**
 * The words of a search, found again in its results to be marked (<mark>), as Mattermost's webapp does: quoted
 * phrases as a whole, `word*` as a prefix, hashtags exactly; the modifiers (from:, in:, on:, before:, after:, ext:)
 * and excluded words (-word, -"a phrase") name no text of the post, so they are never marked.
 */
const MODIFIER = /^-?(from|in|on|before|after|ext|channel|user):/i
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
// Letters, digits and underscore of any script make a word (the server's search uses the same boundaries).
const WORD = "[\\p{L}\\p{N}_]"

/** The search's parts as regular-expression sources (one per word, phrase or prefix), modifiers left out. */
export const searchPatterns = (terms: string): Array<string> => {
  const out: Array<string> = []
  const tokens = terms.match(/-?"[^"]*"?|\S+/g) ?? []
  for (const raw of tokens) {
    if (raw.startsWith("-") || MODIFIER.test(raw)) continue
    if (raw.startsWith("\"")) {
      const words = raw.replace(/"/g, "").trim().split(/\s+/).filter(Boolean).map(escapeRegExp)
      if (words.length > 0) out.push(`(?<!${WORD})${words.join("\\s+")}(?!${WORD})`)
      continue
    }
    const hashtag = raw.match(/^#([\p{L}\p{N}_.-]+)$/u)
    if (hashtag) {
      out.push(`#${escapeRegExp(hashtag[1])}(?!${WORD})`)
      continue
    }
    // Punctuation around a word (quotes, commas, an @) is not part of what is searched.
    const prefix = raw.endsWith("*")
    const word = raw.replace(/\*+$/, "").replace(/^[^\p{L}\p{N}_]+|[^\p{L}\p{N}_]+$/gu, "")
    if (!word) continue
    out.push(prefix ? `(?<!${WORD})${escapeRegExp(word)}${WORD}*` : `(?<!${WORD})${escapeRegExp(word)}(?!${WORD})`)
  }
  return out
}

/**
 * One expression for a search and the words the server says each result matched (PostSearchResults.matches, which
 * may hold forms of a word the search found by stemming), or null when there is nothing to mark.
 */
export const searchRegExp = (terms: string, matched: ReadonlyArray<string> = []): RegExp | null => {
  const parts = [...searchPatterns(terms), ...matched.filter(Boolean).map((w) => `(?<!${WORD})${escapeRegExp(w)}(?!${WORD})`)]
  if (parts.length === 0) return null
  // Longest first, so a phrase wins over one of its words.
  parts.sort((a, b) => b.length - a.length)
  return new RegExp(parts.join("|"), "giu")
}

/**
 * The rendered message with every match wrapped in <mark>: only text is touched (never a tag, an attribute or a
 * link's address), through an inert template element, so the markdown renderer's escaping stands.
 */
export const markMatches = (html: string, pattern: RegExp | null | undefined): string => {
  if (!pattern || typeof document === "undefined") return html
  const template = document.createElement("template")
  template.innerHTML = html
  const walker = document.createTreeWalker(template.content, NodeFilter.SHOW_TEXT)
  const texts: Array<Text> = []
  for (let node = walker.nextNode(); node; node = walker.nextNode()) texts.push(node as Text)
  for (const text of texts) {
    const value = text.data
    pattern.lastIndex = 0
    const matches = [...value.matchAll(pattern)].filter((m) => m[0].length > 0)
    if (matches.length === 0) continue
    const parts = document.createDocumentFragment()
    let at = 0
    for (const m of matches) {
      const start = m.index ?? 0
      if (start > at) parts.append(value.slice(at, start))
      const mark = document.createElement("mark")
      mark.textContent = m[0]
      parts.append(mark)
      at = start + m[0].length
    }
    if (at < value.length) parts.append(value.slice(at))
    text.replaceWith(parts)
  }
  return template.innerHTML
}

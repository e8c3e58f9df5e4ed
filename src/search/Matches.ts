import type { Term } from "./SearchTerms.ts"

/**
 * PostSearchResults.matches: for each result, the words of the search found in its message as written there, which
 * the apps highlight. Prefix terms give the message's words that start with the prefix.
 */
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

export const matchesIn = (message: string, terms: ReadonlyArray<Term>): Array<string> => {
  const found = new Set<string>()
  for (const term of terms) {
    const pattern = term.kind === "prefix"
      ? new RegExp(`(?<![\\p{L}\\p{N}_])${escapeRegExp(term.text)}[\\p{L}\\p{N}_]*`, "giu")
      : term.kind === "hashtag"
      ? new RegExp(`#${escapeRegExp(term.text)}(?![\\p{L}\\p{N}_])`, "giu")
      : new RegExp(`(?<![\\p{L}\\p{N}_])${escapeRegExp(term.text)}(?![\\p{L}\\p{N}_])`, "giu")
    for (const match of message.matchAll(pattern)) found.add(match[0])
  }
  return [...found]
}

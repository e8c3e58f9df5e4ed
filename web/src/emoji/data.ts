import data from "emoji-data:compact"

/**
 * The full system emoji set (emoji-datasource, Mattermost's names), indexed for lookup and search. This module is
 * only reached through a dynamic import (emoji/catalog.ts): it and its data are a chunk of their own, fetched the first
 * time a picker opens or a message names an emoji the small built-in table does not know.
 */
export interface SystemEmoji {
  /** The first short name, the one Mattermost stores for a reaction (`+1`, not `thumbsup`). */
  readonly name: string
  readonly names: ReadonlyArray<string>
  readonly unified: string
  readonly category: string
  readonly keywords: string
  readonly tones: boolean
  /** Newer than Emoji 15.0: many fonts cannot draw it yet, so the picker does not offer it. */
  readonly recent: boolean
}

export const CATEGORIES: ReadonlyArray<string> = data[0]

export const SYSTEM_EMOJI: ReadonlyArray<SystemEmoji> = data[1].map(([unified, names, category, keywords, flags]) => {
  const all = names.split(" ")
  return { name: all[0], names: all, unified, category: data[0][category], keywords, tones: (flags & 1) === 1, recent: (flags & 2) === 2 }
})

export const BY_NAME: ReadonlyMap<string, SystemEmoji> = new Map(SYSTEM_EMOJI.flatMap((e) => e.names.map((n) => [n, e] as const)))

/**
 * How well a name or its keywords match what was typed: 0 the name itself, 1 a name that starts with it, 2 a word of a
 * name that does (`_face`), 3 a name that contains it, 4 a keyword that starts with it; -1 no match.
 */
export const matchRank = (names: ReadonlyArray<string>, keywords: string, term: string) => {
  let best = -1
  const better = (rank: number) => {
    if (best < 0 || rank < best) best = rank
  }
  for (const name of names) {
    if (name === term) better(0)
    else if (name.startsWith(term)) better(1)
    else if (name.includes(`_${term}`) || name.includes(`-${term}`)) better(2)
    else if (name.includes(term)) better(3)
  }
  if (best < 0 && keywords !== "" && (` ${keywords}`).includes(` ${term}`)) better(4)
  return best
}

/** System emoji matching a search, best first, in the picker's order within a rank. */
export const searchSystem = (term: string, limit: number): Array<SystemEmoji> => {
  const t = term.toLowerCase().replace(/:/g, "").trim()
  if (t === "") return []
  const ranked: Array<[number, number, SystemEmoji]> = []
  SYSTEM_EMOJI.forEach((e, i) => {
    if (e.recent) return
    const rank = matchRank(e.names, e.keywords, t)
    if (rank >= 0) ranked.push([rank, i, e])
  })
  return ranked.sort((a, b) => a[0] - b[0] || a[1] - b[1]).slice(0, limit).map(([, , e]) => e)
}

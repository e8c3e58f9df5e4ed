import type { CustomEmoji } from "@mattermost/types/emojis"
import { customImage } from "./custom.ts"
import { type SystemEmoji, BY_NAME, CATEGORIES, matchRank, searchSystem, SYSTEM_EMOJI } from "./data.ts"
import { charOf, splitTone, tonedName, tonedUnified } from "./tones.ts"

/**
 * What the picker shows: items (the name a pick stores, in the person's skin tone where the emoji has tones, and how
 * it looks), grouped in sections (recently used, the system categories, custom) or as search results.
 */
export type Item = { readonly name: string; readonly char?: string; readonly src?: string }
export type Section = { readonly id: string; readonly title: string; readonly items: ReadonlyArray<Item> }

/** Skin tone swatches are parts of other emoji, not emoji to pick (Mattermost leaves them out too). */
const HIDDEN = new Set(["Component"])

const systemItem = (e: SystemEmoji, tone: string): Item =>
  e.tones && tone !== "default"
    ? { name: tonedName(e.name, tone), char: charOf(tonedUnified(e.unified, tone)) }
    : { name: e.name, char: charOf(e.unified) }

const customItem = (e: CustomEmoji): Item => ({ name: e.name, src: customImage(e) })

/** A stored name (a recent emoji, maybe toned) as an item in today's tone; undefined when nothing knows it. */
export const itemFor = (name: string, tone: string, custom: Readonly<Record<string, CustomEmoji>>): Item | undefined => {
  const [base] = splitTone(name)
  const system = BY_NAME.get(name) ?? BY_NAME.get(base)
  if (system) return systemItem(system, tone)
  return custom[name] ? customItem(custom[name]) : undefined
}

export const sections = (recent: ReadonlyArray<string>, tone: string, custom: Readonly<Record<string, CustomEmoji>>): Array<Section> => {
  const byCategory = new Map<string, Array<Item>>(CATEGORIES.map((c) => [c, []]))
  for (const e of SYSTEM_EMOJI) if (!e.recent) byCategory.get(e.category)!.push(systemItem(e, tone))
  const recentItems = recent.flatMap((n) => itemFor(n, tone, custom) ?? [])
  const customItems = Object.values(custom).sort((a, b) => a.name.localeCompare(b.name)).map(customItem)
  return [
    ...(recentItems.length > 0 ? [{ id: "recent", title: "Recently used", items: recentItems }] : []),
    ...CATEGORIES.filter((c) => !HIDDEN.has(c)).map((c) => ({ id: c, title: c, items: byCategory.get(c)! })),
    ...(customItems.length > 0 ? [{ id: "custom", title: "Custom", items: customItems }] : [])
  ]
}

/** System and custom emoji matching a search, best match first (a custom emoji ranks by its name alone). */
export const search = (term: string, tone: string, custom: Readonly<Record<string, CustomEmoji>>, limit = 120): Array<Item> => {
  const t = term.toLowerCase().replace(/:/g, "").trim()
  if (t === "") return []
  const system = searchSystem(t, limit).map((e) => ({ rank: matchRank(e.names, e.keywords, t), item: systemItem(e, tone) }))
  const customs = Object.values(custom)
    .map((e) => ({ rank: matchRank([e.name], "", t), item: customItem(e) }))
    .filter((r) => r.rank >= 0)
  return [...system, ...customs].sort((a, b) => a.rank - b.rank).slice(0, limit).map((r) => r.item)
}

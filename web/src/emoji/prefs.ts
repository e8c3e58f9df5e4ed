import { signal } from "@preact/signals"
import { client } from "../app/api.ts"
import { me } from "../app/state.ts"

/**
 * The emoji preferences the official apps read, so they follow a person across clients: the skin tone (category
 * "emoji", name "emoji_skintone", a modifier's code point or "default") and the recently used emoji (category
 * "recent_emojis", named by the user's id, a JSON list of {name, usageCount} kept in ascending order of use, at most
 * 27, as Mattermost's webapp writes it).
 */
type Preference = { category: string; name: string; value: string }
export type RecentEmoji = { name: string; usageCount: number }

export const skinTone = signal("default")
export const recentEmoji = signal<ReadonlyArray<RecentEmoji>>([])

const MAX_RECENT = 27

const parseRecent = (value: string): Array<RecentEmoji> => {
  try {
    const list = JSON.parse(value) as unknown
    if (!Array.isArray(list)) return []
    return list.flatMap((r) => (r && typeof r.name === "string" ? [{ name: r.name, usageCount: Number(r.usageCount) || 1 }] : []))
  } catch {
    return []
  }
}

/** Applies loaded or changed preferences; a deleted one is back to its default. */
export const applyEmojiPrefs = (prefs: ReadonlyArray<Preference>, deleted = false) => {
  for (const p of prefs) {
    if (p.category === "emoji" && p.name === "emoji_skintone") skinTone.value = deleted ? "default" : p.value || "default"
    if (p.category === "recent_emojis" && (!me.value || p.name === me.value.id)) recentEmoji.value = deleted ? [] : parseRecent(p.value)
  }
}

/** Most used (then most recently used) first, as the picker shows them. */
export const recentNames = (list: ReadonlyArray<RecentEmoji>) => [...list].reverse().map((r) => r.name)

const save = (pref: Preference) => {
  const id = me.value?.id
  if (!id) return Promise.resolve()
  return client.savePreferences(id, [{ ...pref, user_id: id }]).then(() => undefined, () => undefined)
}

export const setSkinTone = (tone: string) => {
  skinTone.value = tone
  return save({ category: "emoji", name: "emoji_skintone", value: tone })
}

/** One more use of an emoji: moved to the end with its count raised, then sorted by count (stable), as Mattermost does. */
export const recordRecentEmoji = (name: string) => {
  const list = recentEmoji.value.filter((r) => r.name !== name)
  const before = recentEmoji.value.find((r) => r.name === name)
  const next = [...list, { name, usageCount: (before?.usageCount ?? 0) + 1 }].slice(-MAX_RECENT).sort((a, b) => a.usageCount - b.usageCount)
  recentEmoji.value = next
  return save({ category: "recent_emojis", name: me.value?.id ?? "", value: JSON.stringify(next) })
}

import { me } from "../app/state.ts"

/** The channels opened most recently, newest first (the switcher lists them first), kept per user in localStorage. */
const key = () => `recent-channels:${me.value?.id ?? ""}`

export const recentChannels = (): Array<string> => {
  try {
    const list = JSON.parse(localStorage.getItem(key()) ?? "[]")
    return Array.isArray(list) ? list.filter((id): id is string => typeof id === "string") : []
  } catch {
    return []
  }
}

export const recordVisit = (channelId: string) => {
  const list = [channelId, ...recentChannels().filter((id) => id !== channelId)].slice(0, 30)
  try {
    localStorage.setItem(key(), JSON.stringify(list))
  } catch {}
}

/**
 * A fuzzy match score (higher is better, -1 for no match): every typed character must appear in order; a match at the
 * start, at a word start or in one run scores more, so "tsq" finds "Town Square" and "offt" finds "Off-Topic".
 */
export const fuzzyScore = (text: string, typed: string) => {
  const t = text.toLowerCase()
  const q = typed.toLowerCase().replace(/\s+/g, "")
  if (q === "") return 0
  if (t.startsWith(q)) return 1000 - t.length
  const at = t.indexOf(q)
  if (at >= 0) return 800 - at
  let score = 0
  let from = 0
  let last = -2
  for (const ch of q) {
    const i = t.indexOf(ch, from)
    if (i < 0) return -1
    score += i === last + 1 ? 5 : /[\s._-]/.test(t[i - 1] ?? " ") ? 4 : 1
    last = i
    from = i + 1
  }
  return score
}

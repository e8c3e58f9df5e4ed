import { effect } from "@preact/signals"
import { currentChannelId } from "../app/state.ts"
import { panel } from "../shell/panels.ts"

/**
 * Keeping the reader's place in a channel: which post is at the top of the list and where (the scroll anchor), kept
 * in sessionStorage so that a reload opens the same channel (its address), at the same post, with the same thread.
 */
export type Place = { readonly id: string; readonly top: number }

/**
 * The first post whose bottom is below the list's top edge, and its top's offset from that edge. The posts are in
 * document order, top to bottom, so a binary search reads a handful of boxes, not all of them.
 */
export const firstVisible = (list: HTMLElement): Place | null => {
  const items = list.querySelectorAll<HTMLElement>("article[data-post-id]")
  if (items.length === 0) return null
  const edge = list.getBoundingClientRect().top
  let lo = 0
  let hi = items.length - 1
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (items[mid].getBoundingClientRect().bottom > edge) hi = mid
    else lo = mid + 1
  }
  return { id: items[lo].dataset.postId!, top: items[lo].getBoundingClientRect().top - edge }
}

/** Scrolls the list so that the post's top is `top` pixels below the list's top edge again; false if it is not shown. */
export const restorePlace = (list: HTMLElement, place: Place) => {
  const el = list.querySelector<HTMLElement>(`article[data-post-id="${place.id}"]`)
  if (!el) return false
  const delta = el.getBoundingClientRect().top - list.getBoundingClientRect().top - place.top
  if (Math.abs(delta) >= 0.5) list.scrollTop += delta
  return true
}

const PLACE = "reading.place"
const THREAD = "reading.thread"

const read = <T>(key: string): T | null => {
  try {
    return JSON.parse(sessionStorage.getItem(key) ?? "null") as T | null
  } catch {
    return null
  }
}
const write = (key: string, value: unknown) => {
  try {
    if (value === null) sessionStorage.removeItem(key)
    else sessionStorage.setItem(key, JSON.stringify(value))
  } catch {
    // Storage full or refused (a private window): the place is simply not kept.
  }
}

/** Where the reader is in a channel; null when at the newest posts (the default place needs no keeping). */
export const savePlace = (channelId: string, place: Place | null) => write(PLACE, place && { channelId, ...place })

/**
 * Only a reload (or back/forward into the app) restores the place, and only once: switching channels opens them at the
 * newest posts or the first unread one, as Mattermost does.
 */
const reloaded = (() => {
  const nav = performance.getEntriesByType?.("navigation")[0] as PerformanceNavigationTiming | undefined
  return nav?.type === "reload" || nav?.type === "back_forward"
})()
let placeTaken = !reloaded
let threadTaken = !reloaded

export const takeSavedPlace = (channelId: string): Place | null => {
  if (placeTaken) return null
  placeTaken = true
  const saved = read<Place & { channelId: string }>(PLACE)
  return saved && saved.channelId === channelId ? { id: saved.id, top: saved.top } : null
}

export const takeSavedThread = (channelId: string): string | null => {
  if (threadTaken) return null
  threadTaken = true
  const saved = read<{ channelId: string; rootId: string }>(THREAD)
  return saved && saved.channelId === channelId ? saved.rootId : null
}

// The open thread is kept with the channel it was opened from (restored before this runs: taken on first view).
effect(() => {
  const p = panel.value
  const channelId = currentChannelId.value
  if (!threadTaken) return
  write(THREAD, p?.kind === "thread" && channelId ? { channelId, rootId: p.rootId } : null)
})

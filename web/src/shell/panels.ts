import { signal } from "@preact/signals"

/** What the right-hand panel shows, and the profile popover: signals any view can set. */
export type Panel =
  | { readonly kind: "thread"; readonly rootId: string }
  | { readonly kind: "search"; readonly terms: string }
  | { readonly kind: "saved" }
  | { readonly kind: "pinned"; readonly channelId: string }

export const panel = signal<Panel | null>(null)
export const profile = signal<{ userId: string; x: number; y: number } | null>(null)
export const dialog = signal<"browse" | "create" | "dm" | "settings" | "custom-status" | null>(null)

/** The post a search result's "Jump" asked for: the channel view scrolls to it, loading older pages as needed. */
export const highlight = signal<string | null>(null)

export const openThread = (rootId: string) => {
  panel.value = { kind: "thread", rootId }
}

export const showProfile = (userId: string, anchor: HTMLElement) => {
  const r = anchor.getBoundingClientRect()
  profile.value = { userId, x: Math.min(r.left, innerWidth - 280), y: Math.min(r.bottom + 4, innerHeight - 200) }
}

import { signal } from "@preact/signals"

/** What the right-hand panel shows, and the profile popover: signals any view can set. */
export type Panel =
  | { readonly kind: "thread"; readonly rootId: string }
  | { readonly kind: "search"; readonly terms: string }
  | { readonly kind: "saved" }
  | { readonly kind: "pinned"; readonly channelId: string }

export const panel = signal<Panel | null>(null)
export const profile = signal<{ userId: string; anchor: HTMLElement } | null>(null)
export const dialog = signal<"dm" | "settings" | "security" | "custom-status" | null>(null)

/** The post a search result's "Jump" asked for: the channel view scrolls to it, loading older pages as needed. */
export const highlight = signal<string | null>(null)

export const openThread = (rootId: string) => {
  panel.value = { kind: "thread", rootId }
}

/** The profile card opens next to the name that was clicked (ui/Floating.tsx places it). */
export const showProfile = (userId: string, anchor: HTMLElement) => {
  profile.value = { userId, anchor }
}

import { computed, signal } from "@preact/signals"
import type { Team } from "@mattermost/types/teams"
import type { UserProfile } from "@mattermost/types/users"

/**
 * The app's state: plain signals keyed by id, updated by API answers and WebSocket events. Components read only the
 * signals they show, so an event touches only what depends on it (no store-wide re-render, no reducer boilerplate).
 * This file holds what every feature shares (who is signed in, the teams, where the person is); each feature folder
 * holds its own part (`channels/state.ts`, `posts/state.ts`, `people/state.ts`, …).
 */
export const config = signal<Record<string, string>>({})
export const me = signal<UserProfile | null>(null)
export const teams = signal<Array<Team>>([])
export const connected = signal(true)
export const currentChannelId = signal<string>("")
export const currentTeamId = signal<string>("")

/**
 * A one-line message about something that happened to the person elsewhere (removed from the channel they were
 * reading, a team they left on another device), shown by the shell until dismissed.
 */
export const notice = signal("")

/**
 * Set when this session is known to have ended, with the reason in words (the account was deactivated): the session
 * module sends the person to sign-in with it.
 */
export const sessionEnded = signal("")

/**
 * What this client learned that may explain its session ending, for the sign-in page's message: when its account's
 * password last changed (user_updated with a newer last_password_update) and when its own session expires.
 */
export const sessionHints = { passwordChangedAt: 0, expiresAt: 0 }

export const isAdmin = computed(() => (me.value?.roles ?? "").split(" ").includes("system_admin"))

/** Merges items into an id-keyed map signal (one new object, so readers re-render once). */
export const put = <T extends { id: string }>(store: { value: Record<string, T> }, items: Array<T>) => {
  if (items.length === 0) return
  const next = { ...store.value }
  for (const item of items) next[item.id] = item
  store.value = next
}

import { signal } from "@preact/signals"
import { client } from "../app/api.ts"
import { currentTeamId } from "../app/state.ts"

/**
 * The followed threads' unread totals of the open team (GET /users/me/teams/{team}/threads?totalsOnly=true), for the
 * sidebar's Threads entry: bold when a followed thread has unread replies, a count for unread mentions.
 */
export const threadTotals = signal<{ teamId: string; unreadThreads: number; unreadMentions: number }>({ teamId: "", unreadThreads: 0, unreadMentions: 0 })

let asked = 0
export const loadThreadTotals = async (teamId = currentTeamId.value) => {
  if (!teamId) return
  const ticket = ++asked
  try {
    const r = await client.getUserThreads("me", teamId, { totalsOnly: true, threadsOnly: false, perPage: 1 })
    // An older answer arriving after a newer question (a burst of events) is dropped.
    if (ticket !== asked) return
    threadTotals.value = { teamId, unreadThreads: r.total_unread_threads ?? 0, unreadMentions: r.total_unread_mentions ?? 0 }
  } catch {
    // Collapsed threads off on the server, or offline: the entry stays as it was.
  }
}

let timer: ReturnType<typeof setTimeout> | undefined
/** Several thread events in a row (a busy thread) make one request. */
export const reloadThreadTotalsSoon = () => {
  if (timer) return
  timer = setTimeout(() => {
    timer = undefined
    void loadThreadTotals()
  }, 150)
}

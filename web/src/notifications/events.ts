import { effect } from "@preact/signals"
import { client } from "../app/api.ts"
import { currentTeamId, me } from "../app/state.ts"
import { statuses } from "../people/state.ts"
import type { Handlers } from "../realtime/handlers.ts"
import { installBadges } from "./badge.ts"
import "./notifications.css"
import { loadThreadTotals, reloadThreadTotalsSoon } from "./threads.ts"

/** Followed threads' unread marks, live: any change to a thread of this person's asks for the totals again. */
export const attentionEvents: Handlers = {
  thread_updated: () => reloadThreadTotalsSoon(),
  thread_read_changed: () => reloadThreadTotalsSoon(),
  thread_follow_changed: () => reloadThreadTotalsSoon(),
  // After a reconnect the totals may be stale (replies while the socket was down).
  hello: () => reloadThreadTotalsSoon()
}

let started = false
/**
 * The attention cues that live outside any view: the tab title and favicon, one's own status (Do Not Disturb holds
 * notifications back; status_change keeps it current in people/state.ts) and the Threads entry's totals per team.
 */
export const startAttention = () => {
  if (started) return
  started = true
  installBadges()
  let statusOf = ""
  effect(() => {
    const id = me.value?.id
    if (!id || id === statusOf) return
    statusOf = id
    void client.getStatus(id).then((s) => {
      statuses.value = { ...statuses.value, [id]: s.status }
    }, () => undefined)
  })
  effect(() => {
    const teamId = currentTeamId.value
    if (teamId && me.value) void loadThreadTotals(teamId)
  })
}

import { signal } from "@preact/signals"
import { me } from "../app/state.ts"
import { needUsers } from "../people/state.ts"
import type { Handlers } from "./handlers.ts"

/** Per channel: who is typing there, until when (ms). */
export const typing = signal<Record<string, Record<string, number>>>({})

/** Typing indicators expire on their own (the server sends no "stopped typing"). */
setInterval(() => {
  const now = Date.now()
  let changed = false
  const next: Record<string, Record<string, number>> = {}
  for (const [channel, who] of Object.entries(typing.value)) {
    next[channel] = {}
    for (const [user, until] of Object.entries(who)) {
      if (until > now) next[channel][user] = until
      else changed = true
    }
  }
  if (changed) typing.value = next
}, 2000)

export const typingEvents: Handlers = {
  typing: (data, broadcast) => {
    const channelId = broadcast.channel_id as string
    const userId = data.user_id as string
    if (userId === me.value?.id) return
    needUsers([userId])
    typing.value = { ...typing.value, [channelId]: { ...typing.value[channelId], [userId]: Date.now() + 6000 } }
  }
}

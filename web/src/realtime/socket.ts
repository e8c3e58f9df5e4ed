import { channelEvents } from "../channels/events.ts"
import { preferenceEvents } from "../account/events.ts"
import { emojiEvents } from "../emoji/events.ts"
import { socket, socketUrl } from "../app/api.ts"
import { connected } from "../app/state.ts"
import { attentionEvents } from "../notifications/events.ts"
import { peopleEvents } from "../people/events.ts"
import { postEvents } from "../posts/events.ts"
import { teamEvents } from "../teams/events.ts"
import type { Handlers } from "./handlers.ts"
import { typingEvents } from "./typing.ts"

/** The WebSocket: each event the server sends goes to the handlers of every feature it concerns. */
const tables: ReadonlyArray<Handlers> = [postEvents, channelEvents, peopleEvents, teamEvents, preferenceEvents, typingEvents, emojiEvents, attentionEvents]

let started = false
/**
 * Opens the socket once signed in. `resync` runs after any reconnect (posts and memberships may have changed while it
 * was down; with a fresh hello nothing was replayed at all); `closed` runs whenever the socket closes, so that the
 * session can be checked (the server closes the sockets of a session that ended).
 */
export const startSocket = (hooks: { readonly resync: () => void; readonly closed: () => void }) => {
  if (started) return
  started = true
  socket.addMessageListener((msg) => {
    const data = (msg.data ?? {}) as Record<string, any>
    const broadcast = (msg.broadcast ?? {}) as Record<string, any>
    for (const table of tables) {
      const handler = table[msg.event]
      if (handler) {
        try {
          handler(data, broadcast)
        } catch (e) {
          console.error(`${msg.event} handler failed`, e)
        }
      }
    }
  })
  socket.addFirstConnectListener(() => {
    connected.value = true
  })
  socket.addReconnectListener(() => {
    connected.value = true
    hooks.resync()
  })
  socket.addCloseListener(() => {
    connected.value = false
    hooks.closed()
  })
  socket.initialize(socketUrl())
}

export const stopSocket = () => {
  if (!started) return
  started = false
  socket.close()
}

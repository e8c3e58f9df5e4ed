import { signal } from "@preact/signals"
import type { CustomEmoji } from "@mattermost/types/emojis"
import { client } from "../app/api.ts"
import { config } from "../app/state.ts"

/**
 * The server's custom emoji by name. The picker loads the whole list (GET /api/v4/emoji, by pages); a message or a
 * reaction naming an emoji that is neither a system one nor known here asks the server by name, batched (POST
 * /api/v4/emoji/names), and a name the server does not know is not asked again (Mattermost's nonExistentEmoji).
 */
export const customEmoji = signal<Readonly<Record<string, CustomEmoji>>>({})

export const customImage = (emoji: { id: string }) => `/api/v4/emoji/${emoji.id}/image`

const enabled = () => config.value.EnableCustomEmoji === "true"
const NAME = /^[a-z0-9_+-]{1,64}$/
const BATCH = 200 // the server's bound on one names request
const PAGE = 200
const MAX_PAGES = 25

const missing = new Set<string>()
const pending = new Set<string>()
let flushing = false

export const addCustomEmoji = (list: ReadonlyArray<CustomEmoji>) => {
  if (list.length === 0) return
  const next = { ...customEmoji.value }
  for (const emoji of list) {
    next[emoji.name] = emoji
    missing.delete(emoji.name)
  }
  customEmoji.value = next
}

const flush = async () => {
  while (pending.size > 0) {
    const names = [...pending].slice(0, BATCH)
    for (const name of names) pending.delete(name)
    const found = await client.getCustomEmojisByNames(names).catch(() => [] as Array<CustomEmoji>)
    for (const name of names) if (!found.some((e) => e.name === name)) missing.add(name)
    addCustomEmoji(found)
  }
  flushing = false
}

/** Asks the server about a name once; the names asked in the same task go in one request. */
export const requestCustomEmoji = (name: string) => {
  if (!enabled() || !NAME.test(name) || customEmoji.peek()[name] || missing.has(name) || pending.has(name)) return
  pending.add(name)
  if (!flushing) {
    flushing = true
    queueMicrotask(() => void flush())
  }
}

let all: Promise<void> | undefined
/** Every custom emoji (for the picker), once per page load; the list then grows with emoji_added events. */
export const loadAllCustomEmoji = () =>
  enabled()
    ? (all ??= (async () => {
      for (let page = 0; page < MAX_PAGES; page++) {
        const list = await client.getCustomEmojis(page, PAGE, "name")
        addCustomEmoji(list)
        if (list.length < PAGE) break
      }
    })().catch(() => {
      all = undefined
    }))
    : Promise.resolve()

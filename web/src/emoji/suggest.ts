import { loadSystemEmoji } from "./catalog.ts"
import { customEmoji, loadAllCustomEmoji } from "./custom.ts"
import { skinTone } from "./prefs.ts"

/**
 * Emoji for the message box's `:ta` autocomplete: the full set and the server's custom emoji (both loaded on first
 * use), best match first, in the person's skin tone.
 */
export const suggestEmoji = async (term: string, limit: number) => {
  const [model] = await Promise.all([import("./model.ts"), loadSystemEmoji(), loadAllCustomEmoji()])
  return model.search(term, skinTone.peek(), customEmoji.peek(), limit)
}

import type { CustomEmoji } from "@mattermost/types/emojis"
import type { Handlers } from "../realtime/handlers.ts"
import { json } from "../realtime/handlers.ts"
import { addCustomEmoji } from "./custom.ts"
import { applyEmojiPrefs } from "./prefs.ts"

type Preference = { category: string; name: string; value: string }

/** A custom emoji added by anyone shows at once; skin tone and recent emoji chosen on another device apply here. */
export const emojiEvents: Handlers = {
  emoji_added: (data) => {
    const emoji = json<CustomEmoji | null>(data.emoji, null)
    if (emoji?.name) addCustomEmoji([emoji])
  },
  preferences_changed: (data) => applyEmojiPrefs(json<Array<Preference>>(data.preferences, [])),
  preference_changed: (data) => {
    const one = json<Preference | null>(data.preference, null)
    if (one) applyEmojiPrefs([one])
  },
  preferences_deleted: (data) => applyEmojiPrefs(json<Array<Preference>>(data.preferences, []), true)
}

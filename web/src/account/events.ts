import type { Handlers } from "../realtime/handlers.ts"
import { json } from "../realtime/handlers.ts"
import { applyDisplay, DISPLAY_DEFAULTS } from "./preferences.ts"
import { applyThemePrefs } from "./theme.ts"

type Preference = { category: string; name: string; value: string }

/**
 * Display preferences and the theme saved on another device apply here at once (24-hour clock, collapsed reply
 * threads, name format, theme).
 */
export const preferenceEvents: Handlers = {
  preferences_changed: (data) => {
    const prefs = json<Array<Preference>>(data.preferences, [])
    applyDisplay(prefs)
    applyThemePrefs(prefs)
  },
  preference_changed: (data) => {
    const one = json<Preference | null>(data.preference, null)
    if (one) applyDisplay([one])
    if (one) applyThemePrefs([one])
  },
  // A deleted preference is back to its default.
  preferences_deleted: (data) => {
    const prefs = json<Array<Preference>>(data.preferences, [])
    applyDisplay(prefs.map((p) => ({ ...p, value: DISPLAY_DEFAULTS[p.name] ?? "" })))
    applyThemePrefs(prefs, true)
  }
}

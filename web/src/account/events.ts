import type { Handlers } from "../realtime/handlers.ts"
import { json } from "../realtime/handlers.ts"
import { applyDisplay, DISPLAY_DEFAULTS } from "./preferences.ts"

type Preference = { category: string; name: string; value: string }

/** Display preferences saved on another device apply here at once (24-hour clock, collapsed reply threads). */
export const preferenceEvents: Handlers = {
  preferences_changed: (data) => applyDisplay(json<Array<Preference>>(data.preferences, [])),
  preference_changed: (data) => {
    const one = json<Preference | null>(data.preference, null)
    if (one) applyDisplay([one])
  },
  // A deleted preference is back to its default.
  preferences_deleted: (data) =>
    applyDisplay(json<Array<Preference>>(data.preferences, []).map((p) => ({ ...p, value: DISPLAY_DEFAULTS[p.name] ?? "" })))
}

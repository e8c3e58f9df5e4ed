import { signal } from "@preact/signals"

/** Display preferences (Mattermost's display_settings category): 24-hour clock, collapsed reply threads. */
export const militaryTime = signal(false)
export const collapsedThreads = signal(true)
/** How teammates' names show (name_format): "username", "nickname_full_name", "full_name"; "" follows the server. */
export const nameFormat = signal("")

export const applyDisplay = (prefs: Array<{ category: string; name: string; value: string }>) => {
  for (const p of prefs) {
    if (p.category !== "display_settings") continue
    if (p.name === "use_military_time") militaryTime.value = p.value === "true"
    if (p.name === "collapsed_reply_threads") collapsedThreads.value = p.value !== "off"
    if (p.name === "name_format") nameFormat.value = p.value
  }
}

/** What a display preference is when it is not set (or was deleted). */
export const DISPLAY_DEFAULTS: Readonly<Record<string, string>> = { use_military_time: "false", collapsed_reply_threads: "on", name_format: "" }

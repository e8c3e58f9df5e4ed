import { useState } from "preact/hooks"
import { client, errorMessage } from "../app/api.ts"
import { config, me } from "../app/state.ts"
import { teammateNameDisplay } from "../people/state.ts"
import { applyDisplay, nameFormat } from "./preferences.ts"
import { activeTheme, parseTheme, THEMES, themePrefs, type Theme } from "./theme.ts"

/** Settings > Display: how teammates' names show, and the theme (loaded with the settings dialog, not at start). */

const NAME_FORMATS: ReadonlyArray<[string, string]> = [
  ["username", "Show username"],
  ["nickname_full_name", "Show nickname if one exists, otherwise first and last name"],
  ["full_name", "Show first and last name"]
]

export const NameFormatSetting = ({ onError }: { onError: (message: string) => void }) => {
  // An administrator may lock the setting (LockTeammateNameDisplay): then the server's choice is shown, not offered.
  if (config.value.LockTeammateNameDisplay === "true") return null
  const choose = async (value: string) => {
    const user = me.value!
    const before = nameFormat.value
    applyDisplay([{ category: "display_settings", name: "name_format", value }])
    try {
      await client.savePreferences(user.id, [{ user_id: user.id, category: "display_settings", name: "name_format", value }])
    } catch (err) {
      applyDisplay([{ category: "display_settings", name: "name_format", value: before }])
      onError(errorMessage(err))
    }
  }
  return (
    <label>Teammate name display
      <select value={teammateNameDisplay()} onChange={(e) => void choose(e.currentTarget.value)}>
        {NAME_FORMATS.map(([value, label]) => <option key={value} value={value}>{label}</option>)}
      </select>
    </label>
  )
}

/** The colours a custom theme is edited by (the rest follow from the built-in it started from). */
const EDITABLE: ReadonlyArray<[string, string]> = [
  ["sidebarBg", "Sidebar background"],
  ["sidebarText", "Sidebar text"],
  ["sidebarHeaderBg", "Sidebar header"],
  ["sidebarTextActiveBorder", "Active channel marker"],
  ["centerChannelBg", "Page background"],
  ["centerChannelColor", "Page text"],
  ["linkColor", "Links"],
  ["buttonBg", "Button background"],
  ["buttonColor", "Button text"],
  ["mentionBg", "Mention badge"],
  ["mentionHighlightBg", "Mention highlight"],
  ["onlineIndicator", "Online indicator"]
]

const Swatch = ({ theme }: { theme: Theme }) => (
  <span class="swatch" aria-hidden="true">
    <span style={{ background: theme.sidebarBg }} /><span style={{ background: theme.centerChannelBg }} /><span style={{ background: theme.buttonBg }} />
  </span>
)

export const ThemeSetting = ({ onError, onSaved }: { onError: (message: string) => void; onSaved: (message: string) => void }) => {
  const current = activeTheme.value
  const key = current && Object.keys(THEMES).find((k) => THEMES[k as keyof typeof THEMES].type === current.type &&
    Object.entries(THEMES[k as keyof typeof THEMES]).every(([n, v]) => current[n]?.toLowerCase() === v.toLowerCase()))
  const [custom, setCustom] = useState(!!current && !key)
  const [pasted, setPasted] = useState("")
  const selected = custom ? "custom" : key ?? (current ? "custom" : "denim")

  // Saved for every team (name ""), as the official apps' "apply to all teams"; team-only themes are cleared.
  const save = async (theme: Theme) => {
    const user = me.value!
    const value = JSON.stringify(theme)
    const before = themePrefs.value
    const teamOnly = Object.keys(before).filter((name) => name !== "")
    themePrefs.value = { "": value }
    try {
      await client.savePreferences(user.id, [{ user_id: user.id, category: "theme", name: "", value }])
      if (teamOnly.length > 0) {
        await client.deletePreferences(user.id, teamOnly.map((name) => ({ user_id: user.id, category: "theme", name, value: before[name] })))
      }
      onSaved(`Theme saved: ${theme.type === "custom" ? "custom" : theme.type}`)
    } catch (err) {
      themePrefs.value = before
      onError(errorMessage(err))
    }
  }
  const pick = (k: string) => {
    if (k === "custom") {
      setCustom(true)
      return
    }
    setCustom(false)
    void save({ ...THEMES[k as keyof typeof THEMES] })
  }
  const base = current ?? THEMES.denim
  const setColour = (name: string, value: string) => void save({ ...base, type: "custom", [name]: value })
  const importJson = () => {
    const theme = parseTheme(pasted)
    if (!theme) {
      onError("That is not a theme: paste the JSON the Mattermost apps copy (Settings > Display > Theme > Copy theme colors).")
      return
    }
    setPasted("")
    void save({ ...theme, type: "custom" })
  }

  return (
    <div class="theme-setting">
      <fieldset class="theme-choices">
        <legend>Theme</legend>
        {Object.entries(THEMES).map(([k, theme]) => (
          <label key={k} class="theme-choice">
            <input type="radio" name="theme" value={k} checked={selected === k} onChange={() => pick(k)} />
            <Swatch theme={theme} /> {theme.type}
          </label>
        ))}
        <label class="theme-choice">
          <input type="radio" name="theme" value="custom" checked={selected === "custom"} onChange={() => pick("custom")} />
          <Swatch theme={base} /> Custom
        </label>
      </fieldset>
      {!current && <p class="muted">No theme chosen yet: the page follows your system's light or dark setting.</p>}
      {selected === "custom" && (
        <>
          <div class="theme-colours">
            {EDITABLE.map(([name, label]) => (
              <label key={name}>{label}
                <input type="color" value={/^#[0-9a-f]{6}$/i.test(base[name] ?? "") ? base[name] : "#000000"} onChange={(e) => setColour(name, e.currentTarget.value)} />
              </label>
            ))}
          </div>
          <label>Theme colors (JSON, as the Mattermost apps copy them)
            <textarea class="theme-json" value={pasted} placeholder={JSON.stringify(base).slice(0, 80) + "…"} onInput={(e) => setPasted(e.currentTarget.value)} />
          </label>
          <div class="row">
            <button type="button" class="secondary" disabled={!pasted.trim()} onClick={importJson}>Apply pasted theme</button>
            <button type="button" class="secondary" onClick={() => void navigator.clipboard?.writeText(JSON.stringify(base)).then(() => onSaved("Theme colors copied"), () => undefined)}>Copy theme colors</button>
          </div>
        </>
      )}
    </div>
  )
}
